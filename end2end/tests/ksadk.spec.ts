import { askLane, chooseMore, expect, startScenario, test, timeline, withRunDetails } from './helpers';

// The demo KsADK runtime answers with the bytes KsADK 0.8.5 sent when it was recorded,
// given to the console as a new user would: its origin, without /v1. Its approval
// interrupt is one ask, answered once with its own resume form; a rejection carries the
// operator's reason back to its model.

test('a KsADK approval is one ask that survives a reload and is answered once in its session', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await startScenario(page, `delete the old report (${Date.now()})`, 'demo-ksadk');
  const log = timeline(page);
  await expect(log.getByText('I will delete the file.')).toBeVisible();
  await expect(log.getByText(/The endpoint answers under \/v1: runs go to/)).toBeVisible();
  const card = askLane(page).getByRole('dialog', { name: /^Delete file “.*”\?$/ });
  await expect(card).toBeVisible();
  await expect(card).toContainText('/tmp/ksadk-accept/victim.txt');

  const environment = (await withRunDetails(page)).getByRole('region', { name: 'Environment' });
  await expect(environment).toContainText('lists no AG-UI');
  await expect(environment.locator('code')).toHaveText(/\/demo\/ksadk\/v1$/);

  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  const again = askLane(page).getByRole('dialog', { name: /^Delete file “.*”\?$/ });
  await again.getByRole('button', { name: 'Approve once' }).click();
  await expect(log.getByText(/Done\. delete_file said: pretend-deleted/)).toBeVisible();
  await expect(askLane(page).getByRole('dialog')).toHaveCount(0);
  await expect(log.locator('[data-receipt][data-outcome="approved"]')).toBeVisible();

  // Answered once: a reload shows the answer, once, and offers nothing to answer.
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  await expect(log.getByText(/Done\. delete_file said: pretend-deleted/)).toHaveCount(1);
  await expect(askLane(page).getByRole('dialog')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a KsADK rejection carries the reason the operator gave', async ({ page }) => {
  await startScenario(page, `delete the old report (${Date.now()})`, 'demo-ksadk');
  const card = askLane(page).getByRole('dialog', { name: /^Delete file “.*”\?$/ });
  await chooseMore(card, 'Deny with a reason…');
  const reason = card.getByRole('textbox', { name: 'Why not? The agent receives this.' });
  await reason.fill('keep it until Friday');
  await card.getByRole('button', { name: 'Send denial' }).click();
  // (The model's answer is markdown: the tool's name is code.)
  await expect(timeline(page).getByText(/with reason: keep it until Friday$/)).toBeVisible();
  await expect(timeline(page).locator('[data-receipt][data-outcome="denied"]')).toBeVisible();
});
