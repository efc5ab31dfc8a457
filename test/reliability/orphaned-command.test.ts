/**
 * docs/LIVENESS.md#orphans: `runwarden exec` is SIGKILLed while its command keeps a background job running.
 * The run is never "stale, safe to cancel": the sweeper marks it orphaned, cancel is refused naming the
 * group, and *Stop the command* (CLI and the window's handler) ends the whole group — a job ignoring SIGTERM
 * included — recorded as the person's action; only then can the run be cancelled.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createDispatcher } from '../../main/services/dispatcher';
import { openStore, type RunDetail, type RunListPage } from '../../main/store';
import { runCli, runJson } from '../helpers/cli';
import {
  inProcessSweeper,
  lineCount,
  pidAlive,
  printCounts,
  runIdOf,
  spawnRunwarden,
  tempProject,
  waitFor,
} from './liveness-kit';

const { dir, project } = tempProject('runwarden-orphan-');

/** A command whose background job survives its shell, and ignores SIGTERM (the grace, then SIGKILL). */
function orphanMaker(name: string): string {
  return `(trap '' TERM; exec sleep 1000) & echo $! > ${name}.bg; while :; do date >> ${name}.ticks; sleep 0.2; done`;
}

async function orphan(name: string) {
  const exec = spawnRunwarden(
    ['exec', '--project', project, '--lease-ms', '1500', '--', 'sh', '-c', orphanMaker(name)],
    {
      store: dir.store,
      cwd: project,
    },
  );
  const runId = await runIdOf(exec);
  const sweeper = inProcessSweeper(dir.store);
  try {
    const pgid = await waitFor(
      'the command recorded',
      () => sweeper.store.getSnapshot(runId).lease?.commandPgid ?? undefined,
    );
    const bg = await waitFor('the background job', () => {
      try {
        return Number(readFileSync(join(project, `${name}.bg`), 'utf8')) || undefined;
      } catch {
        return undefined;
      }
    });
    exec.child.kill('SIGKILL');
    await exec.done;
    // The shell dies with its supervisor (parent-death signal); its background job does not.
    await waitFor('the shell to die with exec', () => !pidAlive(pgid), 5_000);
    expect(pidAlive(bg)).toBe(true);
    const report = await waitFor('the sweeper to see the orphan', () => {
      const r = sweeper.tick();
      return r.orphansFound > 0 ? r : undefined;
    });
    expect(report.runnersLost).toBe(0);
    return { runId, pgid, bg };
  } finally {
    sweeper.close();
  }
}

