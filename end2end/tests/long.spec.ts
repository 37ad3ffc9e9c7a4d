import { type Locator } from '@playwright/test';
import { askLane, expect, openHydrated, startScenario, test, timeline } from './helpers';

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

/** How far the timeline's view is from its bottom, in pixels. */
function distanceFromBottom(log: Locator): Promise<number> {
  return log.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
}

test('a long thread opens at its latest item: after a bulk load, from the sidebar, and after sending', async ({ page }) => {
  test.setTimeout(120_000);
  await startScenario(page, 'long 2000');
  const log = timeline(page);
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1, { timeout: 60_000 });
  await expect(log.locator('.item').last()).toContainText('task 1999');
  await expect.poll(() => distanceFromBottom(log)).toBeLessThan(30);
  await expect(log.locator('.item').last()).toBeInViewport();

  // Away to a new thread and back from the sidebar, without a reload.
  const path = new URL(page.url()).pathname;
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/new$/);
  await page.locator(`a[href="${path}"]`).click();
  await expect(page).toHaveURL(path);
  await expect(log.locator('.item').last()).toContainText('task 1999');
  await expect(log.locator('.item').last()).toBeInViewport();
  await expect.poll(() => distanceFromBottom(log)).toBeLessThan(30);

  // Sending shows what comes back, at the bottom.
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('chunks');
  await composer.press('Enter');
  await expect(log.getByText('emoji included', { exact: false })).toBeInViewport();
  await expect.poll(() => distanceFromBottom(log)).toBeLessThan(30);
});

test('scrolled away, new items show "Jump to latest" with their count, which brings the view back', async ({ page }) => {
  test.setTimeout(120_000);
  await startScenario(page, 'long 400');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1, { timeout: 60_000 });
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('approve');
  await composer.press('Enter');
  const lane = askLane(page);
  await expect(lane.getByRole('dialog', { name: 'Confirm the date?' })).toBeVisible();
  const jump = page.getByRole('button', { name: /^Jump to latest/ });
  await expect(jump).toHaveCount(0);

  const log = timeline(page);
  await log.evaluate((element) => { element.scrollTop = 0; });
  await expect(jump).toHaveText(/Jump to latest$/);
  await lane.getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await lane.getByRole('dialog', { name: 'Confirm the date?' }).getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(jump).toHaveText(/Jump to latest \(\d+ new\)$/);
  // The reader's place is kept while they are away.
  expect(await log.evaluate((element) => element.scrollTop)).toBeLessThan(100);

  await jump.click();
  await expect(jump).toHaveCount(0);
  await expect(log.getByText('Declined: confirm-date. Nothing booked.')).toBeInViewport();
  await expect.poll(() => distanceFromBottom(log)).toBeLessThan(30);
});
