/**
 * Crash during app work: a process doing cascade cancels is SIGKILLed at random moments,
 * many times. After every kill each run is either untouched or completely cancelled — never in between.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { runnerOwner } from '../../main/runner';
import { openStore, type RunStore } from '../../main/store';
import { fixturePath } from '../helpers/paths';
import { tempDir, waitFor } from '../helpers/cli';
import { readLog } from './oracle-log';
import { replayHint, seededRandom, testSeed } from '../helpers/seeded-random';

const RUNS = 80;
const EFFECTS_PER_RUN = 300;
/** The runs' owner: a runner that has died (no process has this pid), so they go stale and are cancelled. */
const DEAD_PID = 2 ** 22 + 123;
const KILL_ROUNDS = 50;
const dir = tempDir('runwarden-crash-');
/** When each kill lands: replayable (test/helpers/seeded-random.ts). */
const seed = testSeed();
const random = seededRandom(seed);
afterAll(() => dir.remove());

type State = 'untouched' | 'cancelled' | string;

function classify(store: RunStore, runId: string): State {
  const detail = store.getRunDetail(runId, { eventsLimit: 50 });
  const { run, queue, lease, interactions, effects } = detail.snapshot;
  const active = detail.attempts.filter(
    (a) => a.status === 'running' || a.status === 'pending' || a.status === 'waiting',
  ).length;
  const pending = effects.filter((e) => e.status === 'pending').length;
  const applying = effects.filter((e) => e.status === 'applying').length;
  const open = interactions.filter((i) => i.status === 'pending' || i.status === 'presenting').length;
  const cancelEvents = detail.events.filter((e) => e.type === 'run.cancelled').length;
  if (run.status !== 'cancelled' && queue.status !== 'cancelled') {
    const untouched =
      active === 1 &&
      pending === EFFECTS_PER_RUN / 2 &&
      applying === EFFECTS_PER_RUN / 2 &&
      open === 1 &&
      cancelEvents === 0 &&
      lease?.ownerType === 'runner';
    return untouched
      ? 'untouched'
      : `half: run ${run.status}, queue ${queue.status}, ${active} active, ${pending} pending, ${applying} applying, ${open} open`;
  }
  const done =
    run.status === 'cancelled' &&
    queue.status === 'cancelled' &&
    active === 0 &&
    pending === 0 &&
    applying === 0 &&
    effects.filter((e) => e.status === 'ambiguous').length === EFFECTS_PER_RUN / 2 &&
    effects.filter((e) => e.status === 'cancelled').length === EFFECTS_PER_RUN / 2 &&
    open === 0 &&
    cancelEvents === 1 &&
    (lease === null || lease.ownerType === null);
  return done
    ? 'cancelled'
    : `half: run ${run.status}, queue ${queue.status}, ${active} active, ${pending} pending, ${applying} applying, ${open} open, ${cancelEvents} events`;
}

describe('crash during a cascade cancel', () => {
  it('leaves every run untouched or fully cancelled after each of many SIGKILLs', async () => {
    onTestFailed(() => console.error(replayHint(seed)));
    const project = join(dir.path, 'p');
    mkdirSync(project);
    const store = openStore(dir.store);
    const actor = { type: 'system', id: 'setup', surface: 'sdk' } as const;
    const runIds: string[] = [];
    // Setup in one outer transaction (the store's own transactions nest as savepoints): one fsync, not thousands.
    store.db.transaction(() => {
      for (let i = 0; i < RUNS; i += 1) {
        const run = store.reserveRun({ projectPath: project, workflow: 'crash', title: `crash ${i}` }, actor);
        // Long enough for one run's setup on a loaded machine; the heartbeat below sets the real expiry.
        const { claim } = store.claimRun(run.id, { ...runnerOwner('crash-setup', DEAD_PID), leaseMs: 5_000 });
        store.markRunning(claim);
        const attempt = store.startAttempt(claim, 'step');
        for (let e = 0; e < EFFECTS_PER_RUN; e += 1) {
          const effect = store.reserveEffect(claim, {
            type: 'x',
            idempotencyKey: `${i}-${e}`,
            summary: `effect ${e}`,
            attemptId: attempt.id,
          });
          if (e % 2 === 0) store.beginEffect(claim, effect.id);
        }
        store.requestInteraction(claim, { kind: 'decision', title: 'Go?', choices: ['yes', 'no'] });
        // Keep it live until setup is done (the setup takes longer than the lease).
        store.heartbeat(claim, 2000);
        runIds.push(run.id);
      }
    })();
    await sleep(2100);

    const log = join(dir.path, 'canceller.log');
    let kills = 0;
    let killsInsideCancel = 0;
    let checks = 0;
    const problems: string[] = [];
    for (let round = 0; round < KILL_ROUNDS; round += 1) {
      const child = spawn(
        process.execPath,
        [fixturePath('cascade-canceller'), '--store', dir.store, '--log', log],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Kill at a random moment after it starts cancelling (not during Node's start-up).
      const begins = readLog(log).filter((e) => e.op === 'begin').length;
      const started = await Promise.race([
        exited.then(() => 'exited' as const),
        waitFor(
          'a cancel to begin',
          () => readLog(log).filter((e) => e.op === 'begin').length > begins,
          10_000,
          2,
        ),
      ]);
      if (started === 'exited') break;
      const finished = await Promise.race([exited.then(() => true), sleep(random() * 6).then(() => false)]);
      if (finished) break;
      child.kill('SIGKILL');
      await exited;
      kills += 1;
      const last = readLog(log).at(-1);
      if (last?.op === 'begin') killsInsideCancel += 1;
      for (const runId of runIds) {
        const state = classify(store, runId);
        checks += 1;
        if (state !== 'untouched' && state !== 'cancelled')
          problems.push(`after kill ${kills}: ${runId} ${state}`);
      }
    }
    // Then let one canceller finish the job undisturbed: it must open the crashed store and complete.
    const last = spawn(
      process.execPath,
      [fixturePath('cascade-canceller'), '--store', dir.store, '--log', log],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const lastExit = await new Promise<number | null>((resolve) =>
      last.once('exit', (code) => resolve(code)),
    );
    const final = runIds.map((runId) => classify(store, runId));
    store.close();
    const db = new Database(dir.store, { readonly: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    db.close();
    console.log(
      `crash during cascade cancel: ${JSON.stringify({
        runs: RUNS,
        effectsPerRun: EFFECTS_PER_RUN,
        kills,
        killsInsideACancelCall: killsInsideCancel,
        runStatesChecked: checks,
        halfApplied: problems.length,
        finallyCancelled: final.filter((s) => s === 'cancelled').length,
        integrity,
      })}`,
    );
    expect(problems).toEqual([]);
    expect(lastExit).toBe(0);
    expect(final.every((s) => s === 'cancelled')).toBe(true);
    expect(integrity).toBe('ok');
    expect(killsInsideCancel).toBeGreaterThanOrEqual(10);
  }, 300_000);
});
