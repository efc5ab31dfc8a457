/**
 * docs/LIVENESS.md: a verifiably alive local owner is live whatever the clock says.
 * - Clock steps across processes (libfaketime, one shared FAKETIME_TIMESTAMP_FILE): +1 h for every process
 *   leaves 3 of 3 live runs running — cancel refused, their leases renewed although lapsed, no command
 *   stopped; back −1 h, a runner killed with its expiry an hour ahead is cancellable at once.
 * - A simulated suspend (the runner stopped past its lease, by SIGTSTP so that the stop lands between store
 *   statements: docs/LIVENESS.md#stopped-processes) with a sweeper ticking: the run stays running in the
 *   views, cancel is refused, and after SIGCONT the run completes normally.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { RunDetail, RunListPage } from '../../main/store';
import { openStore } from '../../main/store';
import {
  faketimeLibrary,
  inProcessSweeper,
  lineCount,
  printCounts,
  processState,
  runIdOf,
  type Spawned,
  spawnRunwarden,
  tempProject,
  waitFor,
} from './liveness-kit';

const { dir, project } = tempProject('runwarden-clock-');

describe('clock steps across processes (libfaketime)', () => {
  it('+1 h keeps 3 of 3 live runs running; −1 h lets a killed runner be cancelled at once', async () => {
    const lib = faketimeLibrary();
    // Installed by .ci/run (Debian package libfaketime): a missing library is a failure, not a skip.
    expect(lib, 'libfaketime is not installed').not.toBeNull();
    const stamp = join(dir.path, 'faketime');
    writeFileSync(stamp, '+0\n');
    const faked = {
      LD_PRELOAD: lib as string,
      FAKETIME_TIMESTAMP_FILE: stamp,
      FAKETIME_CACHE_DURATION: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    };
    const cli = async (args: string[]) => {
      const p = spawnRunwarden(args, { store: dir.store, cwd: project, env: faked });
      return p.done;
    };
    const show = async (runId: string): Promise<RunDetail> => {
      const r = await cli(['show', runId, '--json']);
      const body = JSON.parse(r.stdout) as { ok: true; value: RunDetail };
      return body.value;
    };

    const runners: Array<{ exec: Spawned; runId: string; ticks: string }> = [];
    for (let i = 0; i < 3; i += 1) {
      const ticks = join(project, `clock-${i}.ticks`);
      // The command itself runs on the real clock: only Runwarden's processes see the step.
      const exec = spawnRunwarden(
        [
          'exec',
          '--project',
          project,
          '--lease-ms',
          '3000',
          '--',
          'env',
          '-u',
          'LD_PRELOAD',
          'sh',
          '-c',
          `while :; do echo x >> ${ticks}; sleep 0.2; done`,
        ],
        { store: dir.store, cwd: project, env: faked },
      );
      runners.push({ exec, runId: await runIdOf(exec), ticks });
    }
    for (const r of runners)
      await waitFor('running', async () => (await show(r.runId)).display.status === 'running');

    writeFileSync(stamp, '+1h\n');
    // Every process now reads the clock an hour later: each lease looks expired until its runner's next beat.
    let cancelled = 0;
    for (const r of runners) {
      const result = await cli(['cancel', r.runId]);
      if (result.code === 0) cancelled += 1;
      else expect(result.code, result.stderr).toBe(3);
    }
    await waitFor(
      'each runner to renew its lapsed lease',
      () => runners.every((r) => r.exec.stderr.includes('had lapsed')),
      15_000,
    );
    const before = runners.map((r) => lineCount(r.ticks));
    await sleep(1_500);
    const stillRunning = runners.filter((r, i) => lineCount(r.ticks) > (before[i] ?? 0)).length;
    const statuses = await Promise.all(runners.map(async (r) => (await show(r.runId)).display.status));
    expect(cancelled).toBe(0);
    expect(stillRunning).toBe(3);
    expect(statuses).toEqual(['running', 'running', 'running']);
    expect(runners.filter((r) => r.exec.child.exitCode !== null).length).toBe(0);
    expect(runners.some((r) => r.exec.stderr.includes('took it over'))).toBe(false);

    // A runner killed just before the clock steps back an hour keeps an expiry an hour ahead.
    const [killed, ...rest] = runners as [(typeof runners)[0], ...typeof runners];
    killed.exec.child.kill('SIGKILL');
    await killed.exec.done;
    writeFileSync(stamp, '+0\n');
    await sleep(1_200);
    const expiry = openStore(dir.store, { readonly: true });
    const aheadMs = (expiry.getSnapshot(killed.runId).lease?.expiresAt ?? 0) - Date.now();
    expiry.close();
    const cancelKilled = await cli(['cancel', killed.runId]);
    expect(cancelKilled.code, cancelKilled.stderr).toBe(0);

    for (const r of rest) expect((await cli(['cancel', '--request', r.runId])).code).toBe(0);
    const ends = await Promise.all(rest.map((r) => r.exec.done));
    expect(ends.map((e) => e.code)).toEqual([130, 130]);
    printCounts('clock +1h/-1h', {
      liveRuns: 3,
      cancellableAfterPlus1h: cancelled,
      commandsStillRunning: stillRunning,
      lapsedRenewals: runners.filter((r) => r.exec.stderr.includes('had lapsed')).length,
      killedRunnerExpiryAheadMs: aheadMs,
      killedRunnerCancelExit: cancelKilled.code,
    });
    expect(aheadMs).toBeGreaterThan(30 * 60_000);
  });
});

describe('a suspend longer than the lease', () => {
  it('stopped past the lease: the run stays running, cancel is refused, and it completes after SIGCONT', async () => {
    const done = join(project, 'suspend.done');
    const exec = spawnRunwarden(
      ['exec', '--project', project, '--lease-ms', '1000', '--', 'sh', '-c', `sleep 3; echo ok > ${done}`],
      { store: dir.store, cwd: project },
    );
    const runId = await runIdOf(exec);
    const sweeper = inProcessSweeper(dir.store, { sweepIntervalMs: 300 });
    try {
      await waitFor(
        'running',
        () => sweeper.store.getRunDetail(runId, { eventsLimit: 1 }).display.status === 'running',
      );
      exec.child.kill('SIGTSTP');
      await waitFor('the runner to stop', () => processState(exec.child.pid as number) === 'T', 5_000, 5);
      const stoppedAt = Date.now();
      let busyTicks = 0;
      let vouched = 0;
      let lost = 0;
      let refused = 0;
      let listedRunning = 0;
      while (Date.now() - stoppedAt < 3_000) {
        const report = sweeper.tick();
        vouched += report.ownersVouched;
        lost += report.runnersLost;
        if (report.busy) busyTicks += 1;
        const running = sweeper.store.listRuns({ view: 'running', limit: 50 }).items.map((i) => i.run.id);
        if (running.includes(runId)) listedRunning += 1;
        await sleep(300);
      }
      const lease = sweeper.store.getSnapshot(runId).lease;
      const cancel = spawnRunwarden(['cancel', runId], { store: dir.store, cwd: project });
      const cancelResult = await cancel.done;
      if (cancelResult.code === 3) refused += 1;
      const detail = sweeper.store.getRunDetail(runId, { eventsLimit: 1 }).display;
      exec.child.kill('SIGCONT');
      const end = await exec.done;
      expect(end.code, end.stderr).toBe(0);
      const after = sweeper.store.getRunDetail(runId, { eventsLimit: 50 });
      printCounts('suspend past the lease', {
        suspendedMs: 3_000,
        leaseMs: 1_000,
        vouches: vouched,
        busyTicks,
        runnersLost: lost,
        sweepsListingItRunning: listedRunning,
        cancelRefused: refused,
        renewedLate: after.events.filter((e) => e.type === 'run.lease_renewed_late').length,
      });
      expect(busyTicks).toBe(0);
      expect(lost).toBe(0);
      expect(vouched).toBeGreaterThan(0);
      expect(lease?.vouchedAt).not.toBeNull();
      expect(detail).toMatchObject({ status: 'running', liveOwner: true });
      expect(detail.reason).toContain('Heartbeat late');
      expect(cancelResult.code, cancelResult.stderr).toBe(3);
      expect(listedRunning).toBeGreaterThan(5);
      expect(after.snapshot.run.status).toBe('completed');
      expect(after.events.some((e) => e.type === 'run.lease_renewed_late')).toBe(true);
      const ls = spawnRunwarden(['ls', '--json'], { store: dir.store, cwd: project });
      const listed = JSON.parse((await ls.done).stdout) as { ok: true; value: RunListPage };
      expect(listed.value.items.find((i) => i.run.id === runId)?.display.status).toBe('completed');
    } finally {
      exec.child.kill('SIGCONT');
      sweeper.close();
    }
  });
});
