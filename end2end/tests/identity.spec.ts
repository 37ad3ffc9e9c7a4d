import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type APIRequestContext, type Playwright } from '@playwright/test';
import { addUser, agentOs, askLane, expect, openHydrated, signIn, suitePassword, suiteUser, test, timeline } from './helpers';
import { freePort, OwnServer } from './own-server';

// Who may use the console: first-run setup, signing in and out, sessions, and what each
// role sees. The route-by-route table of who gets which status is server/tests/access.rs.

test.use({ storageState: { cookies: [], origins: [] } });

/** An API client signed in as `name` (by default the suite's owner). */
async function signedInRequest(playwright: Playwright, baseURL: string, name = suiteUser): Promise<APIRequestContext> {
  const context = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const response = await context.post('/api/v1/auth/login', { data: { username: name, password: suitePassword } });
  expect(response.status(), await response.text()).toBe(200);
  return context;
}

/** Starts the demo's two-approval scenario in tenant `default` and returns its thread and ask key. */
async function pendingApproval(owner: APIRequestContext): Promise<{ thread: string; key: string }> {
  const thread = (await (await owner.post('/api/v1/threads', { data: {} })).json()).thread.id;
  const run = (await (await owner.post(`/api/v1/threads/${thread}/messages`, { data: { text: 'approve' } })).json()).run.id;
  const key = `${run}:approve-budget`;
  await expect.poll(async () => (await (await owner.get(`/api/v1/asks/${key}`)).json()).ask?.ask?.state?.state).toBe('pending');
  return { thread, key };
}

