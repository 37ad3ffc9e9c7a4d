import { askLane, expect, startScenario, test } from './helpers';

// The frame never moves: on a desktop window the document is exactly the window, so no
// wheel, Space or PageDown anywhere can scroll the shell away; only panes scroll.

test('the frame holds on a long thread: wheel, Space and PageDown move panes, never the shell', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await startScenario(page, 'approve');
  const lane = askLane(page);
  // Answered asks leave receipts (with their visually hidden times) in the timeline.
  await lane.getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await lane.getByRole('dialog', { name: 'Confirm the date?' }).getByRole('button', { name: 'Approve once' }).click();
  await expect(lane.getByRole('dialog')).toHaveCount(0);
  for (const words of ['hello', 'plan', 'table']) {
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill(words);
    await composer.press('Enter');
    await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 20_000 });
  }

  const documentFits = () =>
    page.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight + 1);
  expect(await documentFits()).toBe(true);

  const header = page.locator('.thread-head').first();
  await header.hover();
  await page.mouse.wheel(0, 1200);
  await page.locator('main.main').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('PageDown');
  await page.keyboard.press('Space');
  await page.keyboard.press('End');
  const shellTop = await page.locator('.shell').evaluate((shell) => shell.getBoundingClientRect().top);
  expect(shellTop).toBe(0);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
});
