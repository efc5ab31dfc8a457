/**
 * Cancel race: 8 runner processes heartbeating and doing fenced writes, SIGKILLed and
 * SIGSTOPped at random (some inside an open write transaction), while a canceller keeps cancelling stale
 * runs. The oracle is computed from the processes' own append-only logs, never from the cancel code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { openStore } from '../../main/store';
import { fixturePath } from '../helpers/paths';
import { tempDir } from '../helpers/cli';
import { readLog, type Entry } from './oracle-log';
import { replayHint, seededRandom, testSeed } from '../helpers/seeded-random';

const RUNNERS = 8;
const DURATION_MS = Number(process.env.RUNWARDEN_RACE_MS ?? 22_000);
const LEASE_MS = 1200;
const dir = tempDir('runwarden-race-');
// A throw inside the loop below could leave runners stopped (SIGSTOP) or running: they would outlive the test
// run, holding its stderr pipe open. SIGKILL ends a stopped process too.
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  dir.remove();
});
/** The test's random choices (whom to kill or stop, when, for how long); each fixture process gets its own seed. */
const seed = testSeed();
const random = seededRandom(seed);
let fixtureSeeds = 0;

interface Runner {
  child: ChildProcess;
  log: string;
  stoppedUntil: number;
  killed: boolean;
}