test('first run: the link serve printed makes the first owner and their tenant, signs them in, and works once', async ({ page }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-os-setup-'));
  const own = new OwnServer(await freePort(), dataDir);
  try {
    await own.start();
    await expect.poll(() => own.stderr).toContain('/setup?token=');
    const link = own.stderr.match(/http:\/\/\S+\/setup\?token=[0-9a-f]+/)![0];
    expect(link.startsWith(own.url)).toBe(true);

    // Nobody is signed in, so the console sends the browser to sign in.
    await page.goto(`${own.url}/`);
    await expect(page).toHaveURL(/\/login\?next=%2F$/);

    await page.goto(link);
    await page.getByLabel('Your user name').fill('root');
    await page.getByLabel('Password (8 characters or more)').fill('a long enough password');
    await page.getByLabel('Tenant').fill('acme');
    await page.getByRole('button', { name: 'Create owner and sign in' }).click();
    await expect(page).toHaveURL(`${own.url}/`);
    await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
    await expect(page.locator('.signed-in-as')).toContainText('Signed in as root · owner');
    await expect(page.getByRole('combobox', { name: 'Tenant' }).locator('option:checked')).toHaveText('acme · owner');

    // The link is spent.
    await page.goto(link);
    await page.getByLabel('Your user name').fill('mallory');
    await page.getByLabel('Password (8 characters or more)').fill('another long password');
    await page.getByRole('button', { name: 'Create owner and sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('This setup link was used already');
  } finally {
    await own.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('signing in: a page sends me to sign in and back, a wrong password says so, a reload keeps me in, signing out ends it', async ({ page }) => {
  const name = `lee-${Date.now()}`;
  addUser(name, 'default', 'operator');
  await page.goto('/notes?from=test');
  await expect(page).toHaveURL(/\/login\?next=%2Fnotes%3Ffrom%3Dtest$/);

  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('The user name or password is wrong.');

  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill(suitePassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/notes\?from=test$/);
  await expect(page.locator('.signed-in-as')).toContainText(`Signed in as ${name} · operator`);
  const cookie = (await page.context().cookies()).find((each) => each.name === 'agent_os_session');
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe('Lax');

  await openHydrated(page, '/notes');
  await expect(page.locator('.signed-in-as')).toContainText(`Signed in as ${name}`);

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/notes');
  await expect(page).toHaveURL(/\/login\?next=%2Fnotes$/);
  expect((await page.request.get('/api/v1/me')).status()).toBe(401);
});

test('signing out everywhere ends my sessions in every browser', async ({ page, baseURL, browser }) => {
  const name = `sam-${Date.now()}`;
  addUser(name, 'default', 'operator');
  await signIn(page, baseURL!, name);
  const other = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const second = await other.newPage();
  await signIn(second, baseURL!, name);
  await openHydrated(second, '/notes');
  await openHydrated(page, '/');
  await page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await second.goto('/notes');
  await expect(second).toHaveURL(/\/login\?next=%2Fnotes$/);
  await other.close();
});

test('a session that ends (the password was changed) sends an open page, and the next page, to sign in', async ({ page, baseURL }) => {
  const name = `pat-${Date.now()}`;
  addUser(name, 'default', 'operator');
  await signIn(page, baseURL!, name);
  await openHydrated(page, '/notes');
  await expect(page.locator('.signed-in-as')).toContainText(`Signed in as ${name}`);
  agentOs(['user', 'passwd', name]);
  // The open page finds out when its tab comes back into view.
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange', { bubbles: true })));
  await expect(page).toHaveURL(/\/login\?next=%2Fnotes$/);
  await page.goto('/');
  await expect(page).toHaveURL(/\/login\?next=%2F$/);
});

test('a viewer sees a pending ask read-only, is told why, and the server refuses their answer', async ({ page, baseURL, playwright }) => {
  const owner = await signedInRequest(playwright, baseURL!);
  const { thread, key } = await pendingApproval(owner);
  const viewer = `vic-${Date.now()}`;
  addUser(viewer, 'default', 'viewer');
  await signIn(page, baseURL!, viewer);
  await openHydrated(page, `/threads/${thread}`);

  const card = askLane(page).getByRole('dialog', { name: 'Approve the budget?' });
  await expect(card).toBeVisible();
  await expect(card.getByRole('button', { name: 'Approve once' })).toBeDisabled();
  // One calm notice on the page, not one per control; each control they cannot use is
  // disabled and says why on hover.
  await expect(page.getByRole('note').filter({ hasText: 'You are a viewer in this tenant' })).toHaveCount(1);
  const rename = page.getByRole('button', { name: 'Rename' });
  await expect(rename).toBeDisabled();
  await expect(rename).toHaveAttribute('title', /You are a viewer in this tenant/);
  await expect(askLane(page).locator('.ask-card fieldset').first()).toHaveAttribute('title', /You are a viewer in this tenant/);
  // Not called to answer anything: the sidebar's inbox counts no ask for a viewer.
  await expect(page.getByRole('link', { name: /^Inbox/ })).toHaveAccessibleName('Inbox');
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'New thread' })).toBeDisabled();

  const refused = await page.request.post(`/api/v1/asks/${key}/receipt`, {
    data: { channel: 'tool-result', receipt: { toolCallId: 'approve-budget', component: 'approval_card', action: 'once', data: {}, ts: '2026-12-04T12:00:00Z' } },
  });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.kind).toBe('forbidden');
  expect((await (await owner.get(`/api/v1/asks/${key}`)).json()).ask.ask.state.state).toBe('pending');
  await owner.dispose();
});

test('an operator answers an ask, and the receipt names them', async ({ page, baseURL, playwright }) => {
  const owner = await signedInRequest(playwright, baseURL!);
  const { thread, key } = await pendingApproval(owner);
  const operator = `otto-${Date.now()}`;
  addUser(operator, 'default', 'operator');
  await signIn(page, baseURL!, operator);
  await openHydrated(page, `/threads/${thread}`);
  await askLane(page).getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await expect(timeline(page).getByRole('status', { name: 'Approved once' })).toContainText(`· ${operator}`);
  const answered = (await (await owner.get(`/api/v1/asks/${key}`)).json()).ask;
  expect(answered.answered_by).toBe(operator);
  await expect(page.getByRole('link', { name: 'Audit' })).toHaveCount(0);
  await owner.dispose();

  // The tenant's owner finds the answer in the audit trail, by whom and to which ask.
  await signIn(page, baseURL!, suiteUser);
  await openHydrated(page, '/');
  await page.getByRole('link', { name: 'Audit' }).click();
  const row = page.getByRole('table', { name: 'Audit trail' }).getByRole('row').filter({ hasText: key.split(':')[0] });
  await expect(row).toContainText(operator);
  await expect(row).toContainText('ask.answer');
});

test('an owner adds a member, changes their role, cannot drop the last owner, and issues and revokes a token', async ({ page, baseURL, playwright }) => {
  const stamp = Date.now();
  const owner = `olga-${stamp}`;
  const newcomer = `nina-${stamp}`;
  addUser(owner, `crew-${stamp}`, 'owner');
  await signIn(page, baseURL!, owner);
  await openHydrated(page, '/');
  await page.getByRole('link', { name: 'Members' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeVisible();

  await page.getByLabel('User name').fill(newcomer);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByLabel(/^First password/).fill('a first password');
  await page.getByRole('button', { name: 'Add member' }).click();
  const members = page.getByRole('table', { name: 'Members' });
  await expect(members.getByRole('row').filter({ hasText: newcomer })).toBeVisible();
  await members.getByRole('combobox', { name: `Role of ${newcomer}` }).selectOption('operator');
  await expect.poll(async () => (await (await page.request.post('/fn/members', { form: {} })).json())
    .find((member: { user: string }) => member.user === newcomer)?.role).toBe('operator');

  // The only owner cannot leave the tenant ownerless.
  await members.getByRole('button', { name: `Remove ${owner}` }).click();
  await expect(page.getByRole('alert')).toContainText('needs an owner');

  // A token is shown once, works, and stops when revoked.
  await page.getByRole('button', { name: 'Create a token for me' }).click();
  const token = await page.getByRole('textbox', { name: 'New token' }).inputValue();
  expect(token).toMatch(/^aos_[0-9a-f]{16}_[0-9a-f]{64}$/);
  const client = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const me = await client.get('/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
  expect((await me.json()).tenant).toBe(`crew-${stamp}`);
  const id = token.split('_')[1];
  await page.getByRole('button', { name: `Revoke ${id}` }).click();
  await expect(page.getByRole('table', { name: 'API tokens' }).getByRole('row').filter({ hasText: id })).toContainText('revoked');
  expect((await client.get('/api/v1/me', { headers: { authorization: `Bearer ${token}` } })).status()).toBe(401);
  await client.dispose();
});

test('an owner invites an existing user, who joins only by accepting, from the tenant menu', async ({ page, baseURL, browser }) => {
  const stamp = Date.now();
  const owner = `oona-${stamp}`;
  const guest = `gus-${stamp}`;
  const tenant = `guild-${stamp}`;
  addUser(owner, tenant, 'owner');
  addUser(guest, 'default', 'operator');
  await signIn(page, baseURL!, owner);
  await openHydrated(page, '/members');
  for (const user of [guest, `nobody-${stamp}`]) {
    await page.getByLabel('User name').fill(user);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Add member' }).click();
    await expect(page.getByRole('status')).toContainText('Invited');
    await expect(page.getByRole('table', { name: 'Invitations' }).getByRole('row').filter({ hasText: user })).toBeVisible();
  }
  // Invited is not a member yet; a name nobody has is invited just the same.
  await expect(page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: guest })).toHaveCount(0);
  await page.getByRole('button', { name: `Withdraw the invitation of nobody-${stamp}` }).click();
  await expect(page.getByRole('table', { name: 'Invitations' }).getByRole('row').filter({ hasText: `nobody-${stamp}` })).toHaveCount(0);

  const other = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const second = await other.newPage();
  await signIn(second, baseURL!, guest);
  await openHydrated(second, '/');
  const invitation = second.getByRole('form', { name: `Invitation into ${tenant}` });
  await expect(invitation).toContainText(`${owner} invites you into ${tenant} as viewer`);
  await expect(second.getByLabel('Tenant', { exact: true })).not.toContainText(tenant);
  await invitation.getByRole('button', { name: 'Accept' }).click();
  // Accepted: a member, moved there, the invitation gone.
  await expect(second.getByLabel('Tenant', { exact: true })).toHaveValue(tenant);
  await expect(second.getByRole('form', { name: `Invitation into ${tenant}` })).toHaveCount(0);
  const me = await (await second.request.get('/api/v1/me')).json();
  expect([me.tenant, me.role]).toEqual([tenant, 'viewer']);
  await other.close();

  await page.reload();
  await expect(page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: guest })).toContainText('viewer');
  await expect(page.getByRole('table', { name: 'Invitations' }).getByRole('row').filter({ hasText: guest })).toHaveCount(0);
  // The tenant that invited keeps the answer in its trail.
  await openHydrated(page, '/audit');
  await expect(page.getByRole('row').filter({ hasText: 'invitation.accept' })).toContainText(`user=${guest}`);
});
