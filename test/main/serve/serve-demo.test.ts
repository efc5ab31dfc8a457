/**
 * `runwarden serve` against a `runwarden demo` store answers every contract channel over real HTTP: both
 * real processes, the same handlers the desktop app uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, type Channel } from '../../../shared/channel-names';
import type { Result } from '../../../shared/errors';
import type { RunPage } from '../../../shared/views';
import { killQuietly, runJson, spawnCli, tempDir, type CliProcess, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let serve: CliProcess;
let base = '';
let token = '';

beforeAll(async () => {
  dir = tempDir();
  const demo = await runJson(['demo', '--no-live', '--dir', dir.path], {
    store: dir.store,
    timeoutMs: 60_000,
  });
  if (demo.code !== 0) throw new Error(`runwarden demo failed (${demo.code}): ${demo.stderr}`);
  serve = spawnCli(['serve', '--json'], { store: dir.store, timeoutMs: 120_000 });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const nl = serve.stdout.indexOf('\n');
      if (nl >= 0) {
        clearInterval(timer);
        resolve(serve.stdout.slice(0, nl));
      }
    }, 50);
    serve.done.then(
      (r) => reject(new Error(`serve exited ${r.code}: ${r.stderr}`)),
      (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))),
    );
  });
  const info = JSON.parse(line) as { port: number; token: string };
  base = `http://127.0.0.1:${info.port}`;
  token = info.token;
});

afterAll(async () => {
  killQuietly(serve?.child.pid, 'SIGTERM');
  await serve?.done.catch(() => undefined);
  dir?.remove();
});

async function invoke<T>(channel: Channel, input: unknown): Promise<Result<T>> {
  const res = await fetch(`${base}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Result<T>;
}

/** The newest run of a view whose display status is exactly `status` (views can hold several). */
async function firstOf(view: string, status = view): Promise<RunPage['items'][number]> {
  const page = await invoke<RunPage>('runs:list', { view, limit: 50 });
  const item = page.ok ? page.value.items.find((i) => i.display.status === status) : undefined;
  if (item === undefined) throw new Error(`the demo has no ${status} run`);
  return item;
}

describe('runwarden serve on a demo store', () => {
  it('answers every contract channel with a value', async () => {
    const stale = await firstOf('stale');
    const asking = await firstOf('needs-answer');
    const ambiguous = await firstOf('ambiguous');
    const failed = await firstOf('failed');
    const running = await firstOf('running');
    const parked = await firstOf('parked');
    const detail = await invoke<{
      snapshot: { interactions: Array<{ id: string; revision: number; choices: string[] | null }> };
    }>('runs:detail', { runId: asking.run.id });
    const question = detail.ok ? detail.value.snapshot.interactions[0] : undefined;
    const effect = ambiguous.run.id;
    const effectDetail = await invoke<{ snapshot: { effects: Array<{ id: number; status: string }> } }>(
      'runs:detail',
      { runId: effect },
    );
    const ambiguousEffect = effectDetail.ok
      ? effectDetail.value.snapshot.effects.find((e) => e.status === 'ambiguous')
      : undefined;
    expect(question).toBeDefined();
    expect(ambiguousEffect).toBeDefined();

    const inputs: Record<Channel, unknown> = {
      'projects:list': {},
      'runs:list': { view: 'all', limit: 20 },
      'runs:detail': { runId: stale.run.id },
      'runs:log': { runId: stale.run.id, tail: 50 },
      'runs:openLog': { runId: stale.run.id },
      'runs:previewCancel': { runId: stale.run.id },
      'runs:bulk': {
        action: 'retry',
        items: [{ runId: failed.run.id, expectedRevision: failed.run.revision }],
        dryRun: true,
        reason: 'preview only',
      },
      'runs:cancel': { runId: stale.run.id, expectedRevision: stale.run.revision, reason: 'runner is gone' },
      'runs:requestCancel': {
        runId: running.run.id,
        expectedRevision: running.run.revision,
        reason: 'not needed',
      },
      'runs:requestPause': {
        runId: running.run.id,
        expectedRevision: running.run.revision + 1,
        reason: 'later',
      },
      'runs:pause': { runId: parked.run.id, expectedRevision: parked.run.revision, reason: 'hold it' },
      'runs:resume': { runId: parked.run.id, expectedRevision: parked.run.revision + 1, anyway: true },
      // The demo's failed build already has a retry in the queue: only `again` asks for a second one.
      'runs:retry': { runId: failed.run.id, expectedRevision: failed.run.revision, again: true },
      // The demo's runners are made up: no command of theirs lives here, so the store refuses to signal.
      'runs:stopCommand': { runId: stale.run.id, expectedRevision: stale.run.revision, reason: 'stop it' },
      'effects:resolve': {
        effectId: ambiguousEffect?.id,
        expectedRevision: ambiguous.run.revision,
        resolution: 'not_applied',
        note: 'The provider has no record of it.',
      },
      'interactions:answer': {
        interactionId: question?.id,
        interactionRevision: question?.revision,
        idempotencyKey: 'serve-demo-answer-1',
        payload: question?.choices?.[0] ?? 'yes',
      },
      'attention:summary': { limit: 10 },
      'notifications:list': { limit: 10 },
      'notifications:markRead': { ids: 'all' },
      'settings:get': {},
      'settings:set': { patch: { notificationsPaused: true } },
      'store:info': {},
      'store:doctor': {},
      'cli:status': {},
      'cli:install': {},
      'cli:uninstall': {},
      'updates:status': {},
      'updates:check': {},
      'updates:restart': {},
      'remotes:list': {},
      // A closed port on loopback: attached, never reached; removed by the next channel.
      'remotes:add': { name: 'box', dest: 'ssh://127.0.0.1:1' },
      'remotes:remove': { name: 'box' },
      'remotes:call': { machine: 'box', channel: 'runs:list', input: {} },
    };
    const failures: string[] = [];
    // Refused as it should be: no command of the demo's made-up runners lives here (or the run moved on).
    const stopRefusals = new Set(['CONFLICT', 'STALE_VIEW', 'LIVE_OWNER']);
    for (const channel of CHANNELS) {
      const result = await invoke(channel, inputs[channel]);
      if (!result.ok && !(channel === 'runs:stopCommand' && stopRefusals.has(result.error.code)))
        failures.push(`${channel}: ${result.error.code} ${result.error.message}`);
    }
    // The demo's runs were not started by exec, so they have no log file to open: the one refusal.
    // Browser mode cannot put the desktop app's command on the PATH: the cli:* channels say so.
    const desktopOnly =
      "FORBIDDEN The runwarden command is put on the PATH from the desktop app's Settings, not from a browser.";
    // Nor check for or install the desktop app's updates; `updates:status` says why (below).
    const updatesDesktopOnly =
      "FORBIDDEN Updates are checked and installed from the desktop app's Settings, not from a browser.";
    expect(failures).toEqual([
      'runs:openLog: NOT_FOUND Run ' + stale.run.id + ' has no log file to open.',
      `cli:status: ${desktopOnly}`,
      `cli:install: ${desktopOnly}`,
      `cli:uninstall: ${desktopOnly}`,
      `updates:check: ${updatesDesktopOnly}`,
      `updates:restart: ${updatesDesktopOnly}`,
      'remotes:call: NOT_FOUND No remote machine named "box".',
    ]);
    const doctor = await invoke<{ contradictions: unknown[]; integrity: string }>('store:doctor', {});
    expect(doctor).toMatchObject({ ok: true, value: { contradictions: [], integrity: 'ok' } });
  });
});
