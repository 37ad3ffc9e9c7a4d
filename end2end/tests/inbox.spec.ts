import type { Page } from '@playwright/test';
import { addUser, expect, freshTenant, openHydrated, signIn, startRun, test } from './helpers';

function inbox(page: Page) {
  return page.getByRole('list', { name: 'Waiting asks' });
}

function item(page: Page, key: string) {
  return inbox(page).locator(`li.inbox-item[data-key="${key}"]`);
}

test('an ask appears in every open tab without a reload and leaves both once answered in either', async ({ page, context, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  const second = await context.newPage();
  await openHydrated(page, '/');
  await openHydrated(second, '/');
  await expect(page.getByText('Nothing is waiting for you.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Inbox, nothing waiting' })).toBeVisible();

  const run = await startRun(page.request, 'busy');
  const key = `${run}:busy-third`;
  for (const tab of [page, second]) {
    const card = item(tab, key);
    await expect(card.getByRole('dialog', { name: 'Add the third task too?' })).toBeVisible();
    await expect(card.getByRole('link', { name: 'busy' })).toHaveAttribute('href', /\/threads\//);
    await expect(card).toContainText('demo');
    await expect(tab.getByRole('link', { name: 'Inbox, 1 ask waiting' })).toBeVisible();
  }

  // The thread renamed elsewhere is renamed in both open inboxes, with no reload.
  const thread = (await (await page.request.get(`/api/v1/asks/${key}`)).json()).ask.thread_id;
  const renamed = await page.request.post('/fn/rename_thread', { form: { thread_id: thread, title: 'Budget review' } });
  expect(renamed.status()).toBe(200);
  for (const tab of [page, second]) {
    await expect(item(tab, key).getByRole('link', { name: 'Budget review' })).toBeVisible();
  }

  await item(second, key).getByRole('button', { name: 'Approve once' }).click();
  for (const tab of [page, second]) {
    await expect(item(tab, key)).toHaveCount(0);
    await expect(tab.getByRole('link', { name: 'Inbox, nothing waiting' })).toBeVisible();
  }
  // Answered once: the receipt went to the exact ask, which is now resolved.
  const answered = await page.request.get(`/api/v1/asks/${key}`);
  expect((await answered.json()).ask.ask.state.state).toBe('resolved');
  await second.close();
});

test('three asks are triaged from the keyboard alone, and Enter opens an ask\'s thread', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  const runs = [await startRun(page.request, 'busy'), await startRun(page.request, 'clarify'), await startRun(page.request, 'busy')];
  await openHydrated(page, '/');
  const items = inbox(page).locator('li.inbox-item');
  await expect(items).toHaveCount(3);

  // j and k move between asks, wherever focus was.
  await expect(async () => {
    await page.keyboard.press('j');
    await expect(items.nth(0)).toBeFocused({ timeout: 500 });
  }).toPass();
  await page.keyboard.press('j');
  await expect(items.nth(1)).toBeFocused();
  await page.keyboard.press('k');
  await expect(items.nth(0)).toBeFocused();

  // Two asks answered with each card's own keys; focus moves on to the next each time.
  for (let answered = 0; answered < 2; answered++) {
    const first = items.nth(0);
    const key = (await first.getAttribute('data-key'))!;
    if ((await first.getAttribute('data-kind')) === 'clarify') {
      await page.keyboard.press('2');
      await expect(first.getByRole('option', { name: 'green' })).toHaveAttribute('aria-selected', 'true');
      await page.keyboard.press('Tab');
      await expect(first.getByRole('button', { name: 'Answer' })).toBeFocused();
    } else {
      await page.keyboard.press('Tab');
      await expect(first.getByRole('button', { name: 'Approve once' })).toBeFocused();
    }
    await page.keyboard.press('Enter');
    await expect(item(page, key)).toHaveCount(0);
    await expect(items).toHaveCount(2 - answered);
    await expect(items.nth(0)).toBeFocused();
    const ask = await (await page.request.get(`/api/v1/asks/${key}`)).json();
    expect(ask.ask.ask.state.state).toBe('resolved');
  }

  // k stays on the last one left; Enter opens its thread with the ask waiting there.
  const last = (await items.nth(0).getAttribute('data-key'))!;
  expect(runs).toContain(last.split(':')[0]);
  await page.keyboard.press('k');
  await expect(items.nth(0)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('region', { name: 'Pending asks' }).locator(`[data-ask-id="${last.split(':')[1]}"]`)).toBeVisible();
});

test('the inbox filters by kind, and a viewer sees it read-only', async ({ page, baseURL }, testInfo) => {
  const { user, tenant } = freshTenant();
  await signIn(page, baseURL!, user);
  const approval = await startRun(page.request, 'busy');
  const question = await startRun(page.request, 'clarify');
  await openHydrated(page, '/');
  await expect(inbox(page).locator('li.inbox-item')).toHaveCount(2);
  await testInfo.attach('inbox', { body: await page.screenshot(), contentType: 'image/png' });
  await page.getByRole('combobox', { name: 'Kind' }).selectOption('clarify');
  await expect(inbox(page).locator('li.inbox-item')).toHaveCount(1);
  await expect(item(page, `${question}:clarify-color`)).toBeVisible();
  await expect(page.getByText('Showing 1 of 2 waiting asks.')).toBeVisible();
  await page.getByRole('combobox', { name: 'Kind' }).selectOption('');
  await expect(inbox(page).locator('li.inbox-item')).toHaveCount(2);

  const viewer = `vera-${Date.now()}`;
  addUser(viewer, tenant, 'viewer');
  await signIn(page, baseURL!, viewer);
  await openHydrated(page, '/');
  const card = item(page, `${approval}:busy-third`);
  await expect(card.getByRole('button', { name: 'Approve once' })).toBeDisabled();
  await expect(page.getByRole('note').filter({ hasText: 'You are a viewer in this tenant' })).toHaveCount(1);
});

