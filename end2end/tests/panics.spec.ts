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

test('a thread opened while its agent is still thinking hydrates without a panic', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  // `approve later` thinks 1.5 s before it says anything: the page is drawn by the server
  // with the thinking indicator and taken over by the bundle while it still shows.
  await startScenario(page, 'approve later');
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await expect(askLane(page).getByRole('dialog', { name: 'Approve the budget?' })).toBeVisible();
  expect(errors).toEqual([]);
});
