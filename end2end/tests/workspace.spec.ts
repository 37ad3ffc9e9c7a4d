import { addUser, askLane, expect, openHydrated, startScenario, test, timeline } from './helpers';

// Projects, notes, memory, the passvault, schedules and the curator's jobs hold records
// (their own specs test them); the rest are honest empty states until they do.
const withRecords = ['/projects', '/notes', '/memory', '/passvault', '/schedules', '/curator'];
const sections = [
  ['Projects', '/projects'],
  ['Notes', '/notes'],
  ['Memory', '/memory'],
  ['Passvault', '/passvault'],
  ['Schedules', '/schedules'],
  ['Kanban', '/kanban'],
  ['Curator jobs', '/curator'],
] as const;

test('every workspace section is a route, and those without records yet say so', async ({ page, request }) => {
  for (const [title, path] of sections) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    // Server-rendered: the heading is in the HTML itself (a hydration marker may follow the text).
    const html = await response.text();
    expect(html).toMatch(new RegExp(`<h1[^>]*>${title}(<!>)?</h1>`));
    // The current link is marked once (an attribute given twice is invalid HTML).
    if (withRecords.includes(path)) {
      expect(html).toContain(`<a href="${path}" aria-current="page"`);
    }
    expect(html).not.toMatch(/aria-current="page"\s+aria-current=/);
  }
  await openHydrated(page, '/');
  const nav = page.getByRole('list', { name: 'Sections' });
  // Sections that cannot do anything yet keep their pages but stay out of the navigation.
  for (const [title, path] of sections.filter(([, path]) => !withRecords.includes(path))) {
    await expect(nav.getByRole('link', { name: title, exact: true })).toHaveCount(0);
    await openHydrated(page, path);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.getByRole('main').getByRole('status')).toContainText('yet');
  }
  for (const [title, path] of sections.filter(([, path]) => withRecords.includes(path))) {
    await nav.getByRole('link', { name: title, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(nav.getByRole('link', { name: title, exact: true })).toHaveAttribute('aria-current', 'page');
  }
});

test('a page whose code is slow to arrive shows a bar and says so until it opens', async ({ page }) => {
  await openHydrated(page, '/');
  // From here on every chunk of the bundle arrives late, as on a slow link.
  await page.route('**/pkg/*.wasm', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await route.continue();
  });
  const bar = page.locator('.route-progress');
  await expect(bar).not.toHaveAttribute('data-active', /.*/);
  await page.getByRole('list', { name: 'Sections' }).getByRole('link', { name: 'Memory', exact: true }).click();
  await expect(bar).toHaveAttribute('data-active', '');
  await expect(page.locator('.route-progress [aria-live="polite"]')).toHaveText('Opening the page…');
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  await expect(bar).not.toHaveAttribute('data-active', /.*/);
  await expect(page.getByText('Opening the page…')).toHaveCount(0);
});

test('the tenant switcher lists only my tenants, founds a new one and scopes threads to it', async ({ page, request }) => {
  const tenant = `team-${Date.now()}`;
  addUser(`eve-${Date.now()}`, `evil-${Date.now()}`, 'owner');
  await openHydrated(page, '/');
  const threads = page.getByRole('list', { name: 'Threads', exact: true }).getByRole('link');
  const switcher = page.getByRole('combobox', { name: 'Tenant' });
  await expect(switcher.locator('option', { hasText: 'evil-' })).toHaveCount(0);
  // Whatever the other tests left in tenant default, my session sees it.
  // (The list "Threads" holds those in no project and not archived.)
  const before = (await (await request.get('/api/v1/threads')).json()).threads
    .filter((thread: { project_name?: string; archived_at_ms?: number }) => !thread.project_name && !thread.archived_at_ms).length;
  await expect(threads).toHaveCount(before);

  // A taken name is refused, and says so.
  await switcher.selectOption({ label: 'New tenant…' });
  const name = page.getByRole('textbox', { name: 'New tenant name' });
  await name.fill('default');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('That tenant name is taken');

  await openHydrated(page, '/');
  await switcher.selectOption({ label: 'New tenant…' });
  await name.fill(tenant);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await expect(switcher).toHaveValue(tenant);
  await expect(switcher.locator('option:checked')).toHaveText(`${tenant} · owner`);
  await expect(page.getByText('No threads yet. Start one with New thread.')).toBeVisible();
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/new$/);
  await page.getByRole('textbox', { name: 'Message' }).fill('Plan the week');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Plan the week' })).toBeVisible();

  // The session moved: the API sees the new tenant's threads through the same cookie.
  const own = await (await page.request.get('/api/v1/threads')).json();
  expect(own.threads.map((thread: { title: string }) => thread.title)).toEqual(['Plan the week']);

  await switcher.selectOption('default');
  await expect(switcher).toHaveValue('default');
  await expect(threads).toHaveCount(before);
});

