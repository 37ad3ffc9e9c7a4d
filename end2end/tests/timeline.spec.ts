import { askLane, expect, openHydrated, startScenario, test, timeline, openEmptyThread, withRunDetails } from './helpers';

test('a new thread suggests the demo scenarios, and a suggestion starts one', async ({ page }) => {
  await openHydrated(page, '/');
  await page.getByRole('button', { name: 'New thread' }).click();
  const suggestions = page.getByRole('region', { name: 'Things to try' });
  await expect(suggestions.getByRole('button', { name: 'approve' })).toBeVisible();
  await suggestions.getByRole('button', { name: 'plan' }).click();
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(timeline(page).locator('article.message.user')).toHaveText(/plan/);
  await expect(timeline(page).getByText('Summary: two tasks, both open.')).toBeVisible();
  await expect(suggestions).toHaveCount(0);
});

test('a message the server refuses goes back into the composer, not lost', async ({ page }) => {
  await startScenario(page, 'slow');
  await expect(timeline(page).getByText('working on it, this will take a while')).toBeVisible();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('a follow-up while the run is busy');
  await composer.press('Enter');
  await expect(page.getByRole('alert')).toContainText('already has a run in progress');
  await expect(composer).toHaveValue('a follow-up while the run is busy');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.locator('.run-status[data-status="cancelled"]')).toBeVisible();
  // A stop the operator asked for is a plain fact, said once, not a warning.
  await expect(page.locator('.run-status[data-status="cancelled"]')).toHaveText('Stopped');
  await expect(timeline(page).locator('.notice.muted')).toHaveText('Stopped by the operator.');
  await expect(timeline(page).locator('.notice.warning')).toHaveCount(0);
});

test('Shift+Enter breaks the line and Enter sends', async ({ page }) => {
  await openHydrated(page, '/new');
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('chunks');
  await composer.press('Shift+Enter');
  await composer.pressSequentially('second line');
  await expect(composer).toHaveValue('chunks\nsecond line');
  await composer.press('Enter');
  await expect(composer).toHaveValue('');
  await expect(timeline(page).locator('article.message.user')).toContainText('second line');
});

test('chunked text is rejoined into one message, emoji intact, pinned as the final answer', async ({ page }) => {
  await startScenario(page, 'chunks');
  const final = timeline(page).locator('article.message.final');
  await expect(final).toHaveText(/Chunked text arrives in fragments, and the client rejoins them — emoji included: 👩‍💻\./);
  await expect(final.getByText('Final answer')).toBeVisible();
});

test('a tool call streams its arguments into one card and the result replaces the placeholder', async ({ page }) => {
  await startScenario(page, 'call');
  const card = timeline(page).locator('article.tool-card');
  await expect(card).toHaveCount(1);
  await expect(card.locator('.tool-name')).toHaveText('add_task');
  await expect(card.getByLabel('Arguments')).toContainText('"title": "ship the SDK"');
  await expect(card.getByLabel('Arguments')).toContainText('"note": "line\\nbreak"');
  await expect(card).toHaveAttribute('data-status', 'done');
  await expect(card.locator('.tool-result')).toContainText('"title": "ship the SDK"');
  await expect(card.getByText('Waiting for the result…')).toHaveCount(0);
});

test('a parallel-calls run reads right grouped and in arrival order', async ({ page }) => {
  await startScenario(page, 'parallel');
  const cards = timeline(page).locator('article.tool-card');
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0).locator('.tool-result')).toContainText('write it down');
  await expect(cards.nth(1).locator('.tool-result')).toContainText('read it back');
  await expect(page.getByRole('complementary', { name: 'Context' }).locator('.json-tree')).toContainText('title: "read it back"');

  await page.getByRole('button', { name: 'Arrival order' }).click();
  const arrivals = timeline(page).getByRole('list', { name: 'Events in arrival order' }).getByRole('listitem');
  await expect(arrivals.first()).toBeVisible();
  const channels = await arrivals.evaluateAll((items) => items.map((item) => item.getAttribute('data-channel')));
  // The two calls interleave: both start before either result arrives.
  const firstResult = channels.indexOf('tool_result');
  expect(channels.slice(0, firstResult).filter((channel) => channel === 'tool_call').length).toBeGreaterThanOrEqual(2);
  expect(channels.filter((channel) => channel === 'tool_result').length).toBe(2);
  const sequences = await arrivals.locator('.seq').allTextContents();
  const numbers = sequences.map((text) => Number(text.slice(1)));
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  expect(new Set(numbers).size).toBe(numbers.length);

  await page.getByRole('button', { name: 'Grouped' }).click();
  await expect(cards).toHaveCount(2);

  // After a reload the page carries no arrival list; the first look reads the same one.
  await page.reload();
  await expect(cards).toHaveCount(2);
  await page.getByRole('button', { name: 'Arrival order' }).click();
  await expect(arrivals.first()).toBeVisible();
  expect(await arrivals.locator('.seq').allTextContents()).toEqual(sequences);
});

