import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { askLane, expect, openHydrated, startScenario, test } from './helpers';

// What the console's page lets run, and what another site can do through the operator's
// browser. The server-side half (foreign Host, fetch metadata, JSON only) is pinned in
// server/tests/browsers.rs.

test('the page runs only its own scripts: injected inline script and handlers are blocked', async ({ page }) => {
  const policyErrors: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) policyErrors.push(message.text());
  });
  await startScenario(page, 'approve');
  await expect(askLane(page).getByRole('dialog').first()).toBeVisible();
  // Loading, hydrating and streaming a run break no rule of the policy.
  expect(policyErrors).toEqual([]);

  const blocked = await page.evaluate(() => new Promise<string[]>((resolve) => {
    const directives: string[] = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      directives.push(event.effectiveDirective);
      if (directives.length === 2) resolve(directives);
    });
    const holder = document.createElement('div');
    holder.innerHTML = '<img src="data:," onerror="window.__ranHandler = true">';
    document.body.append(holder);
    const script = document.createElement('script');
    script.textContent = 'window.__ranScript = true';
    document.body.append(script);
  }));
  expect(blocked.every((directive) => directive.startsWith('script-src'))).toBe(true);
  expect(await page.evaluate(() => (window as any).__ranHandler ?? (window as any).__ranScript)).toBeUndefined();
});

test('a page on another site cannot answer an ask through the operator\'s browser', async ({ page, request, baseURL }) => {
  // A waiting approval, started the way a client does.
  const created = await (await request.post('/api/v1/threads', { data: {} })).json();
  const thread = created.thread.id;
  const started = await (await request.post(`/api/v1/threads/${thread}/messages`, { data: { text: 'approve' } })).json();
  const run = started.run.id;
  const key = `${run}:approve-budget`;
  await expect.poll(async () => (await (await request.get(`/api/v1/asks/${key}`)).json()).ask?.ask?.state?.state,
    { timeout: 10_000 }).toBe('pending');

  const receipt = JSON.stringify({ channel: 'tool-result', receipt: {
    toolCallId: 'approve-budget', component: 'approval_card', action: 'once', data: {}, ts: '2026-12-02T20:00:00Z' } });
  const attack = `<!doctype html><title>attack</title><script>
    const base = ${JSON.stringify(baseURL)};
    const tries = [
      fetch(base + '/api/v1/asks/${key}/receipt', { method: 'POST', mode: 'no-cors', credentials: 'include', body: ${JSON.stringify(receipt)} }),
      fetch(base + '/api/v1/asks/${key}/receipt', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(receipt)} }),
      fetch(base + '/fn/answer_ask', { method: 'POST', mode: 'no-cors', credentials: 'include',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'run_id=${run}&ask_id=approve-budget&receipt=' + encodeURIComponent(${JSON.stringify(receipt)}) }),
    ].map((attempt) => attempt.then(() => 'sent', () => 'failed'));
    Promise.all(tries).then((outcomes) => { document.title = 'done ' + outcomes.join(' '); });
  </script>`;
  // Another site on this machine (a page the operator has open on localhost, say), served
  // for real: a page without an address counts as public, and the browser would block its
  // requests to loopback by itself, proving nothing about the server.
  const elsewhere = http.createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(attack);
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  const { port } = elsewhere.address() as AddressInfo;
  await page.goto(`http://localhost:${port}/`);
  await expect(page).toHaveTitle(/^done /);
  elsewhere.close();

  // Nothing was answered: the ask still waits, and the console can answer it.
  const ask = await (await request.get(`/api/v1/asks/${key}`)).json();
  expect(ask.ask.ask.state.state).toBe('pending');
  await openHydrated(page, `/threads/${thread}`);
  await askLane(page).getByRole('dialog', { name: /budget/ }).getByRole('button', { name: 'Approve once' }).click();
  await expect.poll(async () => (await (await request.get(`/api/v1/asks/${key}`)).json()).ask.ask.state.state)
    .toBe('resolved');
});
