/**
 * The host's side of run output, with real `runwarden exec` processes on the host's store: the failure
 * notification quotes the command's stderr, a growing log becomes a `log` push (a watch on the logs
 * folder), `runs:log` reads it, `runs:openLog` hands only the store's own log files to the desktop.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushEvent } from '../../../shared/channel-names';
import { createAppHost } from '../../../main/services/app-host';
import type { AppHost, DesktopNotice } from '../../../main/services/host-types';
import { runCli, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let current: AppHost | null = null;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  current?.dispose();
  current = null;
  dir.remove();
});

function startHost(openPath?: (path: string) => void) {
  const pushes: Array<{ event: PushEvent; payload: unknown }> = [];
  const notices: DesktopNotice[] = [];
  const host = createAppHost({
    storePath: dir.store,
    surface: 'app',
    actorId: 'alice',
    notifier: { show: (n) => notices.push(n) },
    push: (event, payload) => pushes.push({ event, payload }),
    ...(openPath !== undefined && { openPath }),
  });
  current = host;
  host.start();
  return { host, pushes, notices };
}

const runIdIn = (stderr: string): string => /run (run_[A-Za-z0-9_]+)/.exec(stderr)?.[1] ?? '';

describe('run output through the host', () => {
  it('the failure notification quotes the last stderr line', async () => {
    const { host, notices } = startHost();
    const exec = await runCli(
      [
        'exec',
        '--project',
        dir.path,
        '--title',
        'Release',
        '--',
        'sh',
        '-c',
        'echo hi; echo oops >&2; exit 2',
      ],
      {
        store: dir.store,
      },
    );
    expect(exec.code).toBe(2);
    // Any person's write ticks the sweeper at once (the timer would, within a sweep interval).
    await host.dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 } });
    const failed = notices.find((n) => n.level === 'failure');
    expect(failed).toMatchObject({ title: 'Failed: Release', runId: runIdIn(exec.stderr) });
    expect(failed?.body).toContain('oops');
    expect(failed?.body).toBe(`${dir.path.split('/').at(-1)} — sh exited with code 2; last stderr: oops`);
  });

  it('pushes `log` while a run prints, and runs:log follows it from a cursor', async () => {
    const opened: string[] = [];
    const { host, pushes } = startHost((path) => opened.push(path));
    const exec = spawnCli(['exec', '--', 'sh', '-c', 'echo first; sleep 0.6; echo second >&2; sleep 0.6'], {
      store: dir.store,
    });
    const runId = await waitFor('the run id', () => runIdIn(exec.stderr) || undefined);
    await waitFor('a log push for the run', () =>
      pushes.some((p) => p.event === 'log' && (p.payload as { runId: string }).runId === runId),
    );
    // The first push can be the log file's creation, before the command's first line (a busy machine
    // starts `sh` late): read until the line is there.
    const page = await waitFor('the first line', async () => {
      const r = await host.dispatch('runs:log', { runId, tail: 100 });
      expect(r.ok).toBe(true);
      return r.ok && r.value.records.length > 0 ? r.value : undefined;
    });
    expect(page).toMatchObject({ generation: 1, live: true, canOpen: true, generations: [1] });
    expect(page.records.map((r) => r.text)).toEqual(['first']);
    const pushesBefore = pushes.filter((p) => p.event === 'log').length;
    await waitFor('a second log push', () => pushes.filter((p) => p.event === 'log').length > pushesBefore);
    const next = await waitFor('the second line after the cursor', async () => {
      const r = await host.dispatch('runs:log', { runId, afterSeq: page.lastSeq });
      return r.ok && r.value.records.length > 0 ? r.value : undefined;
    });
    expect(next.records.map((r) => [r.stream, r.text])).toEqual([['stderr', 'second']]);
    expect((await exec.done).code).toBe(0);
    const done = await host.dispatch('runs:log', { runId, tail: 10, stream: 'stdout' });
    expect(done.ok && done.value).toMatchObject({ live: false, records: [{ text: 'first' }] });

    expect(await host.dispatch('runs:openLog', { runId })).toEqual({ ok: true, value: { opened: true } });
    expect(opened).toEqual([join(`${dir.store}.logs`, `${runId}.log`)]);
  });

  it('a log whose runner was killed is not live: it will never grow again', async () => {
    const { host } = startHost(() => {});
    const exec = spawnCli(['exec', '--', 'sh', '-c', 'echo started; sleep 30'], { store: dir.store });
    const runId = await waitFor('the run id', () => runIdIn(exec.stderr) || undefined);
    const live = await waitFor('the first line', async () => {
      const r = await host.dispatch('runs:log', { runId, tail: 10 });
      return r.ok && r.value.records.length > 0 ? r.value : undefined;
    });
    expect(live.live).toBe(true);
    exec.child.kill('SIGKILL');
    await exec.done;
    const after = await host.dispatch('runs:log', { runId, tail: 10 });
    expect(after.ok && after.value).toMatchObject({ live: false, records: [{ text: 'started' }] });
  });

  it('a live log an older runner still writes in the shared logs/ folder is followed too', async () => {
    // Stores before per-store folders wrote logs to <store folder>/logs/; a live run's log stays there
    // until its run ends (the older runner keeps writing it), so the host watches that folder as well.
    const legacy = join(dirname(dir.store), 'logs');
    mkdirSync(legacy, { recursive: true });
    const file = join(legacy, 'run_legacy1.log');
    writeFileSync(file, '');
    const { pushes } = startHost();
    appendFileSync(
      file,
      `${JSON.stringify({ seq: 1, at: Date.now(), stream: 'stdout', text: 'still here' })}\n`,
    );
    const pushed = () =>
      pushes.some((p) => p.event === 'log' && (p.payload as { runId: string }).runId === 'run_legacy1');
    await waitFor('a log push for the run in the shared folder', pushed);
    expect(pushed()).toBe(true);
  });

  it('never reads or opens a file the store row points outside its logs folder', async () => {
    const opened: string[] = [];
    const { host } = startHost((path) => opened.push(path));
    const exec = await runCli(['exec', '--', 'echo', 'x'], { store: dir.store });
    const runId = runIdIn(exec.stderr);
    const { openStore } = await import('../../../main/store');
    const store = openStore(dir.store);
    store.db.prepare(`UPDATE run_logs SET path = '/etc/passwd' WHERE run_id = ?`).run(runId);
    store.close();
    const read = await host.dispatch('runs:log', { runId });
    expect(read).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const open = await host.dispatch('runs:openLog', { runId });
    expect(open).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(opened).toEqual([]);
    // Browser mode: no desktop to open files with.
    const served = await runCli(['exec', '--', 'echo', 'y'], { store: dir.store });
    host.dispose();
    const browser = startHost().host;
    const refused = await browser.dispatch('runs:openLog', { runId: runIdIn(served.stderr) });
    expect(refused).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    const page = await browser.dispatch('runs:log', { runId: runIdIn(served.stderr) });
    expect(page.ok && page.value.canOpen).toBe(false);
  });

  it('a retried run has its own log and links to the run it came from', async () => {
    const { host } = startHost();
    const exec = await runCli(['exec', '--', 'sh', '-c', 'echo try 1; exit 1'], { store: dir.store });
    const firstId = runIdIn(exec.stderr);
    const { openStore } = await import('../../../main/store');
    const store = openStore(dir.store);
    const retried = store.retryRun(firstId, { actor: { type: 'human', id: 'alice', surface: 'cli' } });
    store.close();
    const page = await host.dispatch('runs:log', { runId: retried.id });
    expect(page.ok && page.value).toMatchObject({ parentRunId: firstId, generation: null, records: [] });
    const earlier = await host.dispatch('runs:log', { runId: firstId });
    expect(earlier.ok && earlier.value.records.map((r) => r.text)).toEqual(['try 1']);
  });
});
