/**
 * A run never ends with an effect applying, and a lineage never repeats an unknown
 * (docs/LIVENESS.md#unknown-outcomes): every transition that takes a run from its runner turns each
 * still-applying effect ambiguous in the same transaction, with an event saying why; an effect whose
 * recorded process is verifiably gone becomes ambiguous at once; a key applying or ambiguous in another run
 * of the lineage is not tried again; retry is refused while anything in the lineage is unresolved;
 * migration 0008 repairs stores an older version left with applying effects on finished runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../shared/domain';
import { RunwardenError } from '../../../shared/errors';
import { createLivenessCheck, type ProcessProbe } from '../../../main/store/liveness';
import { migration0008 } from '../../../main/store/migrations/0008-effect-processes';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migrate, openStore } from '../../../main/store/open-store';
import type { Claim, EffectProcess } from '../../../main/store/store-types';
import {
  createTempStore,
  HUMAN,
  makeTempDir,
  reserveAndClaim,
  runnerOwner,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { orphanCommandWords } from '../../../main/store/run-state';
import { expectHealthy, expectInvariants } from './invariants';

const LEASE = 30_000;
const HERE = { hostname: 'test-host', bootId: 'boot-a', pidNs: 'pid:[1]' };

let t: TempStore | undefined;
afterEach(() => {
  if (t !== undefined) {
    expectInvariants(t.store);
    expectHealthy(t.store);
    t.cleanup();
    t = undefined;
  }
});

function tt(): TempStore {
  if (t === undefined) throw new Error('no store');
  return t;
}
const s = () => tt().store;

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof RunwardenError ? error.code : 'raw';
  }
  return 'none';
}

function lastEvent(runId: string): RunEvent {
  const [event] = s().getRunDetail(runId, { eventsLimit: 1 }).events;
  if (event === undefined) throw new Error(`run ${runId} has no events`);
  return event;
}

/** A claimed, running run with one effect applying (begun in a step) and one pending. */
function runApplying(
  key = 'transfer-991',
  process: EffectProcess | null = null,
): {
  claim: Claim;
  effectId: number;
} {
  const claim = reserveAndClaim(tt(), LEASE);
  s().markRunning(claim);
  s().startAttempt(claim, 'pay');
  const effect = s().reserveEffect(claim, { type: 'payment', idempotencyKey: key, summary: 'pay 10 EUR' });
  s().beginEffect(claim, effect.id, process);
  s().reserveEffect(claim, { type: 'mail', idempotencyKey: `${key}-mail`, summary: 'mail the receipt' });
  return { claim, effectId: effect.id };
}

function statuses(runId: string): string[] {
  return s()
    .getSnapshot(runId)
    .effects.map((e) => e.status);
}