test('running now shows a run in progress with its last activity, and Stop ends it', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  await openHydrated(page, '/');
  const running = page.getByRole('list', { name: 'Runs in progress' });
  await expect(page.getByText('No run is in progress.')).toBeVisible();
  const run = await startRun(page.request, 'slow');
  const row = running.locator(`li[data-run-id="${run}"]`);
  await expect(row.getByRole('link', { name: 'slow' })).toBeVisible();
  await expect(row).toContainText('working on it, this will take a while');
  await expect(row.getByLabel('Running for')).toHaveText(/\d+ s/);
  // The inbox's head says there is running work, and leads to it.
  await expect(page.getByRole('link', { name: '1 run in progress' })).toHaveAttribute('href', '#running-now');
  await row.getByRole('button', { name: 'Stop the run in slow' }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByText('No run is in progress.')).toBeVisible();
  await expect(page.getByRole('link', { name: /runs? in progress/ })).toHaveCount(0);
  const stopped = await (await page.request.get(`/api/v1/runs/${run}`)).json();
  expect(stopped.run.status).toBe('cancelled');
});

test('"Running now" counts a run started after the inbox was read, when the inbox is reached from the sidebar', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  await openHydrated(page, '/');
  // The inbox is read now; the run starts well after, while this tab shows a thread.
  await page.waitForTimeout(5_000);
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/new$/);
  await startRun(page.request, 'long 1 30');
  await page.waitForTimeout(3_000);
  await page.getByRole('link', { name: /^Inbox/ }).click();
  await expect(page).toHaveURL(/\/$/);
  const elapsed = page.locator('.running-item .elapsed').first();
  await expect(elapsed).toHaveText(/^([2-9]|\d\d) s$/, { timeout: 2_000 });
  const first = Number((await elapsed.textContent())?.split(' ')[0]);
  await expect(elapsed).not.toHaveText(`${first} s`, { timeout: 3_000 });
  await page.locator('.running-item').first().getByRole('button', { name: /^Stop the run/ }).click();
});

test('the inbox is a triage list: a dozen asks fit one screen, one line each, the top one open', async ({ page, baseURL }, testInfo) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  await page.setViewportSize({ width: 1440, height: 900 });
  for (let n = 0; n < 12; n += 1) {
    await startRun(page.request, n % 3 === 0 ? 'clarify' : 'busy');
  }
  await openHydrated(page, '/');
  const items = inbox(page).locator('li.inbox-item');
  await expect(items).toHaveCount(12);
  await expect(page.getByText('12 asks are waiting.')).toBeVisible();
  // About ten rows in view at once, not two or three cards.
  let inView = 0;
  for (let n = 0; n < 12; n += 1) {
    const box = await items.nth(n).locator('.inbox-question').boundingBox();
    if (box && box.y + box.height <= 900) inView += 1;
  }
  expect(inView).toBeGreaterThanOrEqual(9);
  await testInfo.attach('inbox as a triage list', { body: await page.screenshot(), contentType: 'image/png' });

  // The top row is open with its card; the others are one line until opened.
  await expect(items.nth(0)).toHaveAttribute('data-open', 'true');
  await expect(items.nth(0).locator('.ask-card')).toBeVisible();
  await expect(items.nth(3).locator('.ask-card')).toBeHidden();
  const toggle = items.nth(3).locator('.inbox-question');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(items.nth(3).locator('.ask-card')).toBeVisible();
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(items.nth(3).locator('.ask-card')).toBeHidden();
  // Reached with j, a row opens while focus is on it.
  await page.keyboard.press('j');
  await expect(items.nth(4)).toBeFocused();
  await expect(items.nth(4).locator('.ask-card')).toBeVisible();
});

test('the asks of one run are listed together, where the run comes from said once', async ({ page, baseURL }) => {
  const { user } = freshTenant();
  await signIn(page, baseURL!, user);
  await startRun(page.request, 'clarify');
  await startRun(page.request, 'approve');
  await startRun(page.request, 'clarify');
  await openHydrated(page, '/');
  const items = inbox(page).locator('li.inbox-item');
  await expect(items).toHaveCount(4);
  // Newest first puts the two decisions of `approve` between the clarify runs' asks,
  // next to each other: the second hangs under the first without its thread and run.
  await page.getByLabel('Order').selectOption('newest');
  const runs = await items.evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.key!.split(':')[0]));
  expect(new Set(runs).size).toBe(3);
  const paired = runs.findIndex((run, at) => at > 0 && runs[at - 1] === run);
  expect(paired).toBeGreaterThan(0);
  await expect(items.nth(paired)).toHaveAttribute('data-continues', 'true');
  await expect(items.nth(paired).locator('.inbox-thread')).toBeHidden();
  await expect(items.nth(paired - 1).locator('.inbox-thread')).toBeVisible();
  await expect(items.nth(paired).locator('.inbox-question')).toContainText('same run as above');
  await expect(inbox(page).locator('li.inbox-item[data-continues="true"]')).toHaveCount(1);
});
