import { addUser, expect, openEmptyThread, openHydrated, signIn, test } from './helpers';

// Notes in the browser: written, rendered safely, found, edited with a preview, an
// earlier version restored, deleted; a stale edit refused with the typed text kept; a
// viewer reads but cannot write. The store's side (both databases) is server/tests/notes.rs.

const unique = () => Math.random().toString(36).slice(2, 8);

test('a note is written, found by a word in another form, edited, an old version restored, and deleted', async ({ page }) => {
  const title = `Runbook ${unique()}`;
  await openHydrated(page, '/notes');
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Tags (commas or spaces between)').fill('ops, deploy');
  await page.getByLabel('Text (Markdown)').fill('# Steps\n\nWe **deploy** with `make ship`.\n\n- build\n- release to staging');
  await page.getByRole('button', { name: 'Save note' }).click();
  await expect(page).toHaveURL(/\/notes\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  const body = page.getByRole('article', { name: 'Note text' });
  await expect(body.locator('strong')).toHaveText('deploy');
  await expect(body.locator('code')).toHaveText('make ship');
  await expect(body.getByRole('listitem')).toHaveCount(2);
  await expect(page.locator('.note-meta').first()).toContainText('Version 1');

  // Edit with a preview.
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Text (Markdown)').fill('Rewritten: *everything* changed.');
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByLabel('Preview').locator('em')).toHaveText('everything');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.note-meta').first()).toContainText('Version 2');
  await expect(body).toContainText('Rewritten: everything changed.');

  // The first version, viewed from the history and restored.
  await page.getByRole('button', { name: /^v1/ }).click();
  await expect(page.getByRole('region', { name: 'Version 1' })).toContainText('release to staging');
  await page.getByRole('button', { name: 'Restore this version' }).click();
  await expect(page.locator('.note-meta').first()).toContainText('Version 3');
  await expect(body.locator('code')).toHaveText('make ship');
  await expect(page.getByRole('list', { name: 'Versions, newest first' }).getByRole('listitem')).toHaveCount(3);
  const url = page.url();

  // Found by another form of a word in its text, and by its tag.
  await openHydrated(page, '/notes');
  await page.getByRole('searchbox', { name: 'Search notes' }).fill('deploying staging');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/\/notes\?q=deploying(\+|%20)staging$/);
  const found = page.getByRole('list', { name: 'Notes' }).getByRole('listitem').filter({ hasText: title });
  await expect(found).toBeVisible();
  await expect(found.locator('.note-snippet')).toContainText('deploy');
  await found.getByRole('link', { name: 'ops' }).click();
  await expect(page).toHaveURL(/\?tag=ops$/);
  await expect(page.getByRole('list', { name: 'Notes' })).toContainText(title);

  // Deleted: gone from the list and its page.
  await openHydrated(page, url);
  await page.getByRole('button', { name: 'Delete…' }).click();
  await page.getByRole('button', { name: 'Delete the note' }).click();
  await expect(page).toHaveURL(/\/notes$/);
  await openHydrated(page, `/notes?q=${encodeURIComponent(title)}`);
  await expect(page.getByRole('status')).toHaveText('No note matches.');
  const gone = await page.request.get(url);
  expect(gone.status()).toBe(404);
});

test('hostile markdown in a note renders as inert text: no script, handler, frame or script link', async ({ page }) => {
  const corpus = [
    '<script>window.__pwned = "script"</script>',
    '<img src=x onerror="window.__pwned = \'img\'">',
    '<svg onload="window.__pwned = \'svg\'"><script>window.__pwned = "svg script"</script></svg>',
    '<style>body { display: none }</style><div style="background:url(javascript:window.__pwned=1)">styled</div>',
    '[js link](javascript:window.__pwned="link")',
    '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '![image](javascript:window.__pwned="image")',
    '<a href="javascript:window.__pwned=\'raw a\'">raw link</a>',
    '<iframe src="https://evil.example"></iframe>',
    '<object data="https://evil.example/x.swf"></object>',
    '[fine](https://example.org/docs)',
  ].join('\n\n');
  const created = await page.request.post('/api/v1/notes', { data: { title: `Hostile ${unique()}`, body: corpus } });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = await created.json();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await openHydrated(page, `/notes/${id}`);
  const body = page.getByRole('article', { name: 'Note text' });
  await expect(body).toContainText('<script>window.__pwned = "script"</script>');
  for (const link of await body.locator('a').all()) {
    const href = (await link.getAttribute('href')) ?? '';
    expect(href, 'every link is http(s) or mailto').toMatch(/^(https?:|mailto:)/);
    await expect(link).toHaveAttribute('rel', /noopener/);
    await expect(link).toHaveAttribute('rel', /noreferrer/);
  }
  await expect(body.locator('script, iframe, object, embed, svg, style, img, [style]')).toHaveCount(0);
  const handlers = await body.evaluate((root) =>
    [...root.querySelectorAll('*')].flatMap((element) => [...element.attributes].map((attribute) => attribute.name)).filter((name) => name.startsWith('on')),
  );
  expect(handlers).toEqual([]);
  // Clicking what looks like a link runs nothing either.
  await body.getByText('js link').click();
  await body.getByText('raw link').click();
  await page.waitForTimeout(200);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
});

