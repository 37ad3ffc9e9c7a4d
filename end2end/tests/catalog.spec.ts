import { test, expect, addUser, askLane, openHydrated, signIn, startScenario, timeline } from './helpers';

// The component gallery: every catalog component, valid and invalid, light and dark,
// screenshotted per component; keyboard use of the interactive ones.

const COMPONENTS = [
  'plan', 'progress_tracker', 'approval_card', 'option_list', 'question_flow',
  'preferences_panel', 'parameter_slider', 'terminal', 'code_block', 'code_diff',
  'data_table', 'chart', 'stats_display', 'image', 'image_gallery', 'audio', 'video',
  'link_preview', 'citation', 'citation_list',
];

test('the gallery renders every component from a valid payload and explains every invalid one', async ({ page }, testInfo) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openHydrated(page, '/gallery');
    for (const component of COMPONENTS) {
      const entry = page.locator(`section.gallery-entry[data-component="${component}"]`);
      await expect(entry, component).toHaveCount(1);
      const valid = entry.locator('[data-example="valid"]');
      // A valid payload draws its component, never the schema complaint.
      await expect(valid.locator('[data-invalid]'), component).toHaveCount(0);
      await expect(valid.locator('[data-tool-ui-id]').first(), component).toBeVisible();
      const invalid = entry.locator('[data-example="invalid"] [data-invalid="true"]');
      await expect(invalid, component).toBeVisible();
      await expect(invalid.locator('.invalid-field'), component).not.toBeEmpty();
      await expect(invalid.locator('pre.json'), component).toContainText('"id"');
      await testInfo.attach(`${component}-${scheme}.png`, { body: await entry.screenshot(), contentType: 'image/png' });
    }
  }
  expect(errors).toEqual([]);
});

test('invalid payloads name the field and the reason', async ({ page }) => {
  await openHydrated(page, '/gallery');
  const reason = (component: string) =>
    page.locator(`section.gallery-entry[data-component="${component}"] [data-example="invalid"] .invalid-field`);
  await expect(reason('plan')).toContainText('todos[0].status');
  await expect(reason('image')).toContainText('src');
  await expect(reason('chart')).toContainText('series');
  await expect(reason('parameter_slider')).toContainText('sliders[0]');
});