test('a tab left on one tenant reloads into the tenant another tab moved the session to', async ({ page, context }) => {
  test.setTimeout(60_000);
  const tenant = `moved-${Date.now()}`;
  await openHydrated(page, '/');
  await expect(page.getByRole('combobox', { name: 'Tenant' })).toHaveValue('default');
  const other = await context.newPage();
  await openHydrated(other, '/');
  const switcher = other.getByRole('combobox', { name: 'Tenant' });
  await switcher.selectOption({ label: 'New tenant…' });
  await other.getByRole('textbox', { name: 'New tenant name' }).fill(tenant);
  await other.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(switcher).toHaveValue(tenant);
  // The first tab's live stream ends at its next access check (every 10 s); told where
  // the session is now, the tab reloads there instead of showing that tenant's changes
  // as its own.
  await expect(page.getByRole('combobox', { name: 'Tenant' })).toHaveValue(tenant, { timeout: 30_000 });
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
});

test('panes collapse, resize from the keyboard, and remember both across a reload', async ({ page }) => {
  // A thread in no project, so the sidebar has its list "Threads" to hide and show.
  expect((await page.request.post('/api/v1/threads', { data: {} })).status()).toBe(201);
  await openHydrated(page, '/');
  const sidebar = page.getByRole('navigation', { name: 'Workspace' });
  const context = page.getByRole('complementary', { name: 'Context' });
  const before = (await sidebar.boundingBox())!.width;

  const edge = page.getByRole('separator', { name: 'Resize sidebar' });
  await edge.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowRight');
  await expect.poll(async () => (await sidebar.boundingBox())!.width).toBeCloseTo(before + 80, 0);
  await expect(edge).toHaveAttribute('aria-valuenow', String(Math.round(before + 80)));

  // And by dragging the context pane's edge with the pointer: left widens it.
  const contextEdge = page.getByRole('separator', { name: 'Resize context pane' });
  const contextBefore = (await context.boundingBox())!.width;
  const grip = (await contextEdge.boundingBox())!;
  await page.mouse.move(grip.x + grip.width / 2, grip.y + 200);
  await page.mouse.down();
  await page.mouse.move(grip.x + grip.width / 2 - 60, grip.y + 200, { steps: 6 });
  await page.mouse.up();
  await expect.poll(async () => (await context.boundingBox())!.width).toBeCloseTo(contextBefore + 60, 0);

  await page.getByRole('button', { name: 'Collapse context pane' }).click();
  await expect(page.getByRole('button', { name: 'Expand context pane' })).toHaveAttribute('aria-expanded', 'false');
  await expect(context.getByText('Open a thread to see its agent state')).toBeHidden();

  await openHydrated(page, '/');
  await expect(page.getByRole('button', { name: 'Expand context pane' })).toBeVisible();
  await expect.poll(async () => (await sidebar.boundingBox())!.width).toBeCloseTo(before + 80, 0);
  await page.getByRole('button', { name: 'Expand context pane' }).click();
  await expect(context.getByText('Open a thread to see its agent state')).toBeVisible();

  await page.getByRole('button', { name: 'Collapse sidebar' }).click();
  await expect(sidebar.getByRole('list', { name: 'Threads', exact: true })).toBeHidden();
  await page.getByRole('button', { name: 'Expand sidebar' }).click();
  await expect(sidebar.getByRole('list', { name: 'Threads', exact: true })).toBeVisible();
  await edge.focus();
  await page.keyboard.press('Home');
  await expect(edge).toHaveAttribute('aria-valuemin', await edge.getAttribute('aria-valuenow') ?? '');
});

