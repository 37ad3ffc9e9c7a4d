import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from '@playwright/test';
import { askLane, expect, startScenario, test, timeline } from './helpers';

/** Every byte under the server's data directory: the database, its WAL and anything else. */
function storedBytes(): Buffer[] {
  const root = process.env.AGENT_OS_DATA_DIR;
  if (!root) {
    throw new Error('AGENT_OS_DATA_DIR is not set: run the suite with `make test`');
  }
  const files: Buffer[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(readFileSync(path));
    }
  };
  walk(root);
  return files;
}

/** Every response body the page received, except live streams (read separately below). */
function recordResponses(page: Page): Promise<string>[] {
  const bodies: Promise<string>[] = [];
  page.on('response', (response) => {
    if (!(response.headers()['content-type'] ?? '').includes('text/event-stream')) {
      bodies.push(response.text().catch(() => ''));
    }
  });
  return bodies;
}

async function expectNowhere(page: Page, value: string, responses: Promise<string>[]) {
  // Not in the DOM, as markup or as a field's value.
  expect(await page.content()).not.toContain(value);
  const fieldValues = await page.evaluate(() =>
    Array.from(document.querySelectorAll('input, textarea')).map((field) => (field as HTMLInputElement).value),
  );
  expect(fieldValues.join('\n')).not.toContain(value);
  // Not in browser storage.
  const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  expect(storage).not.toContain(value);
  // Not in any response the page received.
  for (const body of await Promise.all(responses)) {
    expect(body).not.toContain(value);
  }
  // Not in any stored event stream, nor in any byte of the store.
  const threadId = page.url().split('/').pop();
  const thread = await (await page.request.get(`/api/v1/threads/${threadId}`)).json();
  expect(thread.runs.length).toBeGreaterThan(1);
  for (const run of thread.runs) {
    const stream = await (await page.request.get(`/api/v1/runs/${run.id}/events`)).text();
    expect(stream).toContain('"kind":"run_started"');
    expect(stream).not.toContain(value);
  }
  const needle = Buffer.from(value);
  for (const bytes of storedBytes()) {
    expect(bytes.includes(needle)).toBe(false);
  }
}

test('sudo: a dedicated password field, no echo, and the value is kept nowhere afterwards', async ({ page }) => {
  const responses = recordResponses(page);
  const password = `hunter2-${Date.now()}`;
  await startScenario(page, 'sudo');
  const card = askLane(page).getByRole('form', { name: 'sudo needs your password' });
  await expect(card.getByText('sudo systemctl restart web')).toBeVisible();
  const field = card.getByLabel('Password', { exact: true });
  await expect(field).toHaveAttribute('type', 'password');
  await field.fill(password);
  await card.getByRole('button', { name: 'Send password' }).click();

  await expect(timeline(page).getByRole('status').filter({ hasText: 'sudo systemctl restart web' })).toBeVisible();
  await expect(askLane(page).getByRole('form')).toHaveCount(0);
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await expectNowhere(page, password, responses);
});

test('secret: a field named after the env var, redacted metadata shown, the value kept nowhere', async ({ page }) => {
  const responses = recordResponses(page);
  const token = `tok-${Date.now()}-xyz`;
  await startScenario(page, 'secret');
  const card = askLane(page).getByRole('form', { name: 'Paste the demo token' });
  // The agent's metadata waits behind Details.
  await expect(card.getByText('demo-skill')).toBeHidden();
  await card.getByText('Details', { exact: true }).click();
  await expect(card.getByText('demo-skill')).toBeVisible();
  const field = card.getByLabel('DEMO_TOKEN');
  await expect(field).toHaveAttribute('type', 'password');
  await field.fill(token);
  await card.getByRole('button', { name: 'Send to agent' }).click();

  await expect(timeline(page).locator('[data-receipt][data-state="resolved"]')).toBeVisible();
  await expect(page.locator('.run-status[data-status="succeeded"]')).toHaveCount(1);
  await expectNowhere(page, token, responses);
});

test('secret answered from the passvault: the agent gets the value, the browser never sees it', async ({ page }) => {
  const value = `vaulted-${Date.now()}-tok`;
  const name = `Demo token ${Date.now()}`;
  // Kept through the passvault page, then answered from the ask card on another page.
  await page.goto('/passvault');
  await page.getByText('Keep a new secret').click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel('Environment variable').fill('DEMO_TOKEN');
  await page.getByLabel('Value', { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Keep secret' }).click();
  await expect(page.getByRole('list', { name: 'Passvault entries' })).toContainText(name);

  const responses = recordResponses(page);
  await startScenario(page, 'secret');
  const card = askLane(page).getByRole('form', { name: 'Paste the demo token' });
  // A matching entry is the default answer; typing a value is the other way.
  await expect(card.getByRole('button', { name: 'Send from the passvault' })).toHaveClass(/primary/);
  await expect(card.getByRole('button', { name: 'Send to agent' })).not.toHaveClass(/primary/);
  await expect(card.getByLabel('Or type DEMO_TOKEN')).toBeVisible();
  await card.getByLabel('From the passvault').selectOption({ label: name });
  await card.getByRole('button', { name: 'Send from the passvault' }).click();

  // The agent says it saved it, and nothing made from the value; what it keeps for the
  // demo key's holder shows it got exactly this value.
  await expect(timeline(page)).toContainText('Saved DEMO_TOKEN.');
  const digest = createHash('sha256').update(value).digest('hex');
  const resumes = await (
    await page.request.get('/demo/resumes', { headers: { authorization: `Bearer ${process.env.AGENT_OS_DEMO_KEY}` } })
  ).text();
  expect(resumes).toContain(digest);
  await expect(timeline(page).locator('[data-receipt][data-state="resolved"]')).toContainText(`Sent from the passvault: ${name}`);
  await expectNowhere(page, value, responses);
  // The store has it sealed only.
  expect(storedBytes().some((bytes) => bytes.includes(Buffer.from('xc20p1.')))).toBe(true);
});
