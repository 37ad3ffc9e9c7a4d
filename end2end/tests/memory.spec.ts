import { addUser, expect, openEmptyThread, openHydrated, signIn, test } from './helpers';

// Memory in the browser: entries added, edited and removed with the scope's usage shown;
// a user's own memory apart from the tenant's; a proposal from an agent accepted from
// the review queue; a viewer reads only. The stores' side is server/tests/memory.rs.

const unique = () => Math.random().toString(36).slice(2, 8);

test('an entry is remembered, edited and forgotten, and my own memory is apart from the tenant\'s', async ({ page }) => {
  const fact = `Deploys happen on Fridays ${unique()}`;
  await openHydrated(page, '/memory');
  await page.getByLabel('Remember').fill(fact);
  await page.getByRole('button', { name: 'Remember this' }).click();
  const entries = page.getByRole('list', { name: 'Memory entries' });
  const row = entries.getByRole('listitem').filter({ hasText: fact });
  await expect(row).toBeVisible();
  await expect(page.locator('.memory-usage')).toContainText('of 2200 characters');

  // Searched within the scope, in any case.
  await page.getByRole('searchbox', { name: 'Search memory' }).fill(fact.toUpperCase());
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page).toHaveURL(/scope=tenant/);
  await expect(entries.locator(':scope > li')).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Search memory' }).fill('');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await row.getByRole('button', { name: 'Edit' }).click();
  await row.getByLabel('Entry text').fill(`${fact}, after lunch`);
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(entries).toContainText(`${fact}, after lunch`);

  // Mine: a separate scope with Hermes' user limit.
  await page.getByRole('link', { name: 'Mine' }).click();
  await expect(page).toHaveURL(/scope=user/);
  await expect(page.locator('.memory-usage')).toContainText('of 1375 characters');
  await expect(page.getByRole('list', { name: 'Memory entries' })).not.toContainText(fact);

  await page.getByRole('link', { name: "The tenant's" }).click();
  await entries.getByRole('button', { name: `Remove “${fact.slice(0, 40)}` }).click();
  await expect(entries).not.toContainText(fact);

  // Too much for the scope: refused, worded, nothing lost.
  await page.getByLabel('Remember').fill('x'.repeat(2300));
  await page.getByRole('button', { name: 'Remember this' }).click();
  await expect(page.getByRole('alert')).toContainText('characters; replace or remove entries first');
});

test('what an agent proposes waits in the review queue until accepted', async ({ page }) => {
  const fact = `The CI runs on two cores ${unique()}`;
  // An agent outside the console proposes through the API, relayed with the operator's
  // credentials; it is queued like one made through the console's own tool.
  const proposed = await page.request.post('/api/v1/memory/proposals', {
    data: { scope: 'tenant', operations: [{ action: 'add', content: fact }], proposed_by: 'agent demo' },
  });
  expect(proposed.status(), await proposed.text()).toBe(201);
  await openHydrated(page, '/memory');
  const queue = page.getByRole('list', { name: 'Proposals waiting for review' });
  const proposal = queue.locator(':scope > li').filter({ hasText: fact });
  await expect(proposal).toContainText('agent demo (via ada');
  await proposal.getByRole('button', { name: 'Accept' }).click();
  await expect(page.getByRole('list', { name: 'Memory entries' })).toContainText(fact);
  await expect(page.getByRole('list', { name: 'Memory entries' }).getByRole('listitem').filter({ hasText: fact })).toContainText('approved by');
});

test('a viewer reads memory and is offered nothing to change', async ({ page, baseURL, browser }) => {
  const fact = `Readable fact ${unique()}`;
  const added = await page.request.post('/api/v1/memory', { data: { scope: 'tenant', operations: [{ action: 'add', content: fact }] } });
  expect(added.status()).toBe(200);
  addUser('mira', 'default', 'viewer');
  const viewerContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await viewerContext.newPage();
  await signIn(viewer, baseURL!, 'mira');
  await openHydrated(viewer, '/memory');
  await expect(viewer.getByRole('list', { name: 'Memory entries' })).toContainText(fact);
  await expect(viewer.getByText('you can read memory, but not change or review it')).toBeVisible();
  await expect(viewer.getByRole('button', { name: 'Remember this' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  const refused = await viewer.request.post('/api/v1/memory', { data: { scope: 'tenant', operations: [{ action: 'add', content: 'defaced' }] } });
  expect(refused.status()).toBe(403);
  await viewerContext.close();
});

test('a memory entry pinned in the context pane is given to the next run', async ({ page }) => {
  const fact = `Answer in French ${unique()}`;
  const added = await page.request.post('/api/v1/memory', { data: { scope: 'tenant', operations: [{ action: 'add', content: fact }] } });
  expect(added.status()).toBe(200);
  await openEmptyThread(page);
  await page.getByLabel('Memory to pin', { exact: true }).selectOption({ label: fact });
  await page.getByRole('button', { name: 'Pin the memory entry', exact: true }).click();
  const pinned = page.getByRole('list', { name: 'Memory pinned to this thread' });
  await expect(pinned).toContainText(fact);

  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('hello');
  await composer.press('Enter');
  const given = page.getByRole('list', { name: 'Memory given to the latest run' });
  await expect(given).toContainText(fact);
  await expect(given).toContainText('pinned to the thread');
  await page.reload();
  await expect(page.getByRole('list', { name: 'Memory given to the latest run' })).toContainText(fact);
  // The section hydrates once its data is read back, a moment after the page: until then
  // the server-rendered button does nothing, so the click is repeated until it takes
  // (unpinning twice leaves the same pins).
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await expect(async () => {
    await page.getByRole('button', { name: `Unpin “${fact}”` }).click({ timeout: 1000 });
    await expect(page.getByText('No memory pinned to this thread.')).toBeVisible({ timeout: 1000 });
  }).toPass();
});