describe('every ending turns applying effects ambiguous, with an event saying why', () => {
  const endings: Array<[string, (claim: Claim) => void, string]> = [
    ['complete', (c) => s().completeRun(c), 'run.completed'],
    ['fail', (c) => s().failRun(c, 'python3 exited with code 1'), 'run.failed'],
    ['time out', (c) => s().timeOutRun(c), 'run.timed_out'],
  ];
  for (const [name, end, type] of endings) {
    it(`${name}: the run stays in Needs you, ambiguous, until a person resolves it`, () => {
      t = createTempStore();
      const { claim, effectId } = runApplying();
      end(claim);
      expect(statuses(claim.runId)).toEqual(['ambiguous', 'pending']);
      const event = lastEvent(claim.runId);
      expect(event.type).toBe(type);
      expect(event.payload).toMatchObject({ ambiguousEffects: [effectId] });
      expect(String((event.payload as { reason?: string }).reason)).toMatch(
        /still applying when the run ended/,
      );
      const detail = s().getRunDetail(claim.runId, { eventsLimit: 1 });
      expect(detail.display).toMatchObject({ status: 'ambiguous', needsYou: true });
      expect(detail.attempts[0]?.status).toBe('interrupted');
      expect(
        s()
          .listRuns({ view: 'needs-you', limit: 100 })
          .items.map((r) => r.run.id),
      ).toContain(claim.runId);
      expect(codeOf(() => s().retryRun(claim.runId, { actor: HUMAN }))).toBe('CONFLICT');
    });
  }

  it("the runner's own cancel (an interrupt) does the same, through the cancel cascade", () => {
    t = createTempStore();
    const { claim } = runApplying();
    s().cancelOwnRun(claim, 'Interrupted (SIGINT).');
    expect(statuses(claim.runId)).toEqual(['ambiguous', 'cancelled']);
    expect(s().getRunDetail(claim.runId, { eventsLimit: 1 }).display.needsYou).toBe(true);
  });

  it('a park (any code) and a release leave nobody to settle it: ambiguous too', () => {
    t = createTempStore();
    for (const code of ['runnerExited', 'paused', 'sourceChanged', 'effectAmbiguous'] as const) {
      const { claim, effectId } = runApplying(`k-${code}`);
      s().park(claim, code, 'stopped');
      expect(statuses(claim.runId)[0], code).toBe('ambiguous');
      expect(lastEvent(claim.runId).payload).toMatchObject({ code, ambiguousEffects: [effectId] });
      // A worker does not pick it up again: a person resolves first.
      expect(s().claimNext({ ...runnerOwner('w'), leaseMs: LEASE })).toBeNull();
    }
    const claim = reserveAndClaim(tt(), LEASE);
    const e = s().reserveEffect(claim, { type: 'x', idempotencyKey: 'rel', summary: 'x' });
    s().beginEffect(claim, e.id);
    s().releaseRun(claim);
    expect(statuses(claim.runId)).toEqual(['ambiguous']);
    expect(lastEvent(claim.runId).payload).toMatchObject({ ambiguousEffects: [e.id] });
  });

  it('an ending without applying effects says nothing about them', () => {
    t = createTempStore();
    const claim = reserveAndClaim(tt(), LEASE);
    s().completeRun(claim);
    expect(lastEvent(claim.runId).payload).not.toHaveProperty('ambiguousEffects');
  });
});