test('reasoning is hidden until "Show reasoning" is switched on', async ({ page }) => {
  await startScenario(page, 'mixed');
  const reasoning = timeline(page).locator('details.reasoning');
  await expect(timeline(page).getByText('Reading the board, then adding to it.')).toBeVisible();
  await expect(reasoning).toBeHidden();
  await page.getByLabel('Show reasoning').check();
  await expect(reasoning).toBeVisible();
  await reasoning.locator('summary').click();
  await expect(reasoning).toContainText('three streams, no brackets');
});

test('a failed run shows an error card whose Retry starts a new run', async ({ page }) => {
  await startScenario(page, 'fail');
  const card = timeline(page).locator('.error-card');
  await expect(card).toContainText('Run failed');
  await expect(card).toContainText('the model refused, and said so at length');
  await card.getByRole('button', { name: 'Retry' }).click();
  await expect(timeline(page).locator('section.run')).toHaveCount(2);
  await expect(timeline(page).locator('.error-card')).toHaveCount(2);
  // The message went again, not a copy of it.
  await expect(timeline(page).locator('article.message.user')).toHaveCount(1);
  // Only the last run's card offers Retry: an older failure would send the last message.
  await expect(timeline(page).locator('section.run').nth(0).getByRole('button', { name: 'Retry' })).toHaveCount(0);
  await expect(timeline(page).locator('section.run').nth(1).getByRole('button', { name: 'Retry' })).toHaveCount(1);
});

test('a plan is shown as progress in the context pane', async ({ page }) => {
  await startScenario(page, 'plan');
  await expect(timeline(page).getByText('Summary: two tasks, both open.')).toBeVisible();
  const context = page.getByRole('complementary', { name: 'Context' });
  await expect(context).toContainText('3 of 3 done');
  await expect(context).toContainText('Write the summary');
});

test('what the agent made shows in the thread as cards, each titled once and never by an id', async ({ page }, testInfo) => {
  await startScenario(page, 'artifacts');
  const log = timeline(page);
  const card = (title: string) => log.locator('article.output-card').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
  // The table's rows, the chart itself, the image, the first lines of output and code.
  await expect(card('Tasks').getByRole('table')).toContainText('book the room');
  await expect(card('Minutes per task').getByRole('img', { name: /Minutes per task/ })).toBeVisible();
  await expect(card('Board snapshot').getByRole('img', { name: 'Three task cards in a column' })).toBeVisible();
  await expect(card('Build')).toContainText('test result: ok. 3 passed');
  await expect(card('Task model')).toContainText('pub minutes: u32');
  await expect(card('Task model')).toContainText('2 versions');
  // Each title is said once, by the card's heading (the chart's own caption is left out).
  for (const title of ['Minutes per task', 'Board snapshot']) {
    await expect(card(title).getByText(title, { exact: true }).filter({ visible: true })).toHaveCount(1);
  }
  // No machine id as a label: the demo's artifact ids end in the run's id.
  const labels = await log.locator('article.output-card').evaluateAll((cards) =>
    cards.map((c) => [c.querySelector('h3')?.textContent ?? '', c.querySelector('button')?.getAttribute('aria-label') ?? '']).flat());
  expect(labels.length).toBe(10);
  for (const label of labels) expect(label).not.toMatch(/[0-9a-f]{8}-|_block|data_table|code-/);
  await testInfo.attach('thread with output cards', { body: await page.screenshot(), contentType: 'image/png' });
});