function spawnFixture(name: string, args: string[]): ChildProcess {
  fixtureSeeds += 1;
  const env = { ...process.env, RUNWARDEN_TEST_SEED: String((seed + fixtureSeeds) >>> 0) };
  const child = spawn(process.execPath, [fixturePath(name), ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  children.push(child);
  return child;
}

describe('cancel race', () => {
  it('never cancels a live run, never half-applies a cancel, never lets a write through after one', async () => {
    onTestFailed(() => console.error(replayHint(seed)));
    const project = join(dir.path, 'race-project');
    mkdirSync(project);
    openStore(dir.store).close();
    const runners: Runner[] = [];
    let spawned = 0;
    const startRunner = (): Runner => {
      spawned += 1;
      const log = join(dir.path, `runner-${spawned}.log`);
      const child = spawnFixture('race-runner', [
        '--store',
        dir.store,
        '--log',
        log,
        '--project',
        project,
        '--name',
        `r${spawned}`,
        '--lease-ms',
        String(LEASE_MS),
      ]);
      const runner = { child, log, stoppedUntil: 0, killed: false };
      runners.push(runner);
      return runner;
    };
    for (let i = 0; i < RUNNERS; i += 1) startRunner();
    const cancellerLog = join(dir.path, 'canceller.log');
    const canceller = spawnFixture('race-canceller', [
      '--store',
      dir.store,
      '--log',
      cancellerLog,
      '--duration-ms',
      String(DURATION_MS + 3000),
    ]);
    const cancellerDone = new Promise((resolve) => canceller.once('exit', resolve));

    /** When each runner process was SIGKILLed (by pid): after that it is verifiably gone (docs/LIVENESS.md). */
    const killedAt = new Map<number, number>();
    let sigkills = 0;
    let sigstops = 0;
    let stopsInTx = 0;
    const until = Date.now() + DURATION_MS;
    while (Date.now() < until) {
      await sleep(150 + random() * 350);
      const now = Date.now();
      for (const runner of runners) {
        if (runner.stoppedUntil !== 0 && runner.stoppedUntil <= now) {
          runner.child.kill('SIGCONT');
          runner.stoppedUntil = 0;
        }
      }
      const live = runners.filter((r) => !r.killed);
      // Half the time, aim at a runner that is inside its held-open write transaction right now.
      const inTx = random() < 0.5 ? live.filter((r) => readLog(r.log).at(-1)?.op === 'tx-open') : [];
      const pool = inTx.length > 0 ? inTx : live;
      const victim = pool[Math.floor(random() * pool.length)];
      if (victim === undefined) continue;

      if (random() < 0.45) {
        if (victim.stoppedUntil !== 0) victim.child.kill('SIGCONT');
        victim.child.kill('SIGKILL');
        if (victim.child.pid !== undefined) killedAt.set(victim.child.pid, Date.now());
        victim.killed = true;
        victim.stoppedUntil = 0;
        sigkills += 1;
        startRunner();
      } else if (victim.stoppedUntil === 0) {
        victim.child.kill('SIGSTOP');
        if (readLog(victim.log).at(-1)?.op === 'tx-open') stopsInTx += 1;
        // Some pauses stay within the lease, most outlast it (so the run goes stale and gets cancelled).
        victim.stoppedUntil = now + 300 + random() * 2200;
        sigstops += 1;
      }
    }
    for (const runner of runners.filter((r) => !r.killed)) {
      if (runner.stoppedUntil !== 0) runner.child.kill('SIGCONT');
    }
    // Let resumed runners run into their fencing before they stop.
    await sleep(1500);
    for (const runner of runners.filter((r) => !r.killed)) {
      runner.child.kill('SIGKILL');
      if (runner.child.pid !== undefined) killedAt.set(runner.child.pid, Date.now());
    }
    await cancellerDone;

    // ---- Oracle: from the logs only ----
    const runnerEntries: Entry[] = runners.flatMap((r) => readLog(r.log));
    const cancelEntries = readLog(cancellerLog).filter((e) => e.op === 'cancel');
    const cancels = cancelEntries.filter((e) => e.ok === true);
    const cancelOf = new Map(cancels.map((e) => [e.run as string, e]));
    const leaseHolds = runnerEntries.filter(
      (e) => (e.op === 'claim' || e.op === 'heartbeat') && e.ok === true,
    );
    const writeOps = new Set([
      'markRunning',
      'startAttempt',
      'reserveEffect',
      'beginEffect',
      'settleEffect',
      'settleEffectHeld',
      'finishAttempt',
      'setProgress',
      'complete',
    ]);
    const writes = runnerEntries.filter((e) => writeOps.has(e.op));
    const okWrites = writes.filter((e) => e.ok === true);
    const claims = runnerEntries.filter((e) => e.op === 'claim');

    // 1. A live run cancelled: a lease renewal that certainly committed before the cancel began and
    //    certainly had not expired when the cancel returned — by a holder still alive then. A holder
    //    SIGKILLed before the cancel returned is verifiably gone: its run may be cancelled before its
    //    expiry (docs/LIVENESS.md, "What a verdict changes"); a SIGSTOPped one is alive and may not.
    const holderAlive = (h: Entry, c: Entry) => {
      const killed = killedAt.get(h.pid as number);
      return killed === undefined || killed > (c.t1 as number);
    };
    const beforeExpiry = (c: Entry) =>
      leaseHolds.filter(
        (h) =>
          h.run === c.run && (h.t1 as number) < (c.t0 as number) && (h.expiresAt ?? 0) > (c.t1 as number),
      );
    const liveCancelled = cancels.filter((c) => beforeExpiry(c).some((h) => holderAlive(h, c)));
    const goneHolderCancels = cancels.filter((c) => beforeExpiry(c).length > 0).length;
    // 2. Writes after a cancel: a write that began after the cancel had returned, yet succeeded.
    const writesAfterCancel = okWrites.filter((w) => {
      const cancel = cancelOf.get(w.run as string);
      return cancel !== undefined && (w.t0 as number) > (cancel.t1 as number);
    });
    // 3. Writes under an old generation: began after a newer claim of the same run had returned.
    const staleGenerationWrites = okWrites.filter((w) =>
      claims.some(
        (c) =>
          c.run === w.run && (c.gen as number) > (w.gen as number) && (c.t1 as number) < (w.t0 as number),
      ),
    );
    // Kills that landed inside a held-open write transaction: the process's last line is tx-open.
    const lastLineByLog = runners.filter((r) => r.killed).map((r) => readLog(r.log).at(-1));
    const killedInTx = lastLineByLog.filter((e) => e?.op === 'tx-open').length;

    // 4. Half-applied cancels, checked on every run the store holds (not only those the log names).
    const store = openStore(dir.store);
    let halfApplied = 0;
    let cancelledRuns = 0;
    let totalRuns = 0;
    const problems: string[] = [];
    try {
      let cursor: string | null = null;
      do {
        const page = store.listRuns({ view: 'all', limit: 200, cursor });
        for (const item of page.items) {
          totalRuns += 1;
          const detail = store.getRunDetail(item.run.id, { eventsLimit: 200 });
          const { run, queue, lease, interactions, effects } = detail.snapshot;
          const cancelled = run.status === 'cancelled' || queue.status === 'cancelled';
          if (!cancelled) continue;
          cancelledRuns += 1;
          const issues = [
            run.status !== 'cancelled' ? `run ${run.status}` : '',
            queue.status !== 'cancelled' ? `queue ${queue.status}` : '',
            lease !== null && lease.ownerType !== null ? `lease held by ${lease.ownerType}` : '',
            detail.attempts.some(
              (a) => a.status === 'pending' || a.status === 'running' || a.status === 'waiting',
            )
              ? 'active attempt'
              : '',
            effects.some((e) => e.status === 'pending' || e.status === 'applying') ? 'open effect' : '',
            interactions.some((i) => i.status === 'pending' || i.status === 'presenting')
              ? 'open interaction'
              : '',
            detail.events.filter((e) => e.type === 'run.cancelled').length !== 1
              ? 'not exactly one run.cancelled event'
              : '',
          ].filter((issue) => issue !== '');
          if (issues.length > 0) {
            halfApplied += 1;
            problems.push(`${run.id}: ${issues.join(', ')}`);
          }
        }
        cursor = page.nextCursor;
      } while (cursor !== null);
    } finally {
      store.close();
    }
    const db = new Database(dir.store, { readonly: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    const foreignKeys = db.pragma('foreign_key_check') as unknown[];
    db.close();

    const figures = {
      seconds: DURATION_MS / 1000,
      runnerProcesses: spawned,
      sigkills,
      sigstops,
      killedInsideOpenWriteTx: killedInTx,
      stoppedInsideOpenWriteTx: stopsInTx,
      runs: totalRuns,
      claims: claims.length,
      takeovers: claims.filter((c) => (c.gen as number) > 1).length,
      heartbeatsOk: runnerEntries.filter((e) => e.op === 'heartbeat' && e.ok === true).length,
      heartbeatsFenced: runnerEntries.filter((e) => e.op === 'heartbeat' && e.ok === false).length,
      writesOk: okWrites.length,
      writesRefused: writes.filter((e) => e.ok === false).length,
      staleCancels: cancels.length,
      liveCancelProbesRefused: cancelEntries.filter((e) => e.ok === false && e.code === 'LIVE_OWNER').length,
      cancelledRuns,
      liveRunsCancelled: liveCancelled.length,
      cancelsOfKilledHoldersBeforeExpiry: goneHolderCancels,
      halfAppliedCancels: halfApplied,
      writesAfterCancel: writesAfterCancel.length,
      writesUnderOldGeneration: staleGenerationWrites.length,
      integrity,
    };
    console.log(`cancel race: ${JSON.stringify(figures)}`);
    expect(problems).toEqual([]);
    expect(liveCancelled).toEqual([]);
    expect(writesAfterCancel).toEqual([]);
    expect(staleGenerationWrites).toEqual([]);
    expect(integrity).toBe('ok');
    expect(foreignKeys).toEqual([]);
    // The race must actually have happened, or the zeros above mean nothing.
    expect(sigkills).toBeGreaterThan(3);
    expect(killedInTx).toBeGreaterThan(0);
    expect(cancels.length).toBeGreaterThan(3);
    expect(figures.writesRefused).toBeGreaterThan(0);
    expect(okWrites.length).toBeGreaterThan(100);
  }, 90_000);
});