test('an edit saved on a stale copy is refused and the typed text kept', async ({ page, context }) => {
  const created = await page.request.post('/api/v1/notes', { data: { title: `Shared ${unique()}`, body: 'original' } });
  const { id } = await created.json();
  await openHydrated(page, `/notes/${id}`);
  await page.getByRole('button', { name: 'Edit' }).click();
  // Someone else saves first.
  const other = await context.newPage();
  await openHydrated(other, `/notes/${id}`);
  await other.getByRole('button', { name: 'Edit' }).click();
  await other.getByLabel('Text (Markdown)').fill('theirs');
  await other.getByRole('button', { name: 'Save' }).click();
  await expect(other.locator('.note-meta').first()).toContainText('Version 2');

  await page.getByLabel('Text (Markdown)').fill('mine, typed with care');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert')).toContainText('edited meanwhile: it is at version 2');
  await expect(page.getByLabel('Text (Markdown)')).toHaveValue('mine, typed with care');
});

test('a viewer reads and searches notes but is offered no way to write them', async ({ page, baseURL, browser }) => {
  const title = `For viewers ${unique()}`;
  const created = await page.request.post('/api/v1/notes', { data: { title, body: 'Readable **text**.' } });
  const { id } = await created.json();
  addUser('nora', 'default', 'viewer');
  const viewerContext = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const viewer = await viewerContext.newPage();
  await signIn(viewer, baseURL!, 'nora');
  await openHydrated(viewer, `/notes?q=${encodeURIComponent(title)}`);
  await expect(viewer.getByRole('list', { name: 'Notes' })).toContainText(title);
  await expect(viewer.getByRole('button', { name: 'Save note' })).toHaveCount(0);
  await expect(viewer.getByText('you can read and search notes, but not write them')).toBeVisible();
  await openHydrated(viewer, `/notes/${id}`);
  await expect(viewer.getByRole('article', { name: 'Note text' }).locator('strong')).toHaveText('text');
  await expect(viewer.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(viewer.getByRole('button', { name: 'Delete…' })).toHaveCount(0);
  const refused = await viewer.request.patch(`/api/v1/notes/${id}`, { data: { title: 'defaced' } });
  expect(refused.status()).toBe(403);
  await viewerContext.close();
});

test('a note pinned in the context pane is given to the next run, shown with its version', async ({ page }) => {
  const title = `Pinned ${unique()}`;
  const created = await page.request.post('/api/v1/notes', { data: { title, body: 'Always answer briefly.' } });
  expect(created.status()).toBe(201);
  await openEmptyThread(page);
  await page.getByRole('searchbox', { name: 'Find a note to pin' }).fill(title);
  await page.getByLabel('Note to pin', { exact: true }).selectOption({ label: title });
  await page.getByRole('button', { name: 'Pin the note', exact: true }).click();
  const pinned = page.getByRole('list', { name: 'Notes pinned to this thread' });
  await expect(pinned).toContainText(title);
  await expect(pinned).toContainText('v1');
  // The composer says what each message is given.
  const chips = page.getByRole('list', { name: 'Given with each message:' });
  await expect(chips).toContainText(`${title} v1`);

  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('hello');
  await composer.press('Enter');
  const given = page.getByRole('list', { name: 'Given to the latest run' });
  await expect(given).toContainText(title);
  await expect(given).toContainText('v1');
  await expect(given).toContainText('pinned to the thread');

  // Still there after a reload: it is part of the run's record.
  await page.reload();
  await expect(page.getByRole('list', { name: 'Given to the latest run' })).toContainText(title);
  // Unpinned from its chip by the composer: the pane follows.
  await page.getByRole('list', { name: 'Given with each message:' }).getByRole('button', { name: `Unpin ${title}` }).click();
  await expect(page.getByText('No notes pinned to this thread.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Given with each message:' })).toHaveCount(0);
});

test('rendered markdown headings read down in size: # is largest, then ##, ###, ####', async ({ page }) => {
  await openHydrated(page, '/notes');
  await page.getByLabel('Title').fill(`Headings ${unique()}`);
  await page.getByLabel('Text (Markdown)').fill('# One\n\n## Two\n\n### Three\n\n#### Four\n\nBody text.');
  await page.getByRole('button', { name: 'Save note' }).click();
  const body = page.getByRole('article', { name: 'Note text' });
  await expect(body.getByRole('heading', { name: 'Four' })).toBeVisible();
  const sizes = await body.locator('h1, h2, h3, h4, p').evaluateAll((elements) =>
    elements.map((element) => parseFloat(getComputedStyle(element).fontSize)));
  expect(sizes).toHaveLength(5);
  for (let n = 1; n < sizes.length; n += 1) expect(sizes[n - 1]).toBeGreaterThan(sizes[n]);
  // A rendered heading is prose, not one of the console's small uppercase labels.
  expect(await body.locator('h2').evaluate((element) => getComputedStyle(element).textTransform)).toBe('none');
});
