import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addUser, askLane, expect, openHydrated, signIn, suiteUser, test, timeline } from './helpers';
import { freePort, OwnServer } from './own-server';

// These tests start, kill and restart a server of their own on one data directory.

let server: OwnServer;
let dataDir: string;

test.beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agent-os-restart-'));
  server = new OwnServer(await freePort(), dataDir);
  addUser(suiteUser, 'default', 'owner', dataDir);
  await server.start();
});

test.afterEach(async () => {
  await server.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startOn(page: import('@playwright/test').Page, words: string) {
  await signIn(page, server.url);
  await openHydrated(page, `${server.url}/new`);
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(words);
  await composer.press('Enter');
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
}

test('the server killed mid-run: "Reconnecting…", then the run resumes from its last sequence with no gap or duplicate', async ({ page }) => {
  await startOn(page, 'slow');
  const log = timeline(page);
  await expect(log.getByText('working on it, this will take a while')).toBeVisible();
  const connection = page.locator('.connection');
  await expect(connection).toHaveText('Live');

  await server.kill();
  await expect(connection).toHaveText('Reconnecting…');
  await expect(log.getByText('working on it, this will take a while')).toBeVisible();

  await server.start();
  // The stream resumes with Last-Event-ID and carries the recovery's verdict.
  await expect(log.locator('.error-card')).toContainText('the server restarted while this run was streaming');
  await expect(page.locator('.run-status[data-status="failed"]')).toBeVisible();
  await expect(log.getByText('working on it, this will take a while')).toHaveCount(1);

  await page.getByRole('button', { name: 'Arrival order' }).click();
  // The page left the arrivals before the restart out; they are read on this first look
  // and the ones streamed since follow them.
  await expect(log.locator('.arrival').first()).toBeVisible();
  const sequences = (await log.locator('.arrival .seq').allTextContents()).map((text) => Number(text.slice(1)));
  expect(sequences.length).toBeGreaterThan(3);
  expect(sequences).toEqual(sequences.map((_, index) => index + 1));
});

test('a server told to stop ends its live streams: the page says "Reconnecting…" while it is gone, never "Live"', async ({ page }) => {
  await startOn(page, 'slow');
  const log = timeline(page);
  await expect(log.getByText('working on it, this will take a while')).toBeVisible();
  const connection = page.locator('.connection');
  await expect(connection).toHaveText('Live');

  const stopped = server.stop();
  await expect(connection).toHaveText('Reconnecting…');
  await stopped;
  await expect(connection).toHaveText('Reconnecting…');

  await server.start();
  await expect(log.locator('.error-card')).toContainText('the server restarted while this run was streaming');
  await expect(connection).not.toHaveText('Live');
});

test('a pending ask survives a server kill and restart and is still answerable once', async ({ page }) => {
  await startOn(page, 'approve');
  const lane = askLane(page);
  await expect(lane.getByRole('dialog', { name: 'Approve the budget?' })).toBeVisible();

  await server.kill();
  await expect(page.locator('.connection')).toHaveText('Reconnecting…');
  await server.start();

  await openHydrated(page, page.url());
  await lane.getByRole('dialog', { name: 'Approve the budget?' }).getByRole('button', { name: 'Approve once' }).click();
  await lane.getByRole('dialog', { name: 'Confirm the date?' }).getByRole('button', { name: 'Approve once' }).click();
  await expect(timeline(page).getByText('Both approved. Booked.')).toBeVisible();
  await expect(lane.getByRole('dialog')).toHaveCount(0);
});

test('a password lost in a crash opens its ask again on the page that sent it, without a reload', async ({ page }) => {
  // The server holds the closed ask long enough for the page to see it close, then stops
  // before the password reaches the agent; a password is never stored.
  await server.kill();
  await server.start({ AGENT_OS_PAUSE_AT: 'after-close', AGENT_OS_CRASH_AT: 'after-close' });
  await startOn(page, 'sudo');
  const lane = askLane(page);
  const card = lane.getByRole('form', { name: 'sudo needs your password' });
  await card.getByLabel('Password', { exact: true }).fill('hunter2-lost');
  await card.getByRole('button', { name: 'Send password' }).click();
  await expect(lane.getByRole('form')).toHaveCount(0);
  await server.exited();

  await server.start();
  // The restart opens the ask again; the page learns it from the live inbox.
  await expect(card).toBeVisible({ timeout: 45_000 });
  await expect(timeline(page).getByText('must be entered again')).toBeVisible();
  await card.getByLabel('Password', { exact: true }).fill('hunter2-again');
  await card.getByRole('button', { name: 'Send password' }).click();
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
});
