import { askLane, chooseMore, expect, openHydrated, startScenario, test, timeline } from './helpers';

test('approve once and deny go back as receipts, and the resumed run reports both', async ({ page }) => {
  await startScenario(page, 'approve');
  const lane = askLane(page);
  const budget = lane.getByRole('dialog', { name: 'Approve the budget?' });
  await expect(budget.getByText('book --budget 1200')).toBeVisible();
  await budget.getByRole('button', { name: 'Approve once' }).click();
  await lane.getByRole('dialog', { name: 'Confirm the date?' }).getByRole('button', { name: 'Deny', exact: true }).click();

  await expect(lane.getByRole('dialog')).toHaveCount(0);
  const log = timeline(page);
  await expect(log.getByRole('status', { name: 'Approved once' })).toHaveText(/Approved once — book --budget 1200 · ada/);
  await expect(log.getByRole('status', { name: 'Denied' })).toHaveText(/Denied — book --date 2026-12-24/);
  await expect(log.getByText('Declined: confirm-date. Nothing booked.')).toBeVisible();
  // No receipt was sent as chat text: the only user message is the scenario word.
  await expect(log.locator('article.message.user')).toHaveCount(1);
});

test('approve for session is remembered by the agent for the next run in the thread', async ({ page }) => {
  await startScenario(page, 'approve');
  const lane = askLane(page);
  await chooseMore(lane.getByRole('dialog', { name: 'Approve the budget?' }), 'Approve for session');
  await chooseMore(lane.getByRole('dialog', { name: 'Confirm the date?' }), 'Approve for session');
  await expect(timeline(page).getByRole('status', { name: 'Approved for session' })).toHaveCount(2);
  await expect(timeline(page).getByText('Both approved. Booked.')).toBeVisible();
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);

  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('approve');
  await composer.press('Enter');
  await expect(timeline(page).getByText('Both approved earlier for this session. Booked.')).toBeVisible();
  await expect(lane.getByRole('dialog')).toHaveCount(0);
});

test('always approve is offered only where permanent approval is allowed and is recorded as such', async ({ page }) => {
  await startScenario(page, 'busy');
  const card = askLane(page).getByRole('dialog', { name: 'Add the third task too?' });
  await expect(card.getByRole('button', { name: 'Approve once' })).toBeVisible();
  await card.getByText('More choices').click();
  await expect(card.getByRole('button', { name: 'Always approve' })).toHaveCount(0);
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(timeline(page).getByRole('status', { name: 'Denied' })).toBeVisible();

  await startScenario(page, 'approve');
  const lane = askLane(page);
  await chooseMore(lane.getByRole('dialog', { name: 'Approve the budget?' }), 'Always approve');
  await chooseMore(lane.getByRole('dialog', { name: 'Confirm the date?' }), 'Always approve');
  await expect(timeline(page).getByRole('status', { name: 'Always approved' })).toHaveCount(2);
});

