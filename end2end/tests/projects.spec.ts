import { addUser, expect, openHydrated, signIn, test, timeline } from './helpers';

// Projects in the browser: created, a thread started in one talks to its default agent
// and is listed on it with its run, edited, archived (no new threads) and restored,
// deleted (the thread stays); a viewer reads but is offered nothing to change. The
// stores' side is server/tests/projects.rs.

const unique = () => Math.random().toString(36).slice(2, 8);

test('a project is created, gets a thread with its agent, is edited, archived, restored and deleted', async ({ page }) => {
  const name = `Launch ${unique()}`;
  await openHydrated(page, '/projects');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Description (Markdown)').fill('Ship **v2** by Friday.');
  await page.getByLabel('Default agent').selectOption('demo');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}$/);
  const projectUrl = page.url();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(name);
  await expect(page.locator('.note-body strong')).toHaveText('v2');
  await expect(page.locator('.note-meta').first()).toContainText('Default agent: demo');

  // Found by a word of its description, in any case; a search finding nothing says so.
  await openHydrated(page, '/projects');
  await page.getByRole('searchbox', { name: 'Search projects' }).fill('FRIDAY');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page).toHaveURL(/q=FRIDAY/);
  await expect(page.getByRole('list', { name: 'Projects' })).toContainText(name);
  await page.getByRole('searchbox', { name: 'Search projects' }).fill(`nothing-${unique()}`);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByRole('status')).toContainText('No project matches.');
  await page.goto(projectUrl);

  // A thread started here is in the project and talks to its agent.
  await page.getByRole('button', { name: 'New thread in this project' }).click();
  await expect(page).toHaveURL(/\/new\?project=/);
  await expect(page.getByText(`In the project ${name}`)).toBeVisible();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('hello');
  await composer.press('Enter');
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  const threadUrl = page.url();
  await expect(timeline(page)).toContainText('hello');
  await openHydrated(page, new URL(projectUrl).pathname);
  const threads = page.getByRole('list', { name: 'Threads in this project' });
  await expect(threads.getByRole('link')).toHaveCount(1);
  await expect(threads.getByRole('link')).toHaveAttribute('href', new URL(threadUrl).pathname);
  await expect(page.getByRole('list', { name: 'Latest runs in this project' })).toContainText('demo');

  // A note written in the project is listed on it.
  const noteTitle = `Checklist ${unique()}`;
  await openHydrated(page, '/notes');
  await page.getByLabel('Title').fill(noteTitle);
  await page.getByLabel('Project').selectOption({ label: name });
  await page.getByRole('button', { name: 'Save note' }).click();
  await expect(page).toHaveURL(/\/notes\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('link', { name: 'in its project' })).toHaveAttribute('href', new URL(projectUrl).pathname);
  await openHydrated(page, new URL(projectUrl).pathname);
  await expect(page.getByRole('list', { name: 'Notes in this project' })).toContainText(noteTitle);

  // Edited.
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Name', { exact: true }).fill(`${name} (renamed)`);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${name} (renamed)`);

  // Archived: no new threads, listed apart; restored.
  await page.getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('archived');
  await expect(page.getByRole('button', { name: 'New thread in this project' })).toHaveCount(0);
  await openHydrated(page, '/projects?archived=1');
  await expect(page.getByRole('list', { name: 'Projects' })).toContainText(`${name} (renamed)`);
  await openHydrated(page, '/projects');
  await expect(page.getByRole('main').getByText(`${name} (renamed)`)).toHaveCount(0);
  await openHydrated(page, new URL(projectUrl).pathname);
  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByRole('button', { name: 'New thread in this project' })).toBeVisible();

  // Deleted: the thread stays.
  await page.getByRole('button', { name: 'Delete…' }).click();
  await page.getByRole('button', { name: 'Delete the project' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  expect((await page.request.get(projectUrl)).status()).toBe(404);
  expect((await page.request.get(threadUrl)).status()).toBe(200);
});

test('a viewer opens projects but is offered nothing to change', async ({ page, baseURL, browser }) => {
  const name = `Viewed ${unique()}`;
  const created = await page.request.post('/api/v1/projects', { data: { name, description: 'Read *me*.' } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = await created.json();
  addUser('pia', 'default', 'viewer');
  const viewerContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await viewerContext.newPage();
  await signIn(viewer, baseURL!, 'pia');
  await openHydrated(viewer, '/projects');
  await expect(viewer.getByRole('list', { name: 'Projects' })).toContainText(name);
  await expect(viewer.getByRole('button', { name: 'Create project' })).toHaveCount(0);
  await openHydrated(viewer, `/projects/${id}`);
  await expect(viewer.locator('.note-body em')).toHaveText('me');
  await expect(viewer.getByText('you can open projects, but not create or change them')).toBeVisible();
  for (const button of ['Edit', 'Archive', 'Delete…', 'New thread in this project']) {
    await expect(viewer.getByRole('button', { name: button })).toHaveCount(0);
  }
  expect((await viewer.request.patch(`/api/v1/projects/${id}`, { data: { name: 'defaced' } })).status()).toBe(403);
  await viewerContext.close();
});
