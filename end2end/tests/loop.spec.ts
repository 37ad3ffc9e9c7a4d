import { askLane, chooseMore, expect, freshTenant, openHydrated, signIn, startScenario, test, timeline } from './helpers';

// The loop an operator repeats all day: asks take focus, keys answer them, focus goes on.

test('an arriving ask takes focus, a number key picks, Enter answers, and focus returns to the composer', async ({ page }) => {
  await startScenario(page, 'clarify');
  const card = askLane(page).getByRole('form', { name: 'Which color should I use?' });
  await expect(card.getByRole('option', { name: 'red' })).toBeFocused();
  await page.keyboard.press('3');
  await expect(card.getByRole('option', { name: 'blue' })).toHaveAttribute('aria-selected', 'true');
  await expect(card.getByRole('option', { name: 'blue' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(timeline(page).getByRole('status').filter({ hasText: 'blue' })).toBeVisible();
  await expect(askLane(page).getByRole('form')).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
});

test('an ask never takes focus from the operator mid-typing', async ({ page }) => {
  await startScenario(page, 'approve later');
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.pressSequentially('a draft');
  await expect(askLane(page).getByRole('dialog', { name: 'Approve the budget?' })).toBeVisible();
  await expect(composer).toBeFocused();
  await expect(composer).toHaveValue('a draft');
});

test('Esc in an ask returns to the composer; after an answer focus goes to the next ask, then the composer', async ({ page }) => {
  await startScenario(page, 'approve');
  const lane = askLane(page);
  const budget = lane.getByRole('dialog', { name: 'Approve the budget?' });
  const date = lane.getByRole('dialog', { name: 'Confirm the date?' });
  await expect(budget.getByRole('button', { name: 'Approve once' })).toBeFocused();
  await page.keyboard.press('Escape');
  const composer = page.getByRole('textbox', { name: 'Message' });
  await expect(composer).toBeFocused();

  await budget.getByRole('button', { name: 'Approve once' }).click();
  await expect(budget).toHaveCount(0);
  await expect(date.getByRole('button', { name: 'Approve once' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(lane.getByRole('dialog')).toHaveCount(0);
  await expect(composer).toBeFocused();
  await expect(timeline(page).getByText('Both approved. Booked.')).toBeVisible();
});

test('a question step answers with Enter and breaks the line with Shift+Enter', async ({ page }) => {
  await startScenario(page, 'clarify free');
  const card = askLane(page).getByRole('form', { name: 'What should the new task be called?' });
  const field = card.getByRole('textbox');
  await expect(field).toBeFocused();
  await field.pressSequentially('first line');
  await page.keyboard.press('Shift+Enter');
  await field.pressSequentially('second line');
  await expect(field).toHaveValue('first line\nsecond line');
  await page.keyboard.press('Enter');
  await expect(askLane(page).getByRole('form')).toHaveCount(0);
  await expect(timeline(page).locator('[data-receipt]').first()).toBeVisible();
});

test('an approval offers one primary action, explains the wider scopes, and a denial carries its reason', async ({ page }) => {
  await startScenario(page, 'approve');
  const lane = askLane(page);
  const budget = lane.getByRole('dialog', { name: 'Approve the budget?' });
  await expect(budget.getByRole('button', { name: 'Approve once' })).toBeVisible();
  await expect(budget.getByRole('button', { name: 'Approve for session' })).toHaveCount(0);
  // The heading is said once: the body holds the command, not the title again.
  await expect(budget.getByText('Approve the budget?')).toHaveCount(1);
  const date = lane.getByRole('dialog', { name: 'Confirm the date?' });
  const dateBefore = await date.boundingBox();
  await budget.getByText('More choices').click();
  await expect(budget.getByRole('button', { name: 'Approve for session' })).toBeVisible();
  await expect(budget).toContainText('until this session ends');
  await expect(budget).toContainText('never ask again');
  // A popover: opening it stretches no button and moves no card.
  expect((await budget.getByRole('button', { name: 'Approve once' }).boundingBox())!.height).toBeLessThan(48);
  expect((await date.boundingBox())!.y).toBe(dateBefore!.y);
  // Esc closes it.
  await page.keyboard.press('Escape');
  await expect(budget.getByRole('button', { name: 'Approve for session' })).toBeHidden();

  await chooseMore(date, 'Deny with a reason…');
  // The choice made, the menu is gone: only the reason form shows.
  await expect(date.locator('.choice-list')).toBeHidden();
  const reason = date.getByRole('textbox', { name: 'Why not? The agent receives this.' });
  await expect(reason).toBeFocused();
  await reason.fill('book Friday instead');
  await date.getByRole('button', { name: 'Send denial' }).click();
  await budget.getByRole('button', { name: 'Approve once' }).click();
  await expect(timeline(page).getByText('Reason given for confirm-date: book Friday instead')).toBeVisible();
});

test('a destructive command is never offered "always", and its heading does not repeat the command', async ({ page }) => {
  await startScenario(page, 'approve', 'demo-hermes');
  const card = askLane(page).getByRole('dialog', { name: 'Run this command?' });
  await expect(card.locator('pre.command')).toHaveText('rm -rf build/');
  // The gateway denies it after 60 s: the card counts that down.
  await expect(card.getByText(/^This ask expires in \d+ s\.$/)).toBeVisible();
  await expect(card.getByText('recursive delete')).toHaveCount(1);
  await card.getByText('More choices').click();
  await expect(card.getByRole('button', { name: 'Approve for session' })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Always approve' })).toHaveCount(0);
  // Hermes has no field for a reason: none is asked for.
  await expect(card.getByRole('button', { name: 'Deny with a reason…' })).toHaveCount(0);
  await card.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(timeline(page).locator('[data-receipt][data-outcome="denied"]')).toBeVisible();
});

test('receipts tell outcomes apart by sign, word and colour, with who answered and when on hover', async ({ page }) => {
  await startScenario(page, 'approve');
  const lane = askLane(page);
  await lane.getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await lane.getByRole('dialog', { name: 'Confirm the date?' }).getByRole('button', { name: 'Deny', exact: true }).click();
  const log = timeline(page);
  const approved = log.locator('[data-receipt][data-outcome="approved"]');
  const denied = log.locator('[data-receipt][data-outcome="denied"]');
  await expect(approved.locator('.receipt-mark')).toHaveText('✓');
  await expect(denied.locator('.receipt-mark')).toHaveText('⊘');
  await expect(approved.locator('.receipt-word')).toHaveText('Approved once');
  await expect(denied.locator('.receipt-word')).toHaveText('Denied');
  const colour = async (locator: typeof approved) =>
    locator.locator('.receipt-word').evaluate((element) => getComputedStyle(element).color);
  expect(await colour(approved)).not.toEqual(await colour(denied));
  await expect(approved).toHaveAttribute('title', /^Approved once by ada at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  await expect(approved.locator('time')).toHaveAttribute('datetime', /Z$/);
  // The same after a reload: it all comes from the stored answer.
  await openHydrated(page, new URL(page.url()).pathname);
  await expect(timeline(page).locator('[data-receipt][data-outcome="denied"] .receipt-word')).toHaveText('Denied');
});

test('tool calls read as one-line steps that open to their arguments and result; consecutive calls are grouped', async ({ page }) => {
  await startScenario(page, 'call');
  const card = timeline(page).locator('article.tool-card');
  await expect(card).toHaveAttribute('data-status', 'done');
  const head = card.locator('summary.tool-head');
  await expect(head.locator('.tool-name')).toHaveText('add_task');
  await expect(head.locator('.tool-brief')).toContainText('title: "ship the SDK"');
  await expect(head.locator('.tool-status')).toHaveText('done');
  await expect(card.getByLabel('Arguments')).toBeHidden();
  await head.click();
  await expect(card.getByLabel('Arguments')).toBeVisible();
  await expect(card.locator('.tool-result pre')).toContainText('"title": "ship the SDK"');

  await startScenario(page, 'parallel');
  const group = timeline(page).locator('details.tool-group');
  await expect(group.locator(':scope > summary')).toHaveText('Ran 2 tools');
  await expect(group.locator('article.tool-card')).toHaveCount(2);
  await expect(group.locator('article.tool-card').first()).toBeHidden();
  await group.locator(':scope > summary').click();
  await expect(group.locator('article.tool-card').nth(1)).toBeVisible();
  await expect(group.locator('article.tool-card').nth(1).locator('.tool-brief')).toContainText('read it back');
});

test('a thinking indicator counts the wait before the first output and goes when the run ends', async ({ page }) => {
  await startScenario(page, 'approve later');
  const thinking = timeline(page).locator('.thinking');
  await expect(timeline(page).getByText('Two decisions before I book.')).toHaveCount(0);
  await expect(thinking).toBeVisible();
  await expect(thinking).toContainText(/Thinking · \d+ s/);
  // The agent's first words end it.
  await expect(timeline(page).getByText('Two decisions before I book.')).toBeVisible();
  await expect(thinking).toHaveCount(0);
  await expect(page.locator('.run-status[data-status="interrupted"]')).toHaveText('Waiting for you');
});

test('a message offers Copy and tells its time on hover', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await startScenario(page, 'chunks');
  const message = timeline(page).locator('article.message').filter({ hasText: 'emoji included' });
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveText('Done');
  await message.hover();
  await expect(message.locator('time')).toHaveAttribute('title', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  await message.getByRole('button', { name: 'Copy' }).click();
  await expect(message.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe('Chunked text arrives in fragments, and the client rejoins them — emoji included: 👩\u200d💻.');
});

test('the UI speaks plainly: agent steps are detail shown with the reasoning, not "Step turn"', async ({ page }) => {
  await startScenario(page, 'hello');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await expect(timeline(page).getByText(/Step turn/)).toHaveCount(0);
  await expect(timeline(page).locator('p.step').first()).toBeHidden();
  await page.getByLabel('Show reasoning').check();
  await expect(timeline(page).locator('p.step').first()).toBeVisible();
  await expect(timeline(page).locator('p.step').first()).toHaveText(/^(Working on|Finished): turn$/);
});

test('Retry sends the last message again in place of its reply: shown once, heard once', async ({ page }) => {
  await startScenario(page, 'hello there');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('and again');
  await composer.press('Enter');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(2);
  const log = timeline(page);
  const replies = log.locator('article.message').filter({ hasText: 'I remember 4 earlier messages' });
  await expect(replies).toHaveCount(1);
  // Only the last run offers Retry, under its reply.
  const runs = log.locator('section.run');
  await expect(log.getByRole('button', { name: 'Retry' })).toHaveCount(1);
  await expect(runs.nth(0).getByRole('button', { name: 'Retry' })).toHaveCount(0);
  await runs.nth(1).getByRole('button', { name: 'Retry' }).click();

  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(3);
  // The agent heard the message once (it remembers the same four messages as before) ...
  await expect(replies).toHaveCount(2);
  // ... and the timeline shows it once, with a note where it was sent again.
  await expect(log.locator('article.message.user')).toHaveCount(2);
  await expect(log.getByRole('note').filter({ hasText: 'Your last message, sent again' })).toHaveCount(1);
  await openHydrated(page, new URL(page.url()).pathname);
  await expect(timeline(page).locator('article.message.user')).toHaveCount(2);
  await expect(timeline(page).getByRole('note').filter({ hasText: 'Your last message, sent again' })).toHaveCount(1);
});

test('a multi-question ask shows one question at a time', async ({ page }) => {
  await startScenario(page, 'clarify new', 'demo-hermes');
  const lane = askLane(page);
  await expect(lane.getByText('Which branch?')).toBeVisible();
  await expect(lane.getByText('Commit message?')).toBeHidden();
});

test('a paused run whose answers went on in a follow-up says so, after a reload too', async ({ page }) => {
  await startScenario(page, 'approve');
  const lane = askLane(page);
  await lane.getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await lane.getByRole('dialog', { name: 'Confirm the date?' }).getByRole('button', { name: 'Approve once' }).click();
  await expect(timeline(page).getByText('Both approved. Booked.')).toBeVisible();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-hydrated', 'true');
  const first = timeline(page).locator('section.run').nth(0);
  await expect(first.locator('.run-status')).toHaveText('Answered, continued below');
  await expect(page.locator('.run-status', { hasText: 'Waiting for you' })).toHaveCount(0);
});

test('the starters offered for a new thread follow the agent chosen for it, a line each', async ({ page }) => {
  await openHydrated(page, '/');
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/new$/);
  const starters = page.getByRole('region', { name: 'Things to try' });
  await expect(starters.getByRole('button', { name: 'chunks', exact: true })).toBeVisible();
  await page.getByRole('combobox', { name: 'Agent' }).selectOption('demo-hermes');
  const stubborn = starters.getByRole('button', { name: 'stubborn', exact: true });
  await expect(stubborn).toBeVisible();
  await expect(stubborn).toHaveAccessibleDescription('A turn that goes on after it is stopped');
  await expect(starters.getByRole('button', { name: 'chunks', exact: true })).toHaveCount(0);
  // The card starts the thread with the agent chosen.
  await starters.getByRole('button', { name: 'whoami', exact: true }).click();
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('log', { name: 'Run timeline' })).toContainText('This gateway serves');
  await expect(page.getByText('Agent: demo-hermes')).toBeVisible();
});

test('"New thread" keeps no thread until its first message', async ({ page, baseURL }, testInfo) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  await openHydrated(page, '/');
  // The empty home leads somewhere: a composer, an agent picker and the demo's starters.
  const start = page.getByRole('region', { name: 'Start a thread' });
  await expect(start.getByRole('combobox', { name: 'Agent' })).toHaveValue('demo');
  await expect(start.getByRole('region', { name: 'Things to try' }).getByRole('button')).toHaveCount(18);
  await expect(start.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await testInfo.attach('first-run home', { body: await page.screenshot(), contentType: 'image/png' });
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/new$/);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  await page.getByRole('button', { name: 'New thread' }).click();
  await openHydrated(page, '/new');
  const listed = async () => (await (await page.request.get('/api/v1/threads')).json()).threads.length;
  expect(await listed()).toBe(0);
  await expect(page.getByText('No threads yet. Start one with New thread.')).toBeVisible();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('Plan the offsite');
  await composer.press('Enter');
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Plan the offsite' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Plan the offsite' })).toHaveAttribute('aria-current', 'page');
  expect(await listed()).toBe(1);
});

test('number keys answer an approval card: 1 its first answer, 2 the next', async ({ page }) => {
  await startScenario(page, 'approve');
  const budget = askLane(page).getByRole('dialog', { name: 'Approve the budget?' });
  await expect(budget.getByRole('button', { name: 'Approve once' })).toBeFocused();
  await page.keyboard.press('2');
  await expect(budget).toHaveCount(0);
  await expect(timeline(page).locator('[data-receipt][data-outcome="denied"]')).toBeVisible();
});
