/**
 * A run's output in the window, end to end: real `runwarden exec` runners, `runwarden serve` on the same
 * store, Debian's Chromium. The run detail shows stdout and stderr in order, keeps hostile output inert,
 * shows the failure reason quoting stderr, and follows a live run on pushes alone.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
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

interface SeenPush {
  event: string;
  data: string;
}

/**
 * Records every push the page's stream delivers (window.seenPushes), before any script of the page runs: each
 * event once, however many listeners the page has for it.
 */
async function recordPushes(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: SeenPush[] = [];
    const counted = new WeakSet<Event>();
    (window as { seenPushes?: SeenPush[] }).seenPushes = seen;
    const add = EventSource.prototype.addEventListener;
    EventSource.prototype.addEventListener = function (
      this: EventSource,
      type: string,
      listener: EventListenerOrEventListenerObject,
      options?: boolean | AddEventListenerOptions,
    ) {
      const record = (event: Event) => {
        if (event instanceof MessageEvent && !counted.has(event)) {
          counted.add(event);
          seen.push({ event: type, data: String(event.data) });
        }
      };
      const wrapped = (event: Event) => {
        record(event);
        if (typeof listener === 'function') listener.call(this, event);
        else listener.handleEvent(event);
      };
      add.call(this, type, wrapped, options);
    } as typeof EventSource.prototype.addEventListener;
  });
}

async function pushesOf(page: Page): Promise<SeenPush[]> {
  return page.evaluate(() => [...((window as { seenPushes?: SeenPush[] }).seenPushes ?? [])]);
}

/** A push about this run: a `log` push for it, or a `changed` push listing it. */
function mentions(push: SeenPush, runId: string): boolean {
  const data = JSON.parse(push.data) as { runId?: string; runIds?: string[] };
  return data.runId === runId || (data.runIds ?? []).includes(runId);
}

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
  let readsInFlight = 0;
  const isLogRead = (url: string) => url.endsWith('/api/invoke/runs:log');
  page.on('request', (request) => {
    if (!isLogRead(request.url())) return;
    reads.push(request.postData() ?? '');
    readsInFlight += 1;
  });
  const settled = () => (readsInFlight -= 1);
  page.on('requestfinished', (request) => isLogRead(request.url()) && settled());
  page.on('requestfailed', (request) => isLogRead(request.url()) && settled());
  await recordPushes(page);
  await openUi(page, served, `#/all?run=${runId}`);
  const lines = page.getByTestId('log-lines').getByRole('listitem');
  await expect(lines).toHaveText([/out\s*started/]);
  // The command is idle, and the pushes of its start went out before the page's stream joined. A run of
  // another command is reported by the sweeper's next tick as a push about that run only: the
  // first such push shows the stream is live and that the page's opening reads are behind it; across the
  // next two (two more ticks) the page must ask for nothing, as a polling loop would.
  const otherRunReported = async (title: string) => {
    const other = runCli(ws, ['exec', '--title', title, '--', 'true']);
    children.push(other);
    const otherId = await runIdOf(other);
    expect(await other.exited).toBe(0);
    await expect
      .poll(async () => (await pushesOf(page)).some((p) => p.event === 'changed' && mentions(p, otherId)))
      .toBe(true);
  };
  await otherRunReported('Other 1');
  await expect.poll(() => readsInFlight).toBe(0);
  const idleFrom = reads.length;
  const pushesFrom = (await pushesOf(page)).length;
  await otherRunReported('Other 2');
  await otherRunReported('Other 3');
  const idlePushes = (await pushesOf(page)).slice(pushesFrom);
  expect(idlePushes.filter((p) => p.event === 'changed').length).toBeGreaterThanOrEqual(2);
  // Nothing in the window was about this run, and the page read nothing.
  expect(reads.length).toBeGreaterThan(0);
  expect(idlePushes.filter((p) => mentions(p, runId))).toEqual([]);
  expect(reads.slice(idleFrom)).toEqual([]);
  writeFileSync(go, '');
  await expect(lines).toHaveText([/out\s*started/, /err\s*after go/, /out\s*finished/]);
  expect(await exec.exited).toBe(0);
  await expect(page.getByTestId('run-log')).not.toContainText('live');
  const followReads = reads.slice(idleFrom).map((body) => JSON.parse(body) as { afterSeq?: number });
  expect(followReads.length).toBeGreaterThan(0);
  expect(followReads.every((body) => typeof body.afterSeq === 'number')).toBe(true);
});
