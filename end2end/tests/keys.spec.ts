import { expect, freshTenant, openHydrated, signIn, startRun, test } from './helpers';

// The sidebar says where the operator is needed, and the workspace answers to its keys.

test('a thread waiting for an answer is marked in the sidebar and counted in the tab title until answered', async ({ page, baseURL }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  await openHydrated(page, '/');
  await expect(page).toHaveTitle('Inbox · Agent OS');

  const run = await startRun(page.request, 'busy');
  const threads = page.getByRole('list', { name: 'Threads', exact: true });
  const row = threads.getByRole('link', { name: 'busy', exact: true });
  await expect(row).toBeVisible();
  await expect(row.locator('.thread-dot')).toHaveAttribute('data-state', 'waiting');
  await expect(row).toHaveAttribute('aria-description', 'Waiting for an answer');
  await expect(row.locator('.thread-age')).toHaveText('now');
  await expect(threads.locator('.day-divider').first()).toHaveText('Today');
  await expect(page).toHaveTitle('(1) Inbox · Agent OS');
  await test.info().attach('sidebar with a thread waiting', { body: await page.screenshot(), contentType: 'image/png' });

  await page.getByRole('list', { name: 'Waiting asks' }).locator(`li.inbox-item[data-key="${run}:busy-third"]`)
    .getByRole('button', { name: 'Approve once' }).click();
  await expect(page).toHaveTitle('Inbox · Agent OS');
  await expect(row.locator('.thread-dot')).not.toHaveAttribute('data-state', 'waiting');

  // The server's page carries no dot, so both renderings agree; the browser adds it.
  const html = await (await page.request.get('/')).text();
  expect(html).not.toContain('data-state="waiting"');
  expect(errors).toEqual([]);
});

test('Ctrl+K opens the palette, typing narrows it and Enter jumps to the thread', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  const word = `wombat${Math.random().toString(36).slice(2, 7)}`;
  const created = await page.request.post('/api/v1/threads', { data: {} });
  const { thread } = await created.json();
  await page.request.post('/fn/rename_thread', { form: { thread_id: thread.id, title: `Plan the ${word} survey` } });
  await openHydrated(page, '/');
  // The palette is a lazy part of the bundle: nothing of it is drawn until it is opened.
  await expect(page.locator('dialog')).toHaveCount(0);

  await page.keyboard.press('Control+K');
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette).toBeVisible();
  const field = palette.getByRole('combobox', { name: 'Jump to a thread or an action' });
  await expect(field).toBeFocused();
  await expect(palette.getByRole('option', { name: /New thread/ })).toBeVisible();
  await field.fill(`${word.toUpperCase()} plan`);
  const options = palette.getByRole('option');
  await expect(options).toHaveCount(1);
  await test.info().attach('command palette', { body: await page.screenshot(), contentType: 'image/png' });
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await field.press('Enter');
  await expect(palette).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/threads/${thread.id}$`));
  await expect(page.getByRole('heading', { level: 1, name: `Plan the ${word} survey` })).toBeVisible();

  // Arrows move through the actions; Esc closes and gives focus back.
  await page.getByRole('button', { name: /Jump to/ }).click();
  await expect(palette).toBeVisible();
  await field.fill('memory');
  await field.press('ArrowDown');
  await field.press('Enter');
  await expect(page).toHaveURL(/\/memory$/);
  await page.keyboard.press('Control+K');
  await expect(palette).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
});

test('/ searches the threads, ? lists the keys and N starts a thread, but not while typing', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  await openHydrated(page, '/');

  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Search threads' })).toBeFocused();
  await page.keyboard.type('n');
  await expect(page.getByRole('searchbox', { name: 'Search threads' })).toHaveValue('n');
  await expect(page).toHaveURL(/\/$/);
  await page.getByRole('searchbox', { name: 'Search threads' }).fill('');
  await page.locator('body').click({ position: { x: 600, y: 5 } });

  await page.keyboard.press('?');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toBeVisible();
  await expect(sheet).toContainText('Open the command palette');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();

  await page.keyboard.press('n');
  await expect(page).toHaveURL(/\/new$/);
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.click();
  const here = page.url();
  await page.keyboard.type('no new thread');
  await expect(composer).toHaveValue('no new thread');
  expect(page.url()).toBe(here);
});

test('the open thread is scrolled into view in a long list, and sections that do nothing yet are not listed', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  let first = '';
  for (let n = 0; n < 40; n += 1) {
    const { thread } = await (await page.request.post('/api/v1/threads', { data: {} })).json();
    first ||= thread.id;
  }
  await page.setViewportSize({ width: 1440, height: 700 });
  await openHydrated(page, `/threads/${first}`);
  const current = page.getByRole('list', { name: 'Threads', exact: true }).locator('a[aria-current="page"]');
  await expect(current).toBeInViewport();
  const sections = page.getByRole('list', { name: 'Sections' });
  await expect(sections.getByRole('link')).toHaveText(['Projects', 'Notes', 'Memory', 'Passvault', 'Schedules', 'Curator jobs']);
});

test('on a touch screen the keys are not hinted at', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ hasTouch: true, isMobile: true, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signIn(page, baseURL!);
  await openHydrated(page, '/');
  await page.getByRole('button', { name: 'Menu' }).click();
  await expect(page.getByRole('button', { name: /Jump to/ })).toBeVisible();
  await expect(page.locator('.palette-button .key-hint')).toBeHidden();
  await context.close();
});
