import { defineConfig } from '@playwright/test';

/**
 * Real-Electron end-to-end tests (test/electron/): the built app launched with Playwright's `_electron`
 * on a temp store. Run through `npm run test:electron` (test/electron/run.js), which skips them with one
 * line where the Electron binary is not installed.
 */
export default defineConfig({
  testDir: 'test/electron',
  testMatch: '**/*.electron.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: 'test-results/electron',
});
