import { defineConfig, devices } from '@playwright/test';

// The server under test is started by scripts/test.sh, which passes its address in
// BASE_URL. Browsers are never downloaded: Debian's Chromium runs the suite.
const baseURL = process.env.BASE_URL;
if (!baseURL) {
  throw new Error('BASE_URL is not set: run the suite with `make test`, which starts the server');
}

const chromium = {
  ...devices['Desktop Chrome'],
  viewport: { width: 1280, height: 800 },
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  },
};

export default defineConfig({
  outputDir: './test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL,
    screenshot: 'on',
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'chromium', testDir: './tests', use: chromium },
    // The client-side build (Trunk, `csr`) served by `trunk serve`, which proxies /fn and
    // /api to the same server; scripts/test.sh passes its address in CSR_BASE_URL.
    {
      name: 'csr',
      testDir: './tests-csr',
      use: { ...chromium, baseURL: process.env.CSR_BASE_URL ?? baseURL },
    },
  ],
});
