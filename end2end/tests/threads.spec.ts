import { expect, openHydrated, startScenario, test, timeline } from './helpers';

test('the server-rendered shell already holds the sidebar, timeline, ask lane and context pane', async ({ request }) => {
  const created = await request.post('/api/v1/threads', { data: {} });
  expect(created.status()).toBe(201);
  const { thread } = await created.json();
  const response = await request.get(`/threads/${thread.id}`);
  expect(response.status()).toBe(200);
  const html = await response.text();
  expect(html).toContain('aria-label="Workspace"');
  expect(html).toContain('New thread');
  expect(html).toContain('aria-label="Run timeline"');
  expect(html).toContain('aria-label="Pending asks"');
  expect(html).toContain('aria-label="Context"');
  expect(html).toContain('aria-label="Message"');
  expect(html).toMatch(/\/pkg\/agent_os\.[0-9a-f]{16}\.js/);
});

test('a new thread appears without a page reload and survives one', async ({ page }) => {
  await openHydrated(page, '/');
  const threads = page.getByRole('list', { name: 'Threads', exact: true }).getByRole('link');
  const before = await threads.count();

  // A full navigation would wipe this marker; a hydrated update keeps it.
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/new$/);
  const title = `Survey ${Math.random().toString(36).slice(2, 8)}`;
  await page.getByRole('textbox', { name: 'Message' }).fill(title);
  await page.getByRole('button', { name: 'Send' }).click();

  await expect(threads).toHaveCount(before + 1);
  const created = page.getByRole('link', { name: title, exact: true });
  await expect(created).toBeVisible();
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  await expect(created).toHaveAttribute('aria-current', 'page');
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);

  await page.reload();
  await expect(page.getByRole('link', { name: title, exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBeUndefined();
});

test('an unknown thread id renders a clear not-found message with status 404', async ({ page }) => {
  const response = await page.goto('/threads/no-such-thread');
  expect(response?.status()).toBe(404);
  const alert = page.getByRole('alert');
  await expect(alert.getByRole('heading', { name: 'Thread not found' })).toBeVisible();
  await expect(alert).toContainText('\u201cno-such-thread\u201d');
  await alert.getByRole('link', { name: 'Back to the workspace' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('an unknown path renders the not-found page with status 404', async ({ page }) => {
  const response = await page.goto('/nowhere');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
});

test('the not-found page keeps the workspace sidebar and shows no internal error', async ({ page, request }) => {
  const created = await request.post('/api/v1/threads', { data: {} });
  const { thread } = await created.json();
  await page.goto('/nowhere/at/all');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Threads', exact: true }).getByRole('link', { name: thread.title })).toBeVisible();
  await expect(page.getByText('internal error')).toHaveCount(0);
  await expect(page.getByText('not provided')).toHaveCount(0);
});

test('a thread takes its title from its first message, in its header and the sidebar, without a reload', async ({ page }) => {
  await openHydrated(page, '/new');
  const words = `Draft the **offsite** agenda ${Math.random().toString(36).slice(2, 8)}`;
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(`${words}\nwith a second line`);
  await composer.press('Enter');
  const title = words.replace(/\*\*/g, '');
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Threads', exact: true }).getByRole('link', { name: title, exact: true })).toHaveAttribute('aria-current', 'page');
  // A later message leaves it be.
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await composer.fill('and the venue');
  await composer.press('Enter');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(2);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
});

test('the sidebar search finds a thread by a word said in it, and clearing it shows every thread', async ({ page }) => {
  const word = `quokka${Math.random().toString(36).slice(2, 8)}`;
  await openHydrated(page, '/new');
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('Summarise the week');
  await composer.press('Enter');
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await composer.fill(`and mention the ${word} sighting`);
  await composer.press('Enter');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(2);
  const here = page.url();

  await openHydrated(page, '/');
  const search = page.getByRole('searchbox', { name: 'Search threads' });
  await search.fill(word.slice(0, -2).toUpperCase());
  const found = page.getByRole('list', { name: 'Threads found' }).getByRole('link');
  await expect(found).toHaveCount(1);
  await expect(found).toHaveText('Summarise the week');
  await search.fill(`${word} nonexistentword`);
  await expect(page.getByText(`No thread matches “${word} nonexistentword”.`)).toBeVisible();
  await search.fill('');
  await expect(page.getByRole('list', { name: 'Threads', exact: true })).toBeVisible();
  await search.fill(word);
  await found.click();
  await expect(page).toHaveURL(here);
});

test('threads are grouped by project in the sidebar, and an archived thread is folded away until restored', async ({ page }) => {
  const name = `Launch ${Date.now()}`;
  const project = await page.request.post('/api/v1/projects', { data: { name } });
  expect(project.status()).toBe(201);
  const projectId = (await project.json()).project?.id ?? (await project.json()).id;
  const created = await page.request.post('/api/v1/threads', { data: { project_id: projectId } });
  const { thread } = await created.json();
  const renamed = await page.request.post('/fn/rename_thread', { form: { thread_id: thread.id, title: `Plan for ${name}` } });
  expect(renamed.status()).toBe(200);

  await openHydrated(page, '/');
  const sidebar = page.getByRole('navigation', { name: 'Workspace' });
  const group = sidebar.getByRole('list', { name: `Threads in ${name}` });
  await expect(group.getByRole('link', { name: `Plan for ${name}` })).toBeVisible();
  await expect(sidebar.getByRole('link', { name, exact: true })).toHaveAttribute('href', `/projects/${projectId}`);

  await group.getByRole('link', { name: `Plan for ${name}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Plan for ${name}` })).toBeVisible();
  // Clicked again only while it still says Archive (a click before hydration does nothing).
  const archive = page.getByRole('button', { name: 'Archive', exact: true });
  await expect(async () => {
    if (await archive.isVisible()) await archive.click({ timeout: 1000 });
    await expect(page.getByText('Archived', { exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass();
  await expect(group).toHaveCount(0);
  const archived = sidebar.getByRole('list', { name: 'Archived threads' });
  await sidebar.getByText(/^Archived \(\d+\)$/).click();
  await expect(archived.getByRole('link', { name: `Plan for ${name}` })).toBeVisible();

  await page.reload();
  await expect(page.getByText('Archived', { exact: true })).toBeVisible();
  const restore = page.getByRole('button', { name: 'Restore', exact: true });
  await expect(async () => {
    if (await restore.isVisible()) await restore.click({ timeout: 1000 });
    await expect(archive).toBeVisible({ timeout: 1000 });
  }).toPass();
  await expect(sidebar.getByRole('list', { name: `Threads in ${name}` }).getByRole('link', { name: `Plan for ${name}` })).toBeVisible();
});

test('a run started in another tab joins this one, which follows it and can stop it', async ({ page, context }) => {
  await startScenario(page, 'hello there');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const thread = page.url().split('/threads/')[1];
  // Another tab of the same session sends the next message.
  const other = await context.newPage();
  await openHydrated(other, `/threads/${thread}`);
  const composer = other.getByRole('textbox', { name: 'Message' });
  await composer.fill('slow');
  await composer.press('Enter');
  await expect(other.locator('.run-status[data-status="running"]')).toHaveCount(1);
  // This tab learns of it from the tenant's live inbox, follows it, and offers Stop.
  await expect(page.locator('.run-status')).toHaveCount(2);
  await expect(timeline(page).getByText('working on it, this will take a while')).toBeVisible();
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.locator('.run-status[data-status="cancelled"]')).toHaveCount(1);
  await expect(other.locator('.run-status[data-status="cancelled"]')).toHaveCount(1);
});