describe('an effect whose process is gone becomes ambiguous at once', () => {
  const alive = new Set<number>();
  const probe: ProcessProbe = { processAlive: (pid) => alive.has(pid), groupAlive: () => false };
  const proc = (pid: number, over: Partial<EffectProcess> = {}): EffectProcess => ({
    pid,
    startId: '9',
    ...HERE,
    ...over,
  });

  it('noticed by its supervisor while the run goes on; a live or untrusted process is left alone', () => {
    t = createTempStore({ liveness: createLivenessCheck(HERE, probe) });
    alive.clear();
    alive.add(500);
    const { claim, effectId } = runApplying('k1', proc(500));
    const other = s().reserveEffect(claim, { type: 't', idempotencyKey: 'k2', summary: 'elsewhere' });
    s().beginEffect(claim, other.id, proc(501, { pidNs: 'pid:[other]' }));
    const revision = s().getRun(claim.runId).revision;
    expect(s().noticeGoneEffects(claim)).toEqual([]);
    expect(s().getRun(claim.runId).revision).toBe(revision);

    alive.delete(500);
    expect(s().noticeGoneEffects(claim)).toEqual([effectId]);
    expect(
      s()
        .getSnapshot(claim.runId)
        .effects.map((e) => [e.idempotencyKey, e.status]),
    ).toEqual([
      ['k1', 'ambiguous'],
      ['k1-mail', 'pending'],
      ['k2', 'applying'],
    ]);
    const event = lastEvent(claim.runId);
    expect(event).toMatchObject({ type: 'effect.ambiguous', actorType: 'runner' });
    expect(String((event.payload as { reason?: string }).reason)).toMatch(/its process ended/);
    expect(s().getRunDetail(claim.runId, { eventsLimit: 1 }).display).toMatchObject({
      status: 'ambiguous',
      needsYou: true,
    });
    // Its process cannot settle it any more; the run's ending leaves the other one ambiguous too.
    expect(codeOf(() => s().settleEffect(claim, effectId, 'applied'))).toBe('CONFLICT');
    s().failRun(claim, 'gave up');
    expect(statuses(claim.runId)).toEqual(['ambiguous', 'pending', 'ambiguous']);
  });

  it('noticed by the sweeper for runs whose supervisor does not look', () => {
    t = createTempStore({ liveness: createLivenessCheck(HERE, probe) });
    alive.clear();
    const { claim, effectId } = runApplying('k1', proc(600));
    const elsewhere = runApplying('k3', proc(601, { hostname: 'other-host' }));
    expect(s().noticeGoneEffectsOnHost(SWEEPER, 100)).toEqual({ ambiguous: 1, next: 0 });
    expect(s().getEffect(effectId).status).toBe('ambiguous');
    expect(s().getEffect(elsewhere.effectId).status).toBe('applying');
    expect(lastEvent(claim.runId)).toMatchObject({ type: 'effect.ambiguous', surface: 'sweeper' });
    expect(s().noticeGoneEffectsOnHost(SWEEPER, 100)).toEqual({ ambiguous: 0, next: 0 });
  });

  it('looks at every applying effect in turn, however many live ones come before a gone one', () => {
    t = createTempStore({ liveness: createLivenessCheck(HERE, probe) });
    alive.clear();
    const live = Array.from({ length: 5 }, (_, i) => {
      alive.add(700 + i);
      return runApplying(`live-${i}`, proc(700 + i));
    });
    const gone = runApplying('gone', proc(799));
    // Windows of 2: the gone effect is the sixth, so a look from the start alone would never reach it.
    let after = 0;
    const looks: Array<{ ambiguous: number; next: number }> = [];
    for (let look = 0; look < 3; look += 1) {
      const window = s().noticeGoneEffectsOnHost(SWEEPER, 2, after);
      looks.push(window);
      after = window.next;
    }
    expect(looks.map((w) => w.ambiguous)).toEqual([0, 0, 1]);
    // A short window starts the next look from the beginning again.
    expect(s().noticeGoneEffectsOnHost(SWEEPER, 2, after)).toEqual({ ambiguous: 0, next: 0 });
    expect(s().getEffect(gone.effectId).status).toBe('ambiguous');
    for (const { effectId } of live) expect(s().getEffect(effectId).status).toBe('applying');
  });

  it("the run as performer: its supervisor's identity, ambiguous only once the supervisor is gone", () => {
    t = createTempStore({ liveness: createLivenessCheck(HERE, probe) });
    alive.clear();
    alive.add(4242);
    const claim = reserveAndClaim(tt(), LEASE, runnerOwner('r', { bootId: HERE.bootId, pidNs: HERE.pidNs }));
    s().markRunning(claim);
    const e = s().reserveEffect(claim, { type: 'payment', idempotencyKey: 'by-run', summary: 'pay' });
    s().beginEffect(claim, e.id, 'run');
    const db = new Database(tt().path, { readonly: true });
    expect(
      db.prepare(`SELECT performer, process_pid, process_start_id FROM effects WHERE id = ?`).get(e.id),
    ).toEqual({ performer: 'run', process_pid: 4242, process_start_id: '777' });
    db.close();
    expect(lastEvent(claim.runId).payload).toEqual({ effectId: e.id, performer: 'run', pid: 4242 });
    // Whoever called "effect begin" is not watched: the supervisor lives, so nothing changes.
    expect(s().noticeGoneEffects(claim)).toEqual([]);
    expect(s().noticeGoneEffectsOnHost(SWEEPER, 100)).toEqual({ ambiguous: 0, next: 0 });
    // Settled from a process the run started (its ancestry reaches the supervisor): applied.
    const other = s().reserveEffect(claim, { type: 'payment', idempotencyKey: 'by-run-2', summary: 'pay' });
    s().beginEffect(claim, other.id, 'run');
    const inside = [
      { pid: 9001, startId: '1' },
      { pid: 4242, startId: '777' },
    ];
    expect(s().settleEffect(claim, other.id, 'applied', inside).status).toBe('applied');
    // A process that only carries the claim is refused and nothing changes.
    const before = s().getRun(claim.runId).revision;
    expect(codeOf(() => s().settleEffect(claim, e.id, 'applied', [{ pid: 9002, startId: '1' }]))).toBe(
      'FORBIDDEN',
    );
    expect(s().getRun(claim.runId).revision).toBe(before);
    expect(s().getEffect(e.id).status).toBe('applying');
    // The supervisor dies: the sweeper turns it ambiguous, saying so.
    alive.delete(4242);
    expect(s().noticeGoneEffectsOnHost(SWEEPER, 100)).toEqual({ ambiguous: 1, next: 0 });
    expect(s().getEffect(e.id).status).toBe('ambiguous');
    expect(String((lastEvent(claim.runId).payload as { reason?: string }).reason)).toMatch(
      /the run's supervisor ended before "effect end"/,
    );
  });

  it('refuses a bad pid and writes nothing', () => {
    t = createTempStore();
    const claim = reserveAndClaim(tt(), LEASE);
    const e = s().reserveEffect(claim, { type: 'x', idempotencyKey: 'k', summary: 'x' });
    expect(codeOf(() => s().beginEffect(claim, e.id, proc(0)))).toBe('VALIDATION');
    expect(s().getEffect(e.id).status).toBe('pending');
  });
});