test('option list, question flow and approval card work from the keyboard alone', async ({ page }) => {
  await openHydrated(page, '/gallery');
  const log = page.getByRole('list', { name: 'Actions' });

  const options = page.locator('[data-component="option_list"] [data-example="valid"]');
  await options.getByRole('option', { name: /Europe/ }).focus();
  await page.keyboard.press('ArrowDown');
  await expect(options.getByRole('option', { name: /US East/ })).toBeFocused();
  // The disabled option is skipped and the list wraps to the top.
  await page.keyboard.press('ArrowDown');
  await expect(options.getByRole('option', { name: /Europe/ })).toBeFocused();
  await page.keyboard.press('End');
  await expect(options.getByRole('option', { name: /US East/ })).toBeFocused();
  await page.keyboard.press('Space');
  await expect(options.getByRole('option', { name: /US East/ })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(log).toContainText('confirm: "us"');
  await expect(options.locator('[data-receipt="true"]')).toHaveAttribute('aria-label', 'Confirmed selection');

  const flow = page.locator('[data-component="question_flow"] [data-example="valid"]');
  await flow.getByRole('option', { name: 'Rust' }).focus();
  await page.keyboard.press('Enter');
  await flow.getByRole('button', { name: 'Next' }).focus();
  await page.keyboard.press('Enter');
  await expect(flow.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '2');
  await flow.getByRole('option', { name: 'Lint' }).focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Space');
  await flow.getByRole('button', { name: 'Done' }).focus();
  await page.keyboard.press('Enter');
  await expect(log).toContainText('complete: {"ci":["lint","test"],"lang":["rust"]}');

  const approval = page.locator('[data-component="approval_card"] [data-example="valid"]');
  await approval.getByRole('button', { name: 'Back up' }).focus();
  await page.keyboard.press('Escape');
  await expect(approval.getByRole('status', { name: 'Denied' })).toBeVisible();
  await expect(log).toContainText('cancel: "denied"');
});

test('sliders, preferences, tables and diffs answer the keyboard', async ({ page }) => {
  await openHydrated(page, '/gallery');
  const log = page.getByRole('list', { name: 'Actions' });

  const sliders = page.locator('[data-component="parameter_slider"] [data-example="valid"]');
  await sliders.getByLabel('Temperature').focus();
  await page.keyboard.press('ArrowRight');
  await expect(sliders.getByLabel('Temperature')).toHaveAttribute('aria-valuetext', '0.8');
  await sliders.getByRole('button', { name: 'Apply' }).focus();
  await page.keyboard.press('Enter');
  await expect(log).toContainText('apply: {"values":[{"id":"temperature","value":0.8}');

  const prefs = page.locator('[data-component="preferences_panel"] [data-example="valid"]');
  await prefs.getByRole('switch', { name: 'Email' }).focus();
  await page.keyboard.press('Space');
  await prefs.getByRole('button', { name: 'Save changes' }).focus();
  await page.keyboard.press('Enter');
  await expect(log).toContainText('"email":false');
  await expect(prefs.locator('[data-receipt="true"]')).toHaveAttribute('aria-label', 'Confirmed preferences');

  const table = page.locator('[data-component="data_table"] [data-example="valid"]');
  const cpu = table.getByRole('columnheader', { name: /CPU/ });
  await expect(cpu).toHaveAttribute('aria-sort', 'descending');
  const rows = table.locator('tbody tr');
  await expect(rows.first()).toContainText('web-2');
  await expect(rows.first().locator('td').nth(1)).toHaveClass(/num/);
  await expect(rows.first().locator('td').nth(1)).toHaveText('87%');
  await table.getByRole('button', { name: /Sort by Host/ }).focus();
  await page.keyboard.press('Enter');
  await expect(table.getByRole('columnheader', { name: /Host/ })).toHaveAttribute('aria-sort', 'ascending');
  await expect(rows.first()).toContainText('db-1');

  const diff = page.locator('[data-component="code_diff"] [data-example="valid"]');
  await diff.getByRole('button', { name: 'Split' }).focus();
  await page.keyboard.press('Enter');
  await expect(diff.locator('table.diff.split')).toBeVisible();
  await diff.getByRole('button', { name: 'Accept hunk' }).first().focus();
  await page.keyboard.press('Enter');
  await diff.getByRole('button', { name: 'Reject hunk' }).nth(1).focus();
  await page.keyboard.press('Enter');
  await diff.getByRole('button', { name: 'Apply chosen hunks' }).focus();
  await page.keyboard.press('Enter');
  await expect(log).toContainText('apply: {"hunks":[true,false]}');
});

test('the gallery lightbox moves with the arrow keys and closes with Escape', async ({ page }) => {
  await openHydrated(page, '/gallery');
  await page.route('https://images.example.org/**', (route) =>
    route.fulfill({ status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' }));
  const gallery = page.locator('[data-component="image_gallery"] [data-example="valid"]');
  await gallery.getByRole('button', { name: /Load images from images.example.org/ }).first().click();
  const thumbnail = gallery.getByRole('button', { name: /Sign-in page/ });
  await thumbnail.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Image viewer' });
  await expect(dialog).toContainText('1 of 3');
  await page.keyboard.press('ArrowRight');
  await expect(dialog).toContainText('2 of 3');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(thumbnail).toBeFocused();
});

test('a host allowed always loads in every browser of that operator until it is forgotten', async ({ browser, baseURL }) => {
  // A user of their own: the list is kept with the account. A viewer may keep one.
  const user = `media${Math.random().toString(36).slice(2, 8)}`;
  addUser(user, 'default', 'viewer');
  const svg = { status: 200, contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' };
  const imagesOf = (page: import('@playwright/test').Page) =>
    page.locator('[data-component="image_gallery"] [data-example="valid"]');
  const gateOf = (page: import('@playwright/test').Page) =>
    imagesOf(page).locator('.media-gate[data-host="images.example.org"]');

  const first = await browser.newContext({ baseURL });
  const here = await first.newPage();
  await here.route('https://images.example.org/**', (route) => route.fulfill(svg));
  await signIn(here, baseURL!, user);
  await openHydrated(here, '/gallery');
  await expect(gateOf(here).first()).toBeVisible();
  const kept = here.waitForResponse((response) => response.url().includes('/fn/set_media_hosts'));
  await gateOf(here).first().getByRole('button', { name: 'Always' }).click();
  expect((await kept).status()).toBe(200);
  await expect(gateOf(here)).toHaveCount(0);
  await expect(imagesOf(here).locator('img').first()).toBeVisible();

  // Another browser of the same operator loads them without asking, and lists the host.
  const second = await browser.newContext({ baseURL });
  const elsewhere = await second.newPage();
  await elsewhere.route('https://images.example.org/**', (route) => route.fulfill(svg));
  await signIn(elsewhere, baseURL!, user);
  await openHydrated(elsewhere, '/gallery');
  await expect(imagesOf(elsewhere).locator('img').first()).toBeVisible();
  await expect(gateOf(elsewhere)).toHaveCount(0);
  await elsewhere.getByText('Media allowed from 1 site').click();
  await elsewhere.getByRole('list', { name: 'Sites media loads from' }).getByRole('button', { name: 'Forget images.example.org' }).click();
  await expect(gateOf(elsewhere).first()).toBeVisible();
  await expect(elsewhere.getByText('Media allowed from 1 site')).toHaveCount(0);

  // Forgotten for the account: the first browser asks again once it reloads.
  await here.reload();
  await expect(here.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await expect(gateOf(here).first()).toBeVisible();
  await first.close();
  await second.close();
});

test('a list an older console kept in the browser moves to the account, and stays in the browser until it has', async ({ browser, baseURL }) => {
  const user = `moved${Math.random().toString(36).slice(2, 8)}`;
  addUser(user, 'default', 'viewer');
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await signIn(page, baseURL!, user);
  await openHydrated(page, '/');
  const oldKey = 'agent-os.media-hosts';
  const keptInBrowser = () => page.evaluate((key) => localStorage.getItem(key), oldKey);
  const reloadWith = async (list: string[]) => {
    await page.evaluate(([key, value]) => localStorage.setItem(key, value), [oldKey, list.join('\n')]);
    const saved = page.waitForResponse((response) => response.url().includes('/fn/set_media_hosts'));
    await page.reload();
    return (await saved).status();
  };

  // More hosts than an account keeps: the server refuses, the browser keeps its list.
  const tooMany = Array.from({ length: 201 }, (_, n) => `h${n}.example.org`);
  expect(await reloadWith(tooMany)).not.toBe(200);
  await expect(page.locator('.media-hosts [role="alert"]')).toHaveText(/^Not kept: .*at most 200 hosts/);
  expect(await keptInBrowser()).toBe(tooMany.join('\n'));

  // A list the account can hold moves there, and only then leaves the browser.
  expect(await reloadWith(['images.example.org', 'cdn.example.net'])).toBe(200);
  await expect(page.getByText('Media allowed from 2 sites')).toBeVisible();
  await expect.poll(keptInBrowser).toBeNull();
  await context.close();
});

test('a reply streams as Markdown and each delta re-renders only the block it changed', async ({ page }) => {
  // Count every block element the message loses while it streams, and mark the first
  // block as soon as it appears: a settled block is never replaced by a later delta.
  // Installed in every document the test opens, before the app runs.
  await page.addInitScript(() => {
    const w = window as unknown as { __removedBlocks: number; __firstBlock?: Element; __firstReplaced: boolean };
    w.__removedBlocks = 0;
    w.__firstReplaced = false;
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of Array.from(record.removedNodes)) {
          if (node instanceof Element && node.classList.contains('md-block')) {
            w.__removedBlocks += 1;
            if (node === w.__firstBlock) w.__firstReplaced = true;
          }
        }
        for (const node of Array.from(record.addedNodes)) {
          if (!(node instanceof Element) || w.__firstBlock) continue;
          const blocks = [node, ...Array.from(node.querySelectorAll('.md-block'))];
          const first = blocks.find((el) => el.classList.contains('md-block') && el.textContent?.includes('Release notes'));
          if (first) w.__firstBlock = first;
        }
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await startScenario(page, 'markdown');
  const message = timeline(page).locator('article.message').filter({ hasText: 'Release notes' });
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const text = message.locator('.message-text');
  await expect(text.getByRole('heading', { name: 'Release notes' })).toBeVisible();
  await expect(text.locator('strong')).toHaveText('faster');
  await expect(text.getByRole('link', { name: 'the changelog' })).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(text.locator('input[type="checkbox"][disabled]')).toHaveCount(2);
  await expect(text.locator('th.align-right')).toHaveText('Time');
  await expect(text.locator('.code-block')).toContainText('println!');
  await expect(text.locator('.code-block .tok-keyword').first()).toHaveText('fn');
  await expect(text.locator('blockquote')).toContainText('Quoted from the design card.');
  await expect(text.locator('.footnote-ref a')).toHaveAttribute('href', /#fn-.*-1$/);
  const stats = await page.evaluate(() => {
    const w = window as unknown as { __removedBlocks: number; __firstBlock?: Element; __firstReplaced: boolean };
    return { removed: w.__removedBlocks, firstSeen: !!w.__firstBlock, firstReplaced: w.__firstReplaced };
  });
  // The heading block settled early and no later delta replaced it.
  expect(stats.firstSeen).toBe(true);
  expect(stats.firstReplaced).toBe(false);
  // At most one block replaced per delta (the reply arrives in 76 deltas), where
  // re-rendering the whole message would replace every block on every delta.
  expect(stats.removed).toBeGreaterThan(0);
  expect(stats.removed).toBeLessThanOrEqual(76);
});

test('an agent calls an option list as a tool, and the operator\'s choice goes back once as its result', async ({ page }) => {
  await startScenario(page, 'frontend choose');
  const card = askLane(page).getByRole('form', { name: 'The agent asks the console to run option_list' });
  await card.getByRole('option', { name: 'US East' }).click();
  await card.getByRole('button', { name: 'Confirm' }).click();
  await expect(timeline(page).getByText('The console ran it: {"action":"confirm","data":"us"}')).toBeVisible();
  await expect(askLane(page).getByRole('form')).toHaveCount(0);
  const answers: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/fn/answer_ask')) answers.push(request.url());
  });
  await openHydrated(page, page.url());
  await expect(timeline(page).locator('[data-receipt][data-state="resolved"]')).toContainText('option_list');
  await page.waitForTimeout(500);
  expect(answers).toHaveLength(0);
});
