import { askLane, expect, startScenario, test } from './helpers';

// A panic in the browser bundle is a defect: racing pages must not reach one.

test('answering an ask and pressing New thread at once leaves the bundle alive', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text().slice(0, 500));
  });
  for (let round = 0; round < 3; round++) {
    await startScenario(page, 'approve');
    const card = askLane(page).getByRole('dialog', { name: 'Approve the budget?' });
    await expect(card).toBeVisible();
    const approve = card.getByRole('button', { name: 'Approve once' });
    const newThread = page.getByRole('button', { name: 'New thread' });
    await Promise.all([approve.click(), newThread.click()]);
    await expect(page).toHaveURL(/\/new$/);
    await page.waitForTimeout(1_000);
  }
  // The bundle still answers.
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('hello');
  await composer.press('Enter');
  await expect(page.getByRole('log', { name: 'Run timeline' }).getByText('hello').first()).toBeVisible();
  expect(errors.filter((error) => !error.includes('Failed to load resource'))).toEqual([]);
});