test('Open shows an artifact whole in a wide, resizable canvas with Copy, Download, Expand and its versions', async ({ page, context }, testInfo) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await startScenario(page, 'artifacts');
  const log = timeline(page);
  const open = log.getByRole('button', { name: 'Open Task model in the canvas' });
  await open.click();
  const canvas = page.getByRole('complementary', { name: 'Task model' });
  await expect(canvas).toContainText('pub minutes: u32');
  await expect(canvas.getByRole('heading', { name: 'Task model' })).toBeFocused();
  await expect(open).toHaveAttribute('aria-pressed', 'true');
  // About half the window, beside the thread (which stays usable).
  const wide = (await canvas.boundingBox())!;
  expect(wide.width).toBeGreaterThan(560);
  expect(wide.width).toBeLessThan(760);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await testInfo.attach('artifact in the canvas', { body: await page.screenshot(), contentType: 'image/png' });

  // The version the agent drew first, then back to the latest.
  await canvas.getByRole('combobox', { name: 'Version' }).selectOption('1');
  await expect(canvas.getByRole('status')).toContainText('An earlier version (1 of 2)');
  await expect(canvas).not.toContainText('pub minutes');
  await canvas.getByRole('button', { name: 'Copy', exact: true }).click();
  await expect(canvas.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('pub struct Task {\n    pub id: u32,\n    pub title: String,\n    pub done: bool,\n}\n');
  const saving = page.waitForEvent('download');
  await canvas.getByRole('button', { name: 'Download' }).click();
  const download = await saving;
  expect(download.suggestedFilename()).toBe('task.rs');
  await canvas.getByRole('button', { name: 'Show the latest' }).click();
  await expect(canvas).toContainText('pub minutes: u32');

  // The edge moves with the keyboard; Expand takes the whole window; Esc shrinks, then closes.
  const edge = canvas.getByRole('separator', { name: 'Resize the canvas' });
  await edge.focus();
  for (let n = 0; n < 4; n += 1) await page.keyboard.press('ArrowRight');
  await expect.poll(async () => (await canvas.boundingBox())!.width).toBeLessThan(wide.width - 40);
  await page.keyboard.press('Home');
  await expect.poll(async () => (await canvas.boundingBox())!.width).toBe(wide.width);
  await canvas.getByRole('button', { name: 'Expand' }).click();
  await expect.poll(async () => (await canvas.boundingBox())!.width).toBe(1280);
  await page.keyboard.press('Escape');
  await expect(canvas.getByRole('button', { name: 'Expand' })).toBeVisible();
  await canvas.getByRole('heading', { name: 'Task model' }).focus();
  await page.keyboard.press('Escape');
  await expect(canvas).toHaveCount(0);
  await expect(open).toBeFocused();

  // A table exports as CSV; a chart and an image open too.
  await log.getByRole('button', { name: 'Open Tasks in the canvas' }).click();
  const table = page.getByRole('complementary', { name: 'Tasks' });
  await expect(table.getByRole('table')).toContainText('send invites');
  await table.getByRole('button', { name: 'Copy', exact: true }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('#,Task,Minutes\r\n1,draft the agenda,30\r\n2,book the room,10\r\n3,send invites,15\r\n');
  await log.getByRole('button', { name: 'Open Minutes per task in the canvas' }).click();
  await expect(page.getByRole('complementary', { name: 'Minutes per task' }).getByRole('img', { name: /Minutes per task/ })).toBeVisible();
  await page.getByRole('button', { name: 'Close the canvas' }).click();
  await expect(page.locator('#canvas')).toHaveCount(0);
});

test('a message still streaming when the run is stopped loses its caret', async ({ page }) => {
  await startScenario(page, 'slow');
  await expect(timeline(page).getByText('working on it, this will take a while')).toBeVisible();
  const writing = timeline(page).locator('article.message[aria-busy="true"]');
  await expect(writing).toHaveCount(1);
  const caret = await writing.locator('.md-block').last().evaluate((element) => getComputedStyle(element, '::after').content);
  expect(caret).toBe('""');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.locator('.run-status[data-status="cancelled"]')).toHaveText('Stopped');
  await expect(writing).toHaveCount(0);
  const after = await timeline(page).locator('article.message .md-block').last().evaluate((element) => getComputedStyle(element, '::after').content);
  expect(after).toBe('none');
  await page.reload();
  await expect(timeline(page).getByText('working on it, this will take a while')).toBeVisible();
  await expect(timeline(page).locator('article.message[aria-busy="true"]')).toHaveCount(0);
});

test('Stop cancels an active run', async ({ page }) => {
  await startScenario(page, 'slow');
  await expect(timeline(page).getByText('working on it, this will take a while')).toBeVisible();
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.locator('.run-status[data-status="cancelled"]')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
});

test('a tool the console implements runs by itself and its result goes back once', async ({ page }) => {
  await startScenario(page, 'frontend');
  // Nothing to fill in: the console ran change_background and answered with what it applied.
  await expect(timeline(page).locator('[data-receipt][data-state="resolved"]')).toContainText('change_background');
  await expect(askLane(page).getByRole('form')).toHaveCount(0);
  await expect(page.locator('main.main')).toHaveAttribute('data-background', '#0b7285');
  // The agent's next run received the result.
  await expect(timeline(page).getByText('The console ran it: {"applied":"#0b7285"}')).toBeVisible();
  const threadUrl = page.url();
  const answers: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/fn/answer_ask')) answers.push(request.url());
  });
  // A reload finds the ask answered: the tool does not run, nothing is sent again.
  await openHydrated(page, threadUrl);
  await expect(timeline(page).locator('[data-receipt][data-state="resolved"]')).toBeVisible();
  await page.waitForTimeout(500);
  expect(answers).toHaveLength(0);

  // Arguments the console cannot use come back to the agent as an error result.
  await startScenario(page, 'frontend url(evil)');
  // The agent's reply is Markdown, where `\"` is an escaped quote.
  await expect(timeline(page).getByText('The console ran it: {"error":"change_background: "url(evil)" is not a CSS colour"}')).toBeVisible();
  await expect(page.locator('main.main')).not.toHaveAttribute('data-background', /./);
});

