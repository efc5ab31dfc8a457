import { defineConfig } from '@playwright/test';

/** End-to-end tests: the real UI from `runwarden serve`, driven in Debian's Chromium (Playwright cannot download its own browser here). */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.e2e.ts',
  // Ends (and names) whatever the tests left running.
  globalSetup: './test/e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  // No retries: a failure is a defect to find (a row that did not show was the page missing the push for
  // a change made while it started: docs/ARCHITECTURE.md#the-pages-connection).
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.RUNWARDEN_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'off',
    screenshot: 'off',
  },
});
