/**
 * A run's output in the window, end to end: real `runwarden exec` runners, `runwarden serve` on the same
 * store, Debian's Chromium. The run detail shows stdout and stderr in order, keeps hostile output inert,
 * shows the failure reason quoting stderr, and follows a live run on pushes alone.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  createWorkspace,
  openUi,
  runCli,
  runIdOf,
  screenshot,
  startServe,
  type Served,
  type Workspace,
} from './harness';

let ws: Workspace;
let served: Served;
const children: Array<{ killTree: (signal?: NodeJS.Signals) => void }> = [];

test.beforeEach(async () => {
  ws = createWorkspace();
  served = await startServe(ws);
});

test.afterEach(async () => {
  for (const cli of children.splice(0)) cli.killTree('SIGKILL');
  await served.stop();
  ws.cleanup();
});

test('a failed run shows both streams in order, inert, with the reason quoting stderr', async ({ page }) => {
  const hostile =
    "printf '\\033]0;owned\\007\\033[2J\\033[31mred\\033[0m <img src=x onerror=window.pwned=1>\\n'; " +
    "printf '<script>window.pwned=2</script>\\033]8;;javascript:alert(1)\\033\\\\link\\n' >&2";
  // Pauses between the writes: two pipes carry no order of their own (docs/RUN-OUTPUT.md#capture).
  const exec = runCli(ws, [
    'exec',
    '--title',
    'Release',
    '--',
    'sh',
    '-c',
    `echo hi; echo oops >&2; sleep 0.2; ${hostile.replace('; printf', '; sleep 0.2; printf')}; exit 2`,
  ]);
  children.push(exec);
  const runId = await runIdOf(exec);
  expect(await exec.exited).toBe(2);

  await openUi(page, served, `#/all?run=${runId}`);
  const lines = page.getByTestId('log-lines').getByRole('listitem');
  await expect(lines).toHaveText([
    /out\s*hi/,
    /err\s*oops/,
    /out\s*red <img src=x onerror=window\.pwned=1>/,
    /err\s*<script>window\.pwned=2<\/script>link/,
  ]);
  await expect(page.locator('dd.error-text')).toHaveText(
    'sh exited with code 2; last stderr: oops / <script>window.pwned=2</script>link',
  );
  const log = page.getByTestId('run-log');
  expect(await log.locator('img, script, a').count()).toBe(0);
  await expect(log.getByText('red', { exact: true })).toHaveClass(/ansi-red-fg/);
  expect(await page.evaluate(() => (window as { pwned?: unknown }).pwned)).toBeUndefined();
  expect(await page.title()).not.toContain('owned');
  // The window has no desktop to open files with: no "Open file" in browser mode.
  await expect(log.getByRole('button', { name: 'Open file' })).toHaveCount(0);
  await log.getByRole('searchbox', { name: 'Search output' }).fill('oops');
  await expect(lines).toHaveText([/err\s*oops/]);
  await screenshot(page, 'run-output-failed');
});

test('the run detail follows a live run on pushes, without polling', async ({ page }) => {
  const go = join(ws.dir, 'go');
  const exec = runCli(ws, [
    'exec',
    '--title',
    'Live',
    '--',
    'sh',
    '-c',
    // Also ends when the workspace is removed, so a failed test leaves no loop behind.
    `echo started; while [ ! -f ${go} ] && [ -d ${ws.dir} ]; do sleep 0.1; done; echo after go >&2; sleep 0.3; echo finished`,
  ]);
  children.push(exec);
  const runId = await runIdOf(exec);
  const reads: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/invoke/runs:log')) reads.push(request.postData() ?? '');
  });
  await openUi(page, served, `#/all?run=${runId}`);
  const lines = page.getByTestId('log-lines').getByRole('listitem');
  await expect(lines).toHaveText([/out\s*started/]);
  // The command is idle: once the pushes of its start are answered (the sweeper reports the run's start
  // within its 2 s interval), the page asks for nothing more until the log grows (a polling loop would
  // read in any window of this length).
  await page.waitForTimeout(2500);
  const idleFrom = reads.length;
  await page.waitForTimeout(2500);
  expect(reads.slice(idleFrom)).toEqual([]);
  writeFileSync(go, '');
  await expect(lines).toHaveText([/out\s*started/, /err\s*after go/, /out\s*finished/]);
  expect(await exec.exited).toBe(0);
  await expect(page.getByTestId('run-log')).not.toContainText('live');
  const followReads = reads.slice(idleFrom).map((body) => JSON.parse(body) as { afterSeq?: number });
  expect(followReads.length).toBeGreaterThan(0);
  expect(followReads.every((body) => typeof body.afterSeq === 'number')).toBe(true);
});
