/**
 * docs/LIVENESS.md "When a pid is trusted": a runner in another pid namespace (a container or sandbox
 * sharing the store and the hostname) records its own namespace, so a sweeper outside it never judges its
 * pids: the run is not declared gone, cannot be cancelled while its lease is live, and completes.
 * Needs root for `unshare --pid` (CI runs as root); not being able to create the namespace fails the test.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { machineIdentity } from '../../main/store';
import { inProcessSweeper, printCounts, runIdOf, spawnRunwarden, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-pidns-');

it('a runner in another pid namespace is not declared gone by a sweeper outside it', async () => {
  const exec = spawnRunwarden(
    ['exec', '--project', project, '--lease-ms', '1500', '--', 'sh', '-c', 'sleep 5; echo ok'],
    { store: dir.store, cwd: project, wrapper: ['unshare', '--pid', '--fork', '--mount-proc'] },
  );
  const runId = await runIdOf(exec);
  const sweeper = inProcessSweeper(dir.store, { sweepIntervalMs: 250 });
  try {
    await waitFor(
      'running',
      () => sweeper.store.getRunDetail(runId, { eventsLimit: 1 }).display.status === 'running',
    );
    const lease = sweeper.store.getSnapshot(runId).lease;
    expect(lease?.ownerHostname).toBe(machineIdentity().hostname);
    expect(lease?.ownerBootId).toBe(machineIdentity().bootId);
    expect(lease?.ownerPidNs).toMatch(/^pid:\[\d+\]$/);
    expect(lease?.ownerPidNs).not.toBe(machineIdentity().pidNs);
    expect(sweeper.store.judgeOwner(lease ?? null)).toEqual({ supervisor: 'unknown', command: 'unknown' });

    let lost = 0;
    let orphaned = 0;
    let ticks = 0;
    let cancelRefused = 0;
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      const report = sweeper.tick();
      lost += report.runnersLost;
      orphaned += report.orphansFound;
      ticks += 1;
      await sleep(250);
    }
    const cancel = await spawnRunwarden(['cancel', runId], { store: dir.store, cwd: project }).done;
    if (cancel.code === 3) cancelRefused += 1;
    const end = await exec.done;
    const detail = sweeper.store.getRunDetail(runId, { eventsLimit: 100 });
    printCounts('pid namespace', {
      runnerPid: lease?.ownerPid,
      runnerNs: lease?.ownerPidNs,
      sweeperNs: machineIdentity().pidNs,
      sweeps: ticks,
      runnersLost: lost,
      orphansFound: orphaned,
      cancelRefused,
      exit: end.code,
    });
    expect(lost).toBe(0);
    expect(orphaned).toBe(0);
    expect(cancel.code, cancel.stderr).toBe(3);
    expect(end.code, end.stderr).toBe(0);
    expect(detail.snapshot.run.status).toBe('completed');
    expect(detail.events.some((e) => e.type === 'run.runner_lost')).toBe(false);
  } finally {
    sweeper.close();
  }
});