it('a SIGKILLed exec leaves an orphan that is not cancellable as stale; Stop the command ends the whole group', async () => {
  const a = await orphan('a');
  const shown = await runJson<RunDetail>(['show', a.runId], { store: dir.store });
  expect(shown.body.ok && shown.body.value.display).toMatchObject({
    status: 'orphaned',
    needsYou: true,
    actions: ['stopCommand'],
  });
  const needsYou = await runJson<RunListPage>(['ls', '--needs-you'], { store: dir.store });
  expect(
    needsYou.body.ok && needsYou.body.value.items.map((i) => [i.run.id, i.display.status]),
  ).toContainEqual([a.runId, 'orphaned']);

  const refused = await runCli(['cancel', a.runId], { store: dir.store });
  expect(refused.code).toBe(3);
  expect(refused.stderr).toContain(`process group ${a.pgid}`);
  expect(refused.stderr).toContain('--stop-command');
  const ticksBefore = lineCount(join(project, 'a.ticks'));

  const stopped = await runCli(
    ['cancel', '--stop-command', '--grace-ms', '800', '--reason', 'runner died', a.runId],
    {
      store: dir.store,
    },
  );
  expect(stopped.code, stopped.stderr).toBe(0);
  expect(pidAlive(a.bg)).toBe(false);
  const after = await runJson<RunDetail>(['show', a.runId], { store: dir.store });
  expect(after.body.ok && after.body.value.snapshot.run.status).toBe('cancelled');
  const events = after.body.ok ? after.body.value.events : [];
  const stopEvent = events.find((e) => e.type === 'run.command_stopped');
  expect(stopEvent).toMatchObject({ actorType: 'human', surface: 'cli' });
  expect(stopEvent?.payload).toMatchObject({
    reason: 'runner died',
    gone: true,
    signals: ['SIGTERM', 'SIGKILL'],
  });
  expect(events.some((e) => e.type === 'run.command_stop_requested')).toBe(true);
  await sleep(600);
  const ticksAfter = lineCount(join(project, 'a.ticks'));
  // The loop itself died with exec: nothing ticked while it was orphaned.
  expect(ticksAfter).toBe(ticksBefore);

  // The window's path: the handler answers at once, the stop completes in the background and is recorded.
  const b = await orphan('b');
  const store = openStore(dir.store);
  try {
    const dispatch = createDispatcher({
      store,
      clock: Date.now,
      actor: { type: 'human', id: 'alice', surface: 'app' },
      onSettingsChanged: () => {},
    });
    const cancelRefused = dispatch('runs:cancel', {
      runId: b.runId,
      expectedRevision: store.getRun(b.runId).revision,
      reason: 'try',
    });
    expect(cancelRefused).toMatchObject({
      ok: false,
      error: { code: 'LIVE_OWNER', recovery: { kind: 'stopCommand' } },
    });
    const started = dispatch('runs:stopCommand', {
      runId: b.runId,
      expectedRevision: store.getRun(b.runId).revision,
      reason: 'orphan',
    });
    expect(started).toMatchObject({ ok: true, value: { commandPgid: b.pgid } });
    await waitFor(
      'the stop to be recorded',
      () =>
        store.getRunDetail(b.runId, { eventsLimit: 5 }).events.find((e) => e.type === 'run.command_stopped'),
      15_000,
    );
    expect(pidAlive(b.bg)).toBe(false);
    expect(store.getRunDetail(b.runId, { eventsLimit: 1 }).display.status).toBe('stale');
    const cancelled = dispatch('runs:cancel', {
      runId: b.runId,
      expectedRevision: store.getRun(b.runId).revision,
      reason: 'gone now',
    });
    expect(cancelled.ok).toBe(true);
    printCounts('orphaned command', {
      orphans: 2,
      cancelRefused: 2,
      stoppedByCli: 1,
      stoppedByHandler: 1,
      signals: stopEvent?.payload,
      ticksWhileOrphaned: ticksBefore,
      ticksAfterSupervisorDied: ticksAfter - ticksBefore,
    });
  } finally {
    store.close();
  }
});

it('the command’s group is torn down on every way exec ends: the command exits, a cancel request, SIGTERM', async () => {
  const cases: Array<{
    name: string;
    end: (exec: ReturnType<typeof spawnRunwarden>, runId: string) => Promise<void>;
  }> = [
    { name: 'exits', end: async () => {} },
    {
      name: 'cancel-request',
      end: async (_exec, runId) => {
        expect((await runCli(['cancel', '--request', runId], { store: dir.store })).code).toBe(0);
      },
    },
    {
      name: 'sigterm',
      end: async (exec) => {
        exec.child.kill('SIGTERM');
      },
    },
  ];
  const left: Record<string, boolean> = {};
  for (const c of cases) {
    // The shell leaves a background job behind; for "exits" the shell itself returns at once.
    const tail = c.name === 'exits' ? 'exit 0' : 'while :; do sleep 0.2; done';
    const exec = spawnRunwarden(
      ['exec', '--project', project, '--', 'sh', '-c', `sleep 1000 & echo $! > ${c.name}.bg; ${tail}`],
      { store: dir.store, cwd: project },
    );
    const runId = await runIdOf(exec);
    const bg = await waitFor('the background job', () => {
      try {
        return Number(readFileSync(join(project, `${c.name}.bg`), 'utf8')) || undefined;
      } catch {
        return undefined;
      }
    });
    await c.end(exec, runId);
    await exec.done;
    await waitFor(`the group torn down (${c.name})`, () => !pidAlive(bg), 10_000);
    left[c.name] = pidAlive(bg);
  }
  printCounts('group teardown', {
    cases: cases.length,
    backgroundJobsLeft: Object.values(left).filter(Boolean).length,
  });
  expect(left).toEqual({ exits: false, 'cancel-request': false, sigterm: false });
});
