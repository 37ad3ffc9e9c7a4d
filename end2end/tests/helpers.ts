import { execFileSync } from 'node:child_process';
import { test as base, expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';

export { expect };

/** The suite's user (an owner of tenant `default`) and their password, from scripts/test.sh. */
export const suiteUser = process.env.AGENT_OS_TEST_USER ?? '';
export const suitePassword = process.env.AGENT_OS_TEST_PASSWORD ?? '';

/** Runs `agent-os ARGS --data-dir DIR` (default: the suite server's store) with the suite's password. */
export function agentOs(args: string[], dataDir = process.env.AGENT_OS_DATA_DIR): void {
  const bin = process.env.AGENT_OS_BIN;
  if (!bin || !dataDir) {
    throw new Error('AGENT_OS_BIN and AGENT_OS_DATA_DIR are not set: run the suite with `make test`');
  }
  execFileSync(bin, [...args, '--data-dir', dataDir], {
    env: { ...process.env, AGENT_OS_PASSWORD: suitePassword, RUST_LOG: 'error' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

/**
 * Makes a user with `role` in `tenant` on the store in `dataDir` (default: the suite
 * server's), with the suite's password, as an operator would with `agent-os user add`.
 * A user that exists already is given the role with `agent-os user grant`.
 */
export function addUser(name: string, tenant: string, role: 'owner' | 'operator' | 'viewer', dataDir = process.env.AGENT_OS_DATA_DIR): void {
  try {
    agentOs(['user', 'add', name, '--tenant', tenant, '--role', role], dataDir);
  } catch (error) {
    if (!String((error as { stderr?: Buffer }).stderr ?? '').includes('exists already')) throw error;
    agentOs(['user', 'grant', name, '--tenant', tenant, '--role', role], dataDir);
  }
}

/**
 * Every test starts signed in as the suite's user, in a session of its own: a test that
 * switches tenant or signs out changes no other test's session.
 */
export const test = base.extend({
  storageState: async ({ playwright, baseURL }, use) => {
    const context = await playwright.request.newContext({ baseURL });
    const response = await context.post('/api/v1/auth/login', {
      data: { username: suiteUser, password: suitePassword },
    });
    if (!response.ok()) {
      throw new Error(`signing in as ${suiteUser} failed: ${response.status()} ${await response.text()}`);
    }
    const state = await context.storageState();
    await context.dispose();
    await use(state);
  },
});

/** Signs `page`'s browser in as `name` on the server at `baseURL` (its session cookie). */
export async function signIn(page: Page, baseURL: string, name = suiteUser): Promise<void> {
  const response = await page.request.post(`${baseURL}/api/v1/auth/login`, {
    data: { username: name, password: suitePassword },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** Opens a path and waits until the browser bundle has hydrated the server-rendered page. */
export async function openHydrated(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
}

/** Starts a thread from "New thread" with `words` sent from the composer with Enter. */
export async function startScenario(page: Page, words: string, agent?: string): Promise<void> {
  await openHydrated(page, '/new');
  if (agent) {
    await page.getByRole('combobox', { name: 'Agent' }).selectOption(agent);
  }
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(words);
  await composer.press('Enter');
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  // The router shows the start page until the thread's page has loaded.
  await expect(page.getByRole('log', { name: 'Run timeline' })).toBeVisible();
}

/** Opens a thread made through the API with no message yet (the console's "New thread"
 *  makes one only with its first message). */
export async function openEmptyThread(page: Page): Promise<string> {
  const response = await page.request.post('/api/v1/threads', { data: {} });
  expect(response.status(), await response.text()).toBe(201);
  const { thread } = await response.json();
  await openHydrated(page, `/threads/${thread.id}`);
  return thread.id;
}

/** The lane that holds every ask still waiting for an answer. */
export function askLane(page: Page) {
  return page.getByRole('region', { name: 'Pending asks' });
}

/** The run timeline. */
export function timeline(page: Page) {
  return page.getByRole('log', { name: 'Run timeline' });
}

/** Picks a choice from an approval card's "More choices" menu. */
export async function chooseMore(card: Locator, choice: string): Promise<void> {
  await card.getByText('More choices').click();
  await card.getByRole('button', { name: choice }).click();
}

/** The context pane with its folded "Agent and run" details opened. */
export async function withRunDetails(page: Page): Promise<Locator> {
  const context = page.getByRole('complementary', { name: 'Context' });
  const details = context.locator('details.run-details');
  await expect(details).toHaveCount(1);
  if (!(await details.evaluate((element) => (element as HTMLDetailsElement).open))) {
    await details.locator('summary').click();
  }
  return context;
}

/** A user owning (or operating in) a tenant of their own, so its inbox holds only what a test made. */
export function freshTenant(role: 'owner' | 'operator' = 'owner'): { user: string; tenant: string } {
  const stamp = `${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const user = `ines-${stamp}`;
  const tenant = `inbox-${stamp}`;
  addUser(user, tenant, role);
  return { user, tenant };
}

/** Starts the demo scenario `words` in a new thread of the signed-in tenant; its run id. */
export async function startRun(request: APIRequestContext, words: string): Promise<string> {
  const created = await request.post('/api/v1/threads', { data: {} });
  expect(created.status()).toBe(201);
  const { thread } = await created.json();
  const started = await request.post(`/api/v1/threads/${thread.id}/messages`, { data: { text: words } });
  expect(started.status()).toBe(202);
  return (await started.json()).run.id;
}