describe('the lineage never repeats an unknown', () => {
  /** A failed run whose effect K is ambiguous, as an older version could leave a retried one. */
  function failedWithAmbiguous(key: string): { runId: string; effectId: number } {
    const { claim, effectId } = runApplying(key);
    s().failRun(claim, 'killed');
    return { runId: claim.runId, effectId };
  }

  it('retry is refused while any effect of the lineage is unresolved, naming it', () => {
    t = createTempStore();
    const a = failedWithAmbiguous('pay-1');
    expect(() => s().retryRun(a.runId, { actor: HUMAN })).toThrow(/nobody knows whether its payment/);
    const revision = s().getRun(a.runId).revision;
    s().resolveEffect(a.effectId, {
      resolution: 'not_applied',
      note: 'bank says no',
      expectedRevision: revision,
      actor: HUMAN,
    });
    const b = s().retryRun(a.runId, { actor: HUMAN });
    // The retry runs and leaves another key unknown: neither the retry nor its parent may be retried again.
    const claim = s().claimRun(b.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
    const e = s().reserveEffect(claim, { type: 'deploy', idempotencyKey: 'deploy-2', summary: 'deploy' });
    s().beginEffect(claim, e.id);
    s().failRun(claim, 'killed');
    expect(() => s().retryRun(b.id, { actor: HUMAN })).toThrow(/nobody knows whether its deploy/);
    const again = (() => {
      try {
        s().retryRun(a.runId, { actor: HUMAN });
      } catch (error) {
        return error as RunwardenError;
      }
      return null;
    })();
    expect(again?.code).toBe('CONFLICT');
    expect(again?.message).toContain(`run ${b.id}'s deploy "deploy" (deploy-2)`);
    expect(again?.recovery).toEqual({ kind: 'resolveEffects', runId: b.id });
  });

  it('a key applying or ambiguous in another run of the lineage is not tried again; applied is carried', () => {
    t = createTempStore();
    const a = failedWithAmbiguous('pay-1');
    // An older version let such a run be retried: make the retry the way it could.
    s().db.prepare(`UPDATE effects SET status = 'rejected' WHERE id = ?`).run(a.effectId);
    const b = s().retryRun(a.runId, { actor: HUMAN });
    s().db.prepare(`UPDATE effects SET status = 'ambiguous' WHERE id = ?`).run(a.effectId);
    const claim = s().claimRun(b.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
    const revision = s().getRun(b.id).revision;
    const found = s().reserveEffect(claim, { type: 'payment', idempotencyKey: 'pay-1', summary: 'x' });
    expect(found).toMatchObject({ id: a.effectId, runId: a.runId, status: 'ambiguous' });
    expect(s().getRun(b.id).revision).toBe(revision);
    expect(s().lineageEffect(b.id, 'pay-1')).toMatchObject({ outcome: 'unknown' });
    // Applying there counts the same.
    s().db.prepare(`UPDATE effects SET status = 'applying' WHERE id = ?`).run(a.effectId);
    expect(s().lineageEffect(b.id, 'pay-1')).toMatchObject({ outcome: 'unknown' });
    // Applied there: carried over, already applied, never performed again.
    s().db.prepare(`UPDATE effects SET status = 'applied' WHERE id = ?`).run(a.effectId);
    expect(
      s().reserveEffect(claim, { type: 'payment', idempotencyKey: 'pay-1', summary: 'x' }),
    ).toMatchObject({ runId: b.id, status: 'applied' });
    expect(lastEvent(b.id)).toMatchObject({ type: 'effect.carried' });
    s().completeRun(claim);
  });
});

describe('migration 0008', () => {
  it('records effect processes and turns applying effects of finished runs ambiguous, with an event', () => {
    const dir = makeTempDir();
    try {
      const file = path.join(dir, 's.sqlite');
      const project = path.join(dir, 'proj');
      fs.mkdirSync(project);
      // A store as the version before this migration left it: a failed run with its effect applying.
      const before = openStore(file);
      const run = before.reserveRun({ projectPath: project, workflow: 'w', title: 't' }, HUMAN);
      const claim = before.claimRun(run.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
      const e = before.reserveEffect(claim, { type: 'payment', idempotencyKey: 'k', summary: 'pay' });
      before.beginEffect(claim, e.id);
      const live = before.reserveRun({ projectPath: project, workflow: 'w', title: 'live' }, HUMAN);
      const liveClaim = before.claimRun(live.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
      const liveEffect = before.reserveEffect(liveClaim, { type: 'x', idempotencyKey: 'k', summary: 'x' });
      before.beginEffect(liveClaim, liveEffect.id);
      before.failRun(claim, 'killed');
      before.close();
      const index = MIGRATIONS.indexOf(migration0008);
      expect(index).toBeGreaterThan(0);
      const db = new Database(file);
      db.exec(`
        UPDATE effects SET status = 'applying' WHERE id = ${e.id};
        UPDATE runs SET ambiguous_effects = 0, display_base = 'failed', needs_you_static = 0 WHERE id = '${run.id}';
        DROP INDEX effects_applying;
        DROP INDEX IF EXISTS effects_applying_on_host;
        ALTER TABLE effects DROP COLUMN process_pid;
        ALTER TABLE effects DROP COLUMN process_start_id;
        ALTER TABLE effects DROP COLUMN process_hostname;
        ALTER TABLE effects DROP COLUMN process_boot_id;
        ALTER TABLE effects DROP COLUMN process_pid_ns;
        PRAGMA user_version = ${MIGRATIONS[index - 1]?.version};
      `);
      const revision = (
        db.prepare(`SELECT revision FROM runs WHERE id = ?`).get(run.id) as { revision: number }
      ).revision;
      // Only this migration is undone above, so only it is replayed: the later ones' schema is still there.
      const changes: string[] = [];
      expect(migrate(db, MIGRATIONS.slice(0, index + 1), file, changes)).toBe(migration0008.version);
      // What it changed is said (docs/ARCHITECTURE.md#upgrades): the command that migrates prints it.
      expect(changes).toEqual([
        '0008-effect-processes: 1 effect(s) that finished runs had left applying made ambiguous (resolve them: runwarden ls --needs-you)',
      ]);
      db.pragma(`user_version = ${MIGRATIONS.at(-1)?.version}`);
      db.close();

      const store = openStore(file);
      try {
        expect(store.schemaVersion).toBe(MIGRATIONS.at(-1)?.version);
        expect(store.getEffect(e.id).status).toBe('ambiguous');
        // A live run's applying effect is its runner's to settle.
        expect(store.getEffect(liveEffect.id).status).toBe('applying');
        const detail = store.getRunDetail(run.id, { eventsLimit: 1 });
        expect(detail.snapshot.run.revision).toBe(revision + 1);
        expect(detail.display).toMatchObject({ status: 'ambiguous', needsYou: true });
        expect(detail.events[0]).toMatchObject({ type: 'effect.ambiguous', actorType: 'system' });
        expect(detail.events[0]?.payload).toMatchObject({ effectId: e.id, ambiguousEffects: [e.id] });
        expect(store.listRuns({ view: 'needs-you', limit: 100 }).items.map((r) => r.run.id)).toContain(
          run.id,
        );
        expect(codeOf(() => store.retryRun(run.id, { actor: HUMAN }))).toBe('CONFLICT');
        expect(store.db.prepare(`SELECT process_pid FROM effects WHERE id = ?`).get(e.id)).toEqual({
          process_pid: null,
        });
        store.failRun(liveClaim, 'done');
        expectInvariants(store);
        expectHealthy(store);
      } finally {
        store.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('doctor reports an applying effect on a finished run', () => {
    t = createTempStore();
    const { claim, effectId } = runApplying();
    s().failRun(claim, 'x');
    s().db.prepare(`UPDATE effects SET status = 'applying' WHERE id = ?`).run(effectId);
    s().db.prepare(`UPDATE runs SET ambiguous_effects = 0 WHERE id = ?`).run(claim.runId);
    expect(s().doctor().contradictions).toContainEqual({
      runId: claim.runId,
      problem: expect.stringContaining('finished run has an effect still applying'),
    });
    s().db.prepare(`UPDATE effects SET status = 'ambiguous' WHERE id = ?`).run(effectId);
    s().db.prepare(`UPDATE runs SET ambiguous_effects = 1 WHERE id = ?`).run(claim.runId);
  });
});

describe('a sibling parked on an effect hears when its outcome is known', () => {
  it('after the other run applies the key, the parked run says so and how to go on', () => {
    t = createTempStore();
    const first = reserveAndClaim(tt(), LEASE);
    s().completeRun(first, null);
    const b = s().retryRun(first.runId, { actor: HUMAN });
    const c = s().retryRun(first.runId, { actor: HUMAN, again: true });
    const bClaim = s().claimRun(b.id, { ...runnerOwner('runner-b'), leaseMs: LEASE }).claim;
    const cClaim = s().claimRun(c.id, { ...runnerOwner('runner-c'), leaseMs: LEASE }).claim;
    const effect = s().reserveEffect(bClaim, { type: 'payment', idempotencyKey: 'pay-s', summary: 'pay' });
    s().beginEffect(bClaim, effect.id);
    // What `runwarden effect` does in C when the key is applying in B.
    s().park(cClaim, 'effectAmbiguous', `Effect pay-s has an unknown outcome in run ${b.id}: pay`);
    const before = s().getRunDetail(c.id, { eventsLimit: 1 }).display.reason;
    expect(before).toContain('unknown outcome in run');
    s().settleEffect(bClaim, effect.id, 'applied');
    const after = s().getRunDetail(c.id, { eventsLimit: 1 });
    expect(after.display.reason).toContain(`Effect pay-s it waited on has since applied in run ${b.id}`);
    expect(after.display.reason).toContain(`runwarden resume ${c.id}`);
    expect(after.display.reason).not.toContain('unknown outcome in run');
    expect(after.events[0]).toMatchObject({ type: 'run.parked', payload: { effectSettledIn: b.id } });
    // A run parked on something else is left alone.
    expect(s().getRunDetail(b.id, { eventsLimit: 1 }).snapshot.queue.errorDetail ?? null).toBeNull();
  });
});

it('an orphan started from a terminal is not named by a process group it never had', () => {
  const words = orphanCommandWords({ runId: 'run_t', commandPgid: null, commandPid: 4321 });
  expect(words).not.toContain('process group');
  expect(words).toContain('pid 4321, started from a terminal');
  expect(words).toContain("run run_t's environment");
  expect(orphanCommandWords({ runId: 'run_g', commandPgid: 77, commandPid: 77 })).toBe(
    'its command (process group 77) still runs',
  );
});