test('a clarify with choices is answered from the keyboard alone', async ({ page }) => {
  await startScenario(page, 'clarify');
  const card = askLane(page).getByRole('form', { name: 'Which color should I use?' });
  // The list is one tab stop (roving tabindex): Tab from the heading's card lands on it.
  await card.getByRole('option', { name: 'red' }).focus();
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press(' ');
  await expect(card.getByRole('option', { name: 'green' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press(' ');
  await expect(card.getByRole('option', { name: 'blue' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Tab');
  await expect(card.getByRole('button', { name: 'Answer' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(timeline(page).getByRole('status').filter({ hasText: 'blue' })).toBeVisible();
  await expect(askLane(page).getByRole('form')).toHaveCount(0);
});

test('a clarify without choices and a terminal read take free text', async ({ page }) => {
  await startScenario(page, 'clarify free');
  let card = askLane(page).getByRole('form', { name: 'What should the new task be called?' });
  await card.getByRole('textbox', { name: 'What should the new task be called?' }).fill('water the plants');
  await card.getByRole('button', { name: 'Answer' }).click();
  await expect(timeline(page).getByRole('status').filter({ hasText: 'water the plants' })).toBeVisible();

  await startScenario(page, 'terminal');
  card = askLane(page).getByRole('form', { name: 'What does your terminal show?' });
  await card.getByRole('textbox').fill('$ uptime\n 10:00 up 3 days');
  await card.getByRole('button', { name: 'Answer' }).click();
  await expect(timeline(page).getByRole('status').filter({ hasText: 'uptime' })).toBeVisible();
});

test('an edit preview switches between unified and split and can be rejected or accepted', async ({ page }) => {
  await startScenario(page, 'edit');
  let card = askLane(page).getByRole('dialog', { name: 'Apply this edit to src/lib.rs?' });
  // Focus lands on the answer, not on the layout switch.
  await expect(card.getByRole('button', { name: 'Accept' })).toBeFocused();
  const unified = card.locator('table.diff:not(.split)');
  const split = card.locator('table.diff.split');
  await expect(unified).toBeVisible();
  await expect(unified).toContainText('format!("Hello, {name}!")');
  await expect(split).toBeHidden();
  await card.getByRole('button', { name: 'Split' }).click();
  await expect(split).toBeVisible();
  await expect(unified).toBeHidden();
  await expect(split.locator('td.code.old')).toContainText(['format!("Hello {}", name)']);
  await card.getByRole('button', { name: 'Unified' }).click();
  await expect(unified).toBeVisible();
  await card.getByRole('button', { name: 'Reject' }).click();
  await expect(timeline(page).getByRole('status', { name: 'Rejected' })).toBeVisible();
  // The call's row follows the outcome (not "done"), and the change reviewed stays in
  // history under the receipt.
  await expect(timeline(page).getByText('Left src/lib.rs unchanged.')).toBeVisible();
  const row = timeline(page).locator('.tool-card[data-tool-call-id^="e-"]');
  await expect(row).toHaveAttribute('data-status', 'declined');
  await expect(row.locator('.tool-status')).toHaveText('declined');
  const reviewed = timeline(page).locator('details.receipt-diff');
  await reviewed.locator('summary').click();
  await expect(reviewed).toContainText('format!("Hello, {name}!")');

  await startScenario(page, 'edit');
  card = askLane(page).getByRole('dialog', { name: 'Apply this edit to src/lib.rs?' });
  await card.getByRole('button', { name: 'Accept' }).click();
  await expect(timeline(page).getByRole('status', { name: 'Accepted' })).toBeVisible();
  await expect(timeline(page).getByText('Applied the edit to src/lib.rs.')).toBeVisible();
  await expect(timeline(page).locator('.tool-card[data-tool-call-id^="e-"]')).toHaveAttribute('data-status', 'done');
});

const reloadable: { words: string; ask: string; answer: (page: import('@playwright/test').Page) => Promise<void> }[] = [
  { words: 'approve', ask: 'Approve the budget?', answer: async (page) => {
    await askLane(page).getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  } },
  { words: 'clarify', ask: 'Which color should I use?', answer: async (page) => {
    const card = askLane(page).getByRole('form', { name: 'Which color should I use?' });
    await card.getByRole('option', { name: 'red' }).click();
    await card.getByRole('button', { name: 'Answer' }).click();
  } },
  { words: 'clarify free', ask: 'What should the new task be called?', answer: async (page) => {
    const card = askLane(page).getByRole('form', { name: 'What should the new task be called?' });
    await card.getByRole('textbox').fill('after the reload');
    await card.getByRole('button', { name: 'Answer' }).click();
  } },
  { words: 'terminal', ask: 'What does your terminal show?', answer: async (page) => {
    const card = askLane(page).getByRole('form', { name: 'What does your terminal show?' });
    await card.getByRole('textbox').fill('nothing yet');
    await card.getByRole('button', { name: 'Answer' }).click();
  } },
  { words: 'sudo', ask: 'sudo needs your password', answer: async (page) => {
    await page.getByLabel('Password', { exact: true }).fill('reload-pass-1');
    await page.getByRole('button', { name: 'Send password' }).click();
  } },
  { words: 'secret', ask: 'Paste the demo token', answer: async (page) => {
    await page.getByLabel('DEMO_TOKEN').fill('reload-token-1');
    await page.getByRole('button', { name: 'Send to agent' }).click();
  } },
  { words: 'edit', ask: 'Apply this edit to src/lib.rs?', answer: async (page) => {
    await askLane(page).getByRole('button', { name: 'Accept' }).click();
  } },
];

for (const { words, ask, answer } of reloadable) {
  test(`a reload in the middle of "${words}" shows the same ask, answerable exactly once`, async ({ page }) => {
    await startScenario(page, words);
    const lane = askLane(page);
    await expect(lane.getByRole('heading', { name: ask })).toBeVisible();
    const url = page.url();

    // The server-rendered page already holds the ask, before any script runs.
    const html = await (await page.request.get(url)).text();
    expect(html).toContain(ask);

    await openHydrated(page, url);
    await expect(lane.getByRole('heading', { name: ask })).toHaveCount(1);
    await answer(page);
    await expect(lane.getByRole('heading', { name: ask })).toHaveCount(0);
    await expect(timeline(page).locator('[data-receipt][data-state="resolved"]').first()).toBeVisible();

    await openHydrated(page, url);
    await expect(timeline(page).locator('[data-receipt][data-state="resolved"]').first()).toBeVisible();
    await expect(lane.getByRole('heading', { name: ask })).toHaveCount(0);
  });
}

test('two browser contexts answer one ask: the second sees the recorded resolution', async ({ browser, page }) => {
  await startScenario(page, 'approve');
  await expect(askLane(page).getByRole('dialog', { name: 'Approve the budget?' })).toBeVisible();
  const url = page.url();

  const other = await browser.newContext();
  const late = await other.newPage();
  await openHydrated(late, url);
  const lateCard = askLane(late).getByRole('dialog', { name: 'Approve the budget?' });
  await expect(lateCard).toBeVisible();

  // The second tab's live stream is cut so that its card is still on screen when it answers.
  await late.route('**/api/v1/runs/*/events*', (route) => route.abort());
  await late.evaluate(() => window.stop());

  await askLane(page).getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await expect(timeline(page).getByRole('status', { name: 'Approved once' })).toBeVisible();

  await lateCard.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(late.getByText('Already answered by ada: Approved once.')).toBeVisible();
  await late.unroute('**/api/v1/runs/*/events*');
  await openHydrated(late, url);
  await expect(timeline(late).getByRole('status', { name: 'Approved once' })).toBeVisible();
  await expect(askLane(late).getByRole('dialog', { name: 'Approve the budget?' })).toHaveCount(0);
  await other.close();
});

test('a reply typed in the composer answers the pending question instead of starting a run', async ({ page }) => {
  await startScenario(page, 'clarify free');
  await expect(askLane(page).getByRole('form', { name: 'What should the new task be called?' })).toBeVisible();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await expect(page.getByText('Reply to: What should the new task be called?')).toBeVisible();
  await composer.fill('water the plants');
  await composer.press('Enter');
  await expect(timeline(page).getByRole('status').filter({ hasText: 'water the plants' })).toBeVisible();
  await expect(askLane(page).getByRole('form')).toHaveCount(0);
  // The answer resumed the paused run; no third run was started with the text.
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await expect(page.locator('.run-status')).toHaveCount(2);
  await expect(page.getByText('Reply to:')).toHaveCount(0);
});

test('with an approval pending, Enter in the composer says so, and a message sent anyway takes the answers\' place', async ({ page }) => {
  await startScenario(page, 'approve');
  await expect(askLane(page).getByRole('dialog').first()).toBeVisible();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('what about the budget?');
  await composer.press('Enter');
  const notice = page.getByRole('status').filter({ hasText: 'An answer is pending' });
  await expect(notice).toBeVisible();
  await expect(composer).toHaveValue('what about the budget?');
  await expect(page.locator('.run-status')).toHaveCount(1);
  await notice.getByRole('button', { name: 'Send as a new message anyway' }).click();
  await expect(page.locator('.run-status')).toHaveCount(2);
  await expect(timeline(page).getByText('what about the budget?')).toBeVisible();
  // The message took the place of the answers: the approvals closed unanswered, and the
  // one run that resumed the paused one carried it to the agent.
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await expect(timeline(page).getByText('Both declined. Nothing booked.')).toBeVisible();
  await expect(timeline(page).getByText(/And to your message .what about the budget\?./)).toBeVisible();
  await expect(askLane(page).getByRole('dialog')).toHaveCount(0);
});

test('a tool call finished by the resume run keeps one card, updated in place', async ({ page }) => {
  await startScenario(page, 'sudo');
  const card = askLane(page).getByRole('form', { name: 'sudo needs your password' });
  // While the password is asked for, the call waits for the operator, and says so.
  const waiting = timeline(page).locator('article.tool-card');
  await expect(waiting).toHaveAttribute('data-status', 'waiting for you');
  await expect(waiting).toContainText('Waiting for your answer');
  await card.getByLabel('Password', { exact: true }).fill('correct horse');
  await card.getByRole('button', { name: 'Send password' }).click();
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const cards = timeline(page).locator('article.tool-card');
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toHaveAttribute('data-status', 'done');
  await expect(cards.first()).toContainText('Result');
  await expect(cards.first()).not.toContainText('Waiting for the result');
  await page.reload();
  await expect(timeline(page).locator('article.tool-card')).toHaveCount(1);
  await expect(timeline(page).locator('article.tool-card').first()).toHaveAttribute('data-status', 'done');
});

test('a frontend tool answered by the console shows its result on its card', async ({ page }) => {
  await startScenario(page, 'frontend');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const cards = timeline(page).locator('article.tool-card');
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toHaveAttribute('data-status', 'done');
  await expect(cards.first()).toContainText('#0b7285');
  await expect(cards.first()).not.toContainText('No result came back');
});

test('a question is asked once, in the lane; the timeline only says where to answer it', async ({ page }) => {
  await startScenario(page, 'clarify');
  const card = askLane(page).getByRole('form', { name: 'Which color should I use?' });
  await expect(card).toBeVisible();
  await expect(page.getByRole('main').getByText('Which color should I use?')).toHaveCount(1);
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await timeline(page).getByRole('button', { name: 'Answer it' }).click();
  await expect(card.getByRole('option').first()).toBeFocused();
});
