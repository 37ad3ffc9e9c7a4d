import { test, expect, startScenario, timeline } from './helpers';

// What a compromised or confused agent might send (fixtures/catalog/hostile.json), through
// the demo AG-UI agent over a real socket, into every renderer: messages, tool results and
// every catalog surface. No script runs, nothing calls out, nothing crashes, the page
// stays responsive; remote media loads only after the operator's click.

test('a hostile agent cannot run script, call out or break the page', async ({ page }) => {
  // The corpus is heavy on purpose (a 200 KB word, thousands of nested quotes, a 10,001-row
  // table, a 3,000-item surface): streaming it and loading its page twice takes a while,
  // longer on a loaded two-core machine (over 30 s for the stream alone in one CI run).
  test.setTimeout(180_000);
  const dialogs: string[] = [];
  const errors: string[] = [];
  const outbound: string[] = [];
  page.on('dialog', async (dialog) => { dialogs.push(dialog.message()); await dialog.dismiss(); });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.route('https://evil.example/**', async (route) => {
    outbound.push(route.request().url());
    await route.fulfill({ status: 200, contentType: 'image/png', body: Buffer.alloc(0) });
  });
  await startScenario(page, 'hostile');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1, { timeout: 75_000 });
  const log = timeline(page);
  await expect(log.getByText('Hostile markdown')).toBeVisible();
  await expect(log.getByText('deep quote')).toBeVisible();

  // Open every surface in the canvas, one after another.
  const openers = log.getByRole('button', { name: /^Open / });
  const count = await openers.count();
  expect(count).toBeGreaterThan(20);
  for (let n = 0; n < count; n += 1) {
    await openers.nth(n).click();
  }
  await page.reload();
  await expect(log.getByText('Hostile markdown')).toBeVisible();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  for (let n = 0; n < count; n += 1) {
    await log.getByRole('button', { name: /^Open / }).nth(n).click();
  }

  const found = await page.evaluate(() => {
    const all = Array.from(document.querySelectorAll('main *, aside *'));
    const withHandler = all.filter((el) => Array.from(el.attributes).some((a) => a.name.toLowerCase().startsWith('on')));
    const badLinks = Array.from(document.querySelectorAll('a[href]'))
      .map((a) => a.getAttribute('href') ?? '')
      .filter((href) => !/^(https?:|mailto:|\/|#|\?)/i.test(href));
    const badSources = Array.from(document.querySelectorAll('img, video, audio, source, iframe, embed, object'))
      .map((el) => el.getAttribute('src') ?? el.getAttribute('data') ?? el.tagName)
      .filter((src) => !/^(https?:|data:image\/)/i.test(src));
    return {
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
      scripts: document.querySelectorAll('main script, aside script').length,
      frames: document.querySelectorAll('iframe, object, embed').length,
      styles: document.querySelectorAll('main style, aside style').length,
      svgScripts: document.querySelectorAll('svg script, foreignObject').length,
      withHandler: withHandler.map((el) => el.outerHTML.slice(0, 80)),
      badLinks,
      badSources,
      title: document.title,
    };
  });
  expect(found.pwned).toBeNull();
  expect(found.scripts).toBe(0);
  expect(found.frames).toBe(0);
  expect(found.styles).toBe(0);
  expect(found.svgScripts).toBe(0);
  expect(found.withHandler).toEqual([]);
  expect(found.badLinks).toEqual([]);
  expect(found.badSources).toEqual([]);
  expect(found.title).not.toContain('pwned');
  expect(dialogs).toEqual([]);
  expect(errors).toEqual([]);
  // Remote media waited for the operator: nothing reached evil.example.
  expect(outbound).toEqual([]);

  // Invalid surfaces show why, with their JSON; the 10,001-row table is cut for display only.
  await log.locator('article.output-card[data-kind="data_table"]').last().getByRole('button', { name: /^Open / }).click();
  const canvas = page.locator('#canvas');
  await expect(canvas.locator('[data-invalid="true"] .invalid-field')).toContainText('data');
  await expect(canvas.getByText(/whole payload is in the run's event log/)).toBeVisible();

  // Still responsive: the composer takes text at once.
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('still here');
  await expect(composer).toHaveValue('still here');

  // The operator's click loads the tracking image (and only then).
  await log.locator('article.output-card[data-kind="image"]').last().getByRole('button', { name: /^Open / }).click();
  await canvas.getByRole('button', { name: 'Load images from evil.example' }).click();
  await expect.poll(() => outbound.length).toBeGreaterThan(0);
  expect(outbound.every((url) => url.startsWith('https://evil.example/'))).toBe(true);
});