test('a tool the console does not implement is a plain decision: done with a note, or a JSON result under Advanced', async ({ page }) => {
  await startScenario(page, 'frontend operator');
  const card = askLane(page).getByRole('form');
  await expect(card).toContainText('render_a2ui');
  // No JSON for a person to edit unless they open "Advanced".
  await expect(card.getByLabel('Result (JSON)')).toBeHidden();
  await card.getByLabel('What happened (optional)').fill('Drew it on the whiteboard');
  await card.getByRole('button', { name: 'Done' }).click();
  await expect(timeline(page).locator('[data-receipt][data-state="resolved"]')).toBeVisible();
  // The agent got what the operator said, as the call's result.
  await expect(timeline(page).getByText('The console ran it: {"done":true,"note":"Drew it on the whiteboard"}')).toBeVisible();

  await startScenario(page, 'frontend operator');
  const again = askLane(page).getByRole('form');
  await again.getByText('Advanced').click();
  await again.getByLabel('Result (JSON)').fill('{"rendered": tru');
  await again.getByRole('button', { name: 'Send this result' }).click();
  await expect(again.getByRole('alert')).toContainText('That is not JSON');
  await again.getByLabel('Result (JSON)').fill('{"rendered": true}');
  await again.getByRole('button', { name: 'Send this result' }).click();
  await expect(timeline(page).locator('[data-receipt][data-state="resolved"]')).toBeVisible();
});

test('a stream that breaks the protocol shows its diagnosis', async ({ page }) => {
  await startScenario(page, 'anything', 'raw-unbracketed');
  const card = timeline(page).locator('.error-card[data-kind="ProtocolViolation"]');
  await expect(card).toBeVisible();
  await expect(card).toContainText('Protocol violation');
  await expect(card.locator('p')).not.toBeEmpty();
});

test('the context pane shows how the chosen agent is reached, without credentials', async ({ page }) => {
  await startScenario(page, 'plan');
  await expect(timeline(page).getByText('Summary: two tasks, both open.')).toBeVisible();
  const environment = (await withRunDetails(page)).getByRole('region', { name: 'Environment' });
  await expect(environment).toContainText('AG-UI');
  await expect(environment).toContainText('HTTP + SSE');
  await expect(environment.locator('code')).toHaveText(/^http:\/\/127\.0\.0\.1:\d+\/demo\/agent$/);
  await expect(environment).toContainText('add_task, render_a2ui, change_background');
  // Reported by the agent in RUN_STARTED.
  await expect(environment).toContainText('Protocol version1.0');

  // A fresh thread follows the agent picked for it before its first message.
  await openEmptyThread(page);
  await page.getByRole('combobox', { name: 'Agent' }).selectOption('demo-hermes');
  const fresh = (await withRunDetails(page)).getByRole('region', { name: 'Environment' });
  await expect(fresh).toContainText('Hermes gateway (JSON-RPC)');
  await expect(fresh).toContainText('stdio');
  await expect(fresh.locator('code')).toHaveText('agent-os …');
});

test('the plan stays in the context pane when the next message starts a run without one', async ({ page }) => {
  await startScenario(page, 'plan');
  const context = page.getByRole('complementary', { name: 'Context' });
  const plan = context.locator('ol.plan');
  await expect(plan.getByText('Write the summary')).toBeVisible();
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('chunks');
  await composer.press('Enter');
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(2);
  await expect(plan.getByText('Write the summary')).toBeVisible();
  await expect(context).toContainText('As run 1 of 2 left it');
  await page.reload();
  await expect(context.locator('ol.plan').getByText('Write the summary')).toBeVisible();
});

test('a colour a frontend tool sets tints its own thread only and keeps text readable', async ({ page }) => {
  await startScenario(page, 'frontend');
  const main = page.locator('main.main');
  await expect(main).toHaveAttribute('data-background', '#0b7285');
  // A tint over the theme's surface, never the raw colour behind the text.
  const tinted = await main.evaluate((element) => getComputedStyle(element).backgroundColor);
  expect(tinted).not.toBe('rgb(11, 114, 133)');
  expect(tinted).not.toBe('rgba(0, 0, 0, 0)');
  const tintedThread = page.url();
  // Another thread, reached without a reload, is not tinted.
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).not.toHaveURL(tintedThread);
  await expect(page.locator('main.main')).not.toHaveAttribute('data-background', /./);
  // Back in the first thread, after a reload too, the tint is still there.
  await page.goto(tintedThread);
  await expect(page.locator('main.main')).toHaveAttribute('data-background', '#0b7285');
});