test('the theme follows the system, and the toggle overrides it across a reload', async ({ browser }) => {
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await openHydrated(page, '/');
  const systemDark = await background();
  await page.getByRole('group', { name: 'Theme' }).getByRole('button', { name: 'Light' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  const light = await background();
  expect(light).not.toBe(systemDark);

  await openHydrated(page, '/');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.getByRole('group', { name: 'Theme' }).getByRole('button', { name: 'Light' })).toHaveAttribute('aria-pressed', 'true');
  expect(await background()).toBe(light);

  await page.getByRole('group', { name: 'Theme' }).getByRole('button', { name: 'System' }).click();
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
  expect(await background()).toBe(systemDark);
  await context.close();
});

test('reduced motion turns transitions off', async ({ browser }) => {
  const context = await browser.newContext({ reducedMotion: 'reduce' });
  const page = await context.newPage();
  await openHydrated(page, '/');
  const duration = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--duration').trim());
  expect(duration).toBe('0ms');
  await context.close();
});

test('a narrow screen reads as a single column, the context pane a sheet over it', async ({ page }) => {
  await page.setViewportSize({ width: 420, height: 900 });
  await openHydrated(page, '/');
  const main = (await page.getByRole('main').boundingBox())!;
  expect(main.x).toBe(0);
  expect(main.width).toBeGreaterThan(400);
  await expect(page.getByRole('complementary', { name: 'Context' })).toBeHidden();
  await expect(page.getByRole('separator', { name: 'Resize sidebar' })).toBeHidden();
});

test('on a phone the context pane is a sheet opened by "Context", and Open shows output over the whole screen', async ({ page }, testInfo) => {
  await startScenario(page, 'artifacts');
  await page.setViewportSize({ width: 390, height: 800 });
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const context = page.getByRole('complementary', { name: 'Context' });
  await expect(context).toBeHidden();
  const opener = page.getByRole('button', { name: 'Context', exact: true });
  await opener.click();
  await expect(context).toBeVisible();
  await expect(opener).toHaveAttribute('aria-expanded', 'true');
  // Slid up from the bottom edge, over the page, its Close focused.
  await expect.poll(async () => { const box = (await context.boundingBox())!; return Math.round(box.y + box.height); }).toBe(800);
  await expect(context.getByRole('button', { name: 'Close', exact: true })).toBeFocused();
  await expect(context.getByRole('heading', { name: 'Plan' })).toBeInViewport();
  await testInfo.attach('phone context sheet', { body: await page.screenshot(), contentType: 'image/png' });
  await page.keyboard.press('Escape');
  await expect(context).toBeHidden();
  await expect(opener).toBeFocused();

  // A preview is reachable: the canvas covers the screen, the composer no longer in the way.
  await timeline(page).getByRole('button', { name: 'Open Tasks in the canvas' }).click();
  const canvas = page.getByRole('complementary', { name: 'Tasks' });
  await expect(canvas.getByRole('table')).toBeInViewport();
  const box = (await canvas.boundingBox())!;
  expect([box.x, box.y, box.width, box.height]).toEqual([0, 0, 390, 800]);
  await testInfo.attach('phone canvas', { body: await page.screenshot(), contentType: 'image/png' });
  await canvas.getByRole('button', { name: 'Close the canvas' }).click();
  await expect(canvas).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeInViewport();
});

test('at 390 px the sidebar is a drawer, the composer stays pinned, and a diff reads unified', async ({ page }) => {
  await startScenario(page, 'long 300');
  await page.setViewportSize({ width: 390, height: 800 });
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const sidebar = page.getByRole('navigation', { name: 'Workspace' });
  await expect(sidebar).toBeHidden();
  const menu = page.getByRole('button', { name: 'Menu' });
  await menu.click();
  await expect(sidebar).toBeVisible();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  // Once slid in, it lies over the page's left edge.
  await expect.poll(async () => Math.round((await sidebar.boundingBox())!.x)).toBe(0);
  expect((await sidebar.boundingBox())!.width).toBeLessThanOrEqual(390);
  // Focus goes into the drawer, and Esc brings it back to the button.
  await expect(sidebar.locator(':focus')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(sidebar).toBeHidden();
  await expect(menu).toBeFocused();

  // The composer is in view with a long timeline above it, and stays there while it scrolls.
  const composer = page.getByRole('textbox', { name: 'Message' });
  await expect(composer).toBeInViewport();
  // Its Send button too, whole: the page does not reach below the screen.
  await expect(page.getByRole('button', { name: 'Send' })).toBeInViewport({ ratio: 1 });
  await timeline(page).evaluate((element) => { element.scrollTop = 0; });
  await expect(composer).toBeInViewport();

  // Following a link in the drawer closes it.
  await menu.click();
  await sidebar.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/new$/);
  await expect(sidebar).toBeHidden();

  await page.getByRole('textbox', { name: 'Message' }).fill('edit');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  const diff = askLane(page).locator('figure.code-diff');
  await expect(diff.locator('table.diff.unified')).toBeVisible();
  await expect(diff.locator('table.diff.split')).toBeHidden();
  await expect(diff.getByRole('group', { name: 'Diff layout' })).toBeHidden();
});

test('the workspace is usable from the keyboard alone, with a visible focus ring', async ({ page }) => {
  await openHydrated(page, '/');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  // Walk forward until "New thread" has focus, then use it with Enter.
  for (let step = 0; step < 20; step++) {
    await page.keyboard.press('Tab');
    if (await page.getByRole('button', { name: 'New thread' }).evaluate((button) => button === document.activeElement)) break;
  }
  const newThread = page.getByRole('button', { name: 'New thread' });
  await expect(newThread).toBeFocused();
  const outline = await newThread.evaluate((button) => getComputedStyle(button).outlineStyle);
  expect(outline).not.toBe('none');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/new$/);
  // Focus lands where the first message is typed.
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  await page.keyboard.type('chunks');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('log', { name: 'Run timeline' }).locator('article.message.final')).toBeVisible();
});
