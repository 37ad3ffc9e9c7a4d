import { addUser, expect, openHydrated, signIn, suitePassword, test } from './helpers';

// The passvault page: an owner keeps a secret, edits it, replaces its value unseen,
// reveals it only with the password again, and deletes it; operators and viewers see
// names only. The stores' side is server/tests/passvault.rs, answering asks
// from the vault is in credentials.spec.ts.

const unique = () => Math.random().toString(36).slice(2, 8);

test('an owner keeps, edits, reveals with the password and deletes a secret', async ({ page }) => {
  const name = `Acme key ${unique()}`;
  const value = `acme-${unique()}-value`;
  await openHydrated(page, '/passvault');
  await page.getByText('Keep a new secret').click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Environment variable').fill('ACME_KEY');
  await page.getByLabel('Value', { exact: true }).fill(value);
  await page.getByLabel('Description').fill('for the deploy agent');
  await page.getByLabel('Metadata (key=value, one a line)').fill('owner=ops\nrotated=2026-12');
  await page.getByRole('button', { name: 'Keep secret' }).click();
  const entries = page.getByRole('list', { name: 'Passvault entries' });
  const row = entries.locator(':scope > li').filter({ hasText: name });
  await expect(row).toContainText('ACME_KEY');
  await expect(row).toContainText('for the deploy agent');
  await expect(row).toContainText('Never used');
  await expect(row.locator('dl')).toContainText('ops');
  // Listed without its value, even after a reload; found by its variable in any case.
  await openHydrated(page, '/passvault');
  expect(await page.content()).not.toContain(value);
  await page.getByRole('searchbox', { name: 'Search the passvault' }).fill('acme_key');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page).toHaveURL(/q=acme_key/);
  await expect(entries.locator(':scope > li')).toHaveCount(1);
  await expect(row).toContainText(name);
  await openHydrated(page, '/passvault');

  // A bad variable name is refused by name, and nothing is lost.
  await row.getByRole('button', { name: `Edit ${name}` }).click();
  await row.getByLabel('Environment variable').fill('ACME-KEY');
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toContainText('env_var');
  await row.getByLabel('Environment variable').fill('ACME_API_KEY');
  await row.getByLabel('New value (empty keeps the current one)').fill(`${value}-rotated`);
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(entries.locator(':scope > li').filter({ hasText: name })).toContainText('ACME_API_KEY');

  // Reveal: a wrong password shows nothing; the right one shows the new value.
  const fresh = entries.locator(':scope > li').filter({ hasText: name });
  await fresh.getByRole('button', { name: `Reveal ${name}` }).click();
  await fresh.getByLabel('Your password, to reveal the value').fill('not-my-password');
  await fresh.getByRole('button', { name: 'Reveal', exact: true }).click();
  await expect(fresh.getByRole('alert')).toContainText('not your password');
  await fresh.getByLabel('Your password, to reveal the value').fill(suitePassword);
  await fresh.getByRole('button', { name: 'Reveal', exact: true }).click();
  await expect(fresh.getByLabel(`Value of ${name}`)).toHaveText(`${value}-rotated`);
  await fresh.getByRole('button', { name: 'Hide' }).click();
  await expect(fresh.getByLabel(`Value of ${name}`)).toHaveCount(0);

  // The audit trail has the reveal and the refused one.
  const audit = await (await page.request.get('/api/v1/audit')).json();
  const actions = audit.entries.map((entry: { action: string }) => entry.action);
  expect(actions).toContain('passvault.reveal');
  expect(actions).toContain('passvault.reveal_refused');

  await fresh.getByRole('button', { name: `Delete ${name}` }).click();
  await page.getByRole('alertdialog', { name: `Delete ${name}?` }).getByRole('button', { name: 'Delete the secret' }).click();
  await expect(entries.locator(':scope > li').filter({ hasText: name })).toHaveCount(0);
});

test('operators and viewers see names only and are offered nothing to change', async ({ page, baseURL, browser }) => {
  const name = `Shared key ${unique()}`;
  const kept = await page.request.post('/api/v1/passvault', { data: { name, env_var: 'SHARED_KEY', value: 'shared-value-1' } });
  expect(kept.status(), await kept.text()).toBe(201);
  addUser('opal', 'default', 'operator');
  addUser('vern', 'default', 'viewer');

  const operatorContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const operator = await operatorContext.newPage();
  await signIn(operator, baseURL!, 'opal');
  await openHydrated(operator, '/passvault');
  await expect(operator.getByRole('list', { name: 'Passvault entries' })).toContainText(name);
  await expect(operator.getByText('Only an owner adds, changes, reveals or deletes secrets')).toBeVisible();
  await expect(operator.getByText('Keep a new secret')).toHaveCount(0);
  await expect(operator.getByRole('button', { name: `Reveal ${name}` })).toHaveCount(0);
  const refused = await operator.request.post('/api/v1/passvault', { data: { name: 'x', env_var: 'X', value: 'v' } });
  expect(refused.status()).toBe(403);
  await operatorContext.close();

  const viewerContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await viewerContext.newPage();
  await signIn(viewer, baseURL!, 'vern');
  await openHydrated(viewer, '/passvault');
  await expect(viewer.getByRole('list', { name: 'Passvault entries' })).toContainText(name);
  await expect(viewer.getByText('Keep a new secret')).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: `Delete ${name}` })).toHaveCount(0);
  const denied = await viewer.request.delete(`/api/v1/passvault/${(await kept.json()).id}`);
  expect(denied.status()).toBe(403);
  await viewerContext.close();
});
