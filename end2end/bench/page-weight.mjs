// Page-weight benchmark: what the browser fetches of the bundle (wasm, JS, CSS; bytes as
// sent, gzip) before a page is interactive, for each page opened directly in a fresh
// browser, and for a thread reached from the home page. Figures, no verdicts.
//
// Usage: BASE_URL=http://127.0.0.1:3000 AGENT_OS_USER=… AGENT_OS_PASSWORD=… \
//          node bench/page-weight.mjs
// (scripts/bench-weight.sh makes the user and passes both). WEIGH_FILES=1 lists each file.
import { chromium } from '@playwright/test';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:3000';

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});

// A signed-in context with an empty cache: its storage state carries the session only.
const signIn = await browser.newContext();
const login = await signIn.request.post(`${base}/api/v1/auth/login`, {
  data: { username: process.env.AGENT_OS_USER, password: process.env.AGENT_OS_PASSWORD },
});
if (!login.ok()) throw new Error(`sign-in: HTTP ${login.status()}`);
const session = await signIn.storageState();
const created = await signIn.request.post(`${base}/api/v1/threads`, { data: { agent: 'demo' } });
const { thread } = await created.json();
await signIn.request.post(`${base}/api/v1/threads/${thread.id}/messages`, { data: { text: 'hello' } });
await signIn.close();

/** Opens `path` in a fresh context, runs `then` once it is interactive, and sums the
 * bundle files fetched meanwhile. */
async function weigh(path, then) {
  const context = await browser.newContext({ storageState: session });
  const page = await context.newPage();
  const fetched = [];
  page.on('requestfinished', async (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/pkg/')) return;
    const sizes = await request.sizes();
    fetched.push({ file: url.pathname, bytes: sizes.responseBodySize });
  });
  await page.goto(`${base}${path}`);
  await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 60_000 });
  if (then) await then(page);
  // Late chunks (preloads the page started) finish too.
  await page.waitForLoadState('networkidle');
  await context.close();
  if (process.env.WEIGH_FILES) {
    for (const { file, bytes } of fetched.sort((a, b) => b.bytes - a.bytes)) console.log(`  ${path} ${file} ${bytes}`);
  }
  const kinds = { wasm: 0, js: 0, css: 0 };
  for (const { file, bytes } of fetched) kinds[file.split('.').pop()] += bytes;
  const total = kinds.wasm + kinds.js + kinds.css;
  return { files: fetched.length, ...kinds, total };
}

const pages = [
  ['home (inbox)', '/'],
  ['thread', `/threads/${thread.id}`],
  ['sign-in', '/login'],
  ['notes', '/notes'],
  ['memory', '/memory'],
  ['members', '/members'],
  ['gallery', '/gallery'],
];
const number = (value) => value.toLocaleString('en-US');
console.log(`page weight: bundle bytes as sent (gzip) before the page is interactive, ${base}`);
console.log('page                         files       wasm        JS       CSS     total');
const row = (name, w) => console.log(
  `${name.padEnd(28)} ${String(w.files).padStart(5)} ${number(w.wasm).padStart(10)} ${number(w.js).padStart(9)} ${number(w.css).padStart(9)} ${number(w.total).padStart(9)}`,
);
for (const [name, path] of pages) row(name, await weigh(path));
row('home, then a thread', await weigh('/', async (page) => {
  await page.locator(`a[href="/threads/${thread.id}"]`).first().click();
  await page.getByRole('textbox', { name: /message/i }).first().waitFor({ timeout: 60_000 });
}));
await browser.close();
