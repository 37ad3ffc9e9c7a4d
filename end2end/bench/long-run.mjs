// Long-run benchmark: a run of 10,000 timeline items in headless Chromium.
// Prints time to first render, hydration time, catch-up time for a live viewer, and the
// frame times while 200 deltas a second stream into the same page. Figures, no verdicts.
//
// Usage: BASE_URL=http://127.0.0.1:3000 AGENT_OS_USER=… AGENT_OS_PASSWORD=… \
//          node bench/long-run.mjs [items] [stream-seconds]
// (scripts/bench-ui.sh makes the user and passes both.)
import { chromium } from '@playwright/test';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:3000';
const items = Number(process.argv[2] ?? 10000);
const streamSeconds = Number(process.argv[3] ?? 20);
const loads = 3;

// The signed-in browser context: its pages and its API calls share the session cookie.
let context;

async function api(path, body) {
  const response = await context.request.fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok()) throw new Error(`${path}: HTTP ${response.status()} ${await response.text()}`);
  return response.json();
}

async function startRun(words) {
  const { thread } = await api('/api/v1/threads', { agent: 'demo' });
  const { run } = await api(`/api/v1/threads/${thread.id}/messages`, { text: words });
  return { thread: thread.id, run: run.id };
}

// Polls the thread (cheap) rather than the run's projection (10,000 items).
async function waitForRun({ thread, run }, done) {
  for (;;) {
    const { runs } = await api(`/api/v1/threads/${thread}`);
    const state = runs.find((candidate) => candidate.id === run);
    if (done(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values) => percentile(values, 50);
const ms = (value) => `${value.toFixed(1)} ms`;

// Records when the page hydrated (the body gets data-hydrated) and every long task.
const probes = () => {
  window.__bench = { longTasks: [] };
  new MutationObserver((_, observer) => {
    if (document.body?.dataset.hydrated === 'true') {
      window.__bench.hydratedAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-hydrated'] });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__bench.longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: true });
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
await context.addInitScript(probes);
await api('/api/v1/auth/login', { username: process.env.AGENT_OS_USER, password: process.env.AGENT_OS_PASSWORD });

console.log(`long-run benchmark: ${items} items, ${streamSeconds} s of 200 deltas/s, ${base}`);

// 1. A finished run of `items` items: first render and hydration, median of `loads` loads.
const finished = await startRun(`long ${items}`);
const stored = await waitForRun(finished, (run) => run.status !== 'running');
const loadFigures = [];
for (let i = 0; i < loads; i++) {
  const page = await context.newPage();
  await page.goto(`${base}/threads/${finished.thread}`);
  await page.waitForFunction(() => window.__bench.hydratedAt !== undefined, null, { timeout: 120_000 });
  loadFigures.push(await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return {
      html: nav.responseEnd,
      htmlBytes: nav.transferSize,
      firstRender: paint?.startTime ?? NaN,
      domContentLoaded: nav.domContentLoadedEventEnd,
      hydrated: window.__bench.hydratedAt,
      nodes: document.getElementsByTagName('*').length,
      rows: document.querySelectorAll('[role=log] .item').length,
    };
  }));
  await page.close();
}
const pick = (key) => median(loadFigures.map((figure) => figure[key]));
console.log(`stored run: ${stored.status}, ${stored.last_sequence ?? '?'} events`);
console.log(`page HTML received      ${ms(pick('html'))} (${(pick('htmlBytes') / 1024).toFixed(0)} KiB on the wire)`);
console.log(`time to first render    ${ms(pick('firstRender'))} (first contentful paint)`);
console.log(`hydration               ${ms(pick('hydrated') - pick('domContentLoaded'))} (DOMContentLoaded to interactive; ${ms(pick('hydrated'))} from navigation)`);
console.log(`DOM                     ${pick('nodes')} elements, ${pick('rows')} timeline rows rendered of ${items}`);

// 2. A viewer who watches the run from its first event: when the last item shows.
{
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error).slice(0, 300)));
  const live = await startRun(`long ${items}`);
  const opened = Date.now();
  try {
    await page.goto(`${base}/threads/${live.thread}`);
    await page.waitForFunction(() => window.__bench.hydratedAt !== undefined, null, { timeout: 120_000 });
    await page.getByText(`task ${items - 1}"`, { exact: false }).first().waitFor({ timeout: 300_000 });
    const serverDone = await waitForRun(live, (run) => run.status !== 'running');
    console.log(`live viewer caught up   ${ms(Date.now() - opened)} after opening (${serverDone.last_sequence ?? '?'} events)`);
  } catch (error) {
    // Said, and the benchmark goes on to its last part.
    console.log(`live viewer FAILED      ${String(error).split('\n')[0]}${errors.length ? `; page error: ${errors[0]}` : ''}`);
    await waitForRun(live, (run) => run.status !== 'running');
  }
  await page.close();
}

// 3. Frame times while 200 deltas/s stream into a page that already holds `items` items.
{
  const streaming = await startRun(`long ${items} ${streamSeconds}`);
  await waitForRun(streaming, (run) => (run.last_sequence ?? 0) > items * 3);
  const page = await context.newPage();
  await page.goto(`${base}/threads/${streaming.thread}`);
  await page.waitForFunction(() => window.__bench.hydratedAt !== undefined, null, { timeout: 120_000 });
  const window_ms = Math.max(2, streamSeconds - 8) * 1000;
  const frames = await page.evaluate(async (duration) => {
    const live = () => [...document.querySelectorAll('[role=log] .item')].map((e) => e.textContent).join('').match(/w\d+ /g)?.length ?? 0;
    const wordsBefore = live();
    window.__bench.longTasks.length = 0;
    const deltas = [];
    await new Promise((resolve) => {
      let last = performance.now();
      const start = last;
      const tick = (now) => {
        deltas.push(now - last);
        last = now;
        if (now - start < duration) requestAnimationFrame(tick); else resolve();
      };
      requestAnimationFrame(tick);
    });
    return { deltas, longTasks: window.__bench.longTasks, words: live() - wordsBefore };
  }, window_ms);
  const { deltas, longTasks, words } = frames;
  // A frame that took longer than 20 ms missed at least one 60 Hz vsync.
  const missed = deltas.filter((d) => d > 20).length;
  console.log(`streaming               ${words} deltas shown in ${(window_ms / 1000).toFixed(0)} s (${(words / (window_ms / 1000)).toFixed(0)}/s)`);
  console.log(`frame time              p50 ${ms(percentile(deltas, 50))}, p95 ${ms(percentile(deltas, 95))}, p99 ${ms(percentile(deltas, 99))}, max ${ms(Math.max(...deltas))}; ${missed} of ${deltas.length} frames missed a vsync (over 20 ms)`);
  console.log(`long tasks (>50 ms)     ${longTasks.length}${longTasks.length ? `, longest ${ms(Math.max(...longTasks))}` : ''}`);
  await page.close();
}

await browser.close();
