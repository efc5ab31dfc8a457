/**
 * docs/LIVENESS.md#outcomes-of-finished-commands and docs/RUN-OUTPUT.md#a-full-disk with the store on a 3 MB
 * tmpfs (test/helpers/small-disk.ts; needs root for `mount`, as CI runs; the mount is undone in every case):
 * - the command fills it, then exits 0: `runwarden exec` cannot record the outcome (DISK_FULL, said in
 *   words), keeps its lease past its expiry and tries again; once space returns it renews the lapsed lease
 *   and records the completion — exactly once;
 * - the disk fills before the command's first line and is freed while it runs, with no later output: the
 *   gap marker is written by itself while the command still runs, and `logs` / `logs --json` show it;
 * - `runwarden effect` whose command succeeded on the full disk keeps trying to record it, says so, and
 *   records it applied once space returns: not ambiguous, the run completes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { readWholeLog } from '../../main/logs/read-log';
import { openStore } from '../../main/store';
import type { LogRecord } from '../../shared/views';
import { runCli } from '../helpers/cli';
import { fillDisk, smallDisk } from '../helpers/small-disk';
import { lineCount, printCounts, runIdOf, spawnRunwarden, waitFor, type Spawned } from './liveness-kit';

const disk = smallDisk('runwarden-full-', '3m');
/** Control files the commands wait for, off the small disk. */
const control = mkdtempSync(join(tmpdir(), 'runwarden-full-ctl-'));
afterAll(() => rmSync(control, { recursive: true, force: true }));

it('disk full: the outcome of a finished command is recorded once space returns', async () => {
  const store = join(disk.path, 'state.sqlite');
  const project = join(disk.path, 'proj');
  mkdirSync(project);
  const fill = join(disk.path, 'fill');
  let exec: Spawned | null = null;
  try {
    exec = spawnRunwarden(
      [
        'exec',
        '--project',
        project,
        '--lease-ms',
        '1500',
        '--',
        'sh',
        '-c',
        `dd if=/dev/zero of=${fill} bs=16k 2>/dev/null; exit 0`,
      ],
      { store, cwd: project },
    );
    const running = exec;
    const runId = await runIdOf(running);
    await waitFor(
      'the runner to keep trying',
      () => running.stderr.includes('trying again until it is recorded'),
      30_000,
    );
    // The lease lapses while the disk is full (its renewals cannot be written).
    await waitFor('the lease to lapse', () => {
      const reader = openStore(store, { readonly: true });
      try {
        const expiresAt = reader.getSnapshot(runId).lease?.expiresAt;
        return expiresAt !== undefined && expiresAt !== null && Date.now() > expiresAt;
      } finally {
        reader.close();
      }
    });
    expect(running.child.exitCode, running.stderr).toBeNull();
    const during = openStore(store, { readonly: true });
    const statusDuring = during.getRun(runId).status;
    during.close();
    rmSync(fill);
    const end = await running.done;
    const after = openStore(store, { readonly: true });
    const detail = after.getRunDetail(runId, { eventsLimit: 200 });
    after.close();
    const completed = detail.events.filter((e) => e.type === 'run.completed').length;
    printCounts('disk full', {
      statusWhileFull: statusDuring,
      exit: end.code,
      completedEvents: completed,
      renewedLate: detail.events.filter((e) => e.type === 'run.lease_renewed_late').length,
      saidDiskFull: running.stderr.includes('disk holding the store is full'),
    });
    expect(statusDuring).toBe('running');
    expect(end.code, end.stderr).toBe(0);
    expect(running.stderr).toContain('The disk holding the store is full');
    expect(detail.snapshot.run.status).toBe('completed');
    expect(completed).toBe(1);
  } finally {
    exec?.child.kill('SIGKILL');
    rmSync(fill, { force: true });
  }
});

it('full before the first line, freed with no later output: the marker is written and shown', async () => {
  const store = join(disk.path, 'first-line.sqlite');
  const ctl = join(control, 'first-line');
  mkdirSync(ctl);
  const script = `while [ ! -f ${ctl}/full ]; do sleep 0.1; done; echo lost line; while [ ! -f ${ctl}/done ]; do sleep 0.1; done`;
  let exec: Spawned | null = null;
  try {
    exec = spawnRunwarden(['exec', '--', 'sh', '-c', script], { store, cwd: control });
    const running = exec;
    const runId = await runIdOf(running);
    const logPath = join(`${store}.logs`, `${runId}.log`);
    await waitFor('the log to be open', () => existsSync(logPath));
    const fill = fillDisk(disk.path);
    writeFileSync(join(ctl, 'full'), '');
    await waitFor('exec to say the log disk is full', () =>
      running.stderr.includes('the disk holding the log is full'),
    );
    expect(readFileSync(logPath, 'utf8')).toBe('');
    rmSync(fill);
    // No later line: the marker comes by itself, while the command still runs.
    await waitFor(
      'the gap marker in the log',
      () => readWholeLog(logPath).some((r) => r.stream === 'gap'),
      30_000,
    );
    expect(running.child.exitCode).toBeNull();
    writeFileSync(join(ctl, 'done'), '');
    const end = await running.done;
    expect(end.code, end.stderr).toBe(0);

    const text = await runCli(['logs', runId], { store });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('(1 line) skipped: the disk was full');
    const json = await runCli(['logs', runId, '--json'], { store });
    const records = json.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogRecord);
    expect(records).toEqual([
      expect.objectContaining({
        stream: 'gap',
        text: 'the disk was full',
        skippedLines: 1,
        skippedBytes: 10,
      }),
    ]);
  } finally {
    exec?.child.kill('SIGKILL');
    rmSync(join(disk.path, 'fill'), { force: true });
  }
});

it('effect on a full disk: the applied outcome is recorded once space returns, not made ambiguous', async () => {
  const store = join(disk.path, 'effect.sqlite');
  const ctl = join(control, 'effect');
  mkdirSync(ctl);
  const fill = join(disk.path, 'fill');
  // The payment fills the disk, then succeeds: its outcome is known, only the store cannot take it.
  const pay = `dd if=/dev/zero of=${fill} bs=16k 2>/dev/null; echo charge >> ${ctl}/ledger; exit 0`;
  let exec: Spawned | null = null;
  try {
    exec = spawnRunwarden(
      ['exec', '--', 'runwarden', 'effect', '--key', 'pay', '--summary', 'Pay', '--', 'sh', '-c', pay],
      { store, cwd: control },
    );
    const running = exec;
    const runId = await runIdOf(running);
    await waitFor(
      'effect to say it keeps trying',
      () => running.stderr.includes('effect pay was applied, but the store cannot record it now'),
      30_000,
    );
    // Well past a second try: still waiting, not exited 8.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(running.child.exitCode).toBeNull();
    rmSync(fill);
    const end = await running.done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stderr).toContain('effect pay recorded as applied');
    const reader = openStore(store, { readonly: true });
    const snapshot = reader.getSnapshot(runId);
    reader.close();
    expect(snapshot.effects.map((e) => [e.idempotencyKey, e.status])).toEqual([['pay', 'applied']]);
    expect(snapshot.run.status).toBe('completed');
    expect(lineCount(join(ctl, 'ledger'))).toBe(1);
  } finally {
    exec?.child.kill('SIGKILL');
    rmSync(fill, { force: true });
  }
});
