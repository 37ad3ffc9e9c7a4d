import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addUser, askLane, expect, openHydrated, signIn, suiteUser, test, timeline } from './helpers';

// These tests start, kill and restart a server of their own on one data directory.
const bin = process.env.AGENT_OS_BIN;
const siteRoot = process.env.AGENT_OS_SITE_ROOT;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

class OwnServer {
  private child?: ChildProcess;
  constructor(readonly port: number, readonly dataDir: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!bin || !siteRoot) {
      throw new Error('AGENT_OS_BIN and AGENT_OS_SITE_ROOT are not set: run the suite with `make test`');
    }
    this.child = spawn(bin, ['serve', '--addr', `127.0.0.1:${this.port}`, '--data-dir', this.dataDir, '--site-root', siteRoot], {
      stdio: 'ignore',
      env: { ...process.env, RUST_LOG: 'warn' },
    });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`${this.url}/healthz`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the server on port ${this.port} did not start`);
  }

  /** SIGTERM: the server is told to stop, as by a service manager. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** SIGKILL: no shutdown hook runs, as when the machine loses power. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

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
  await openHydrated(page, `${server.url}/`);
  await page.getByRole('button', { name: 'New thread' }).click();
  await expect(page).toHaveURL(/\/threads\/[0-9a-f-]{36}$/);
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(words);
  await composer.press('Enter');
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
