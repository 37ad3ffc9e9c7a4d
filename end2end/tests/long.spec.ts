import { expect, test } from '@playwright/test';
import { openHydrated, startScenario, timeline } from './helpers';

// A long run renders only the rows near the viewport; the rest are spacers.
test('a 10,000-item run keeps the DOM small and scrolling reaches any item', async ({ page }) => {
  test.setTimeout(120_000);
  await startScenario(page, 'long 10000');
  const log = timeline(page);
  await expect(log.locator('.item').last()).toContainText('task 9999', { timeout: 60_000 });
  const rendered = await log.locator('.item').count();
  expect(rendered).toBeGreaterThan(10);
  expect(rendered).toBeLessThan(200);

  // The server-rendered page of the finished run is windowed too.
  await openHydrated(page, new URL(page.url()).pathname);
  await expect(log.locator('.item').last()).toContainText('task 9999');
  expect(await log.locator('.item').count()).toBeLessThan(200);

  // Scrolling to the top brings the first items in; the live end leaves the DOM.
  await log.evaluate((element) => { element.scrollTop = 0; });
  await expect(log.getByText('Item 0:', { exact: false })).toBeVisible();
  await expect(log.getByText('Item 9998:', { exact: false })).toHaveCount(0);
  expect(await log.locator('.item').count()).toBeLessThan(200);

  // The middle, by scrolling to half the height.
  await log.evaluate((element) => { element.scrollTop = element.scrollHeight / 2; });
  await expect.poll(async () => {
    const texts = await log.locator('.item[data-channel="final"], .item[data-channel="commentary"]').allInnerTexts();
    const numbers = texts.map((t) => Number(/Item (\d+)/.exec(t)?.[1] ?? -1)).filter((n) => n >= 0);
    return numbers.some((n) => n > 3000 && n < 7000);
  }).toBe(true);
});
