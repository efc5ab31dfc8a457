import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createTempStore,
  HUMAN,
  reserve,
  reserveAndClaim,
  runnerOwner,
  RUNNER_ACTOR,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { EventLogWatch, expectHealthy, expectInvariants } from './invariants';
import { probeWriteLock } from '../../../bench/lock-probe';
import { DEADLINES_PER_CHUNK } from '../../../main/store/interaction-deadlines';

let t: TempStore;
let log: EventLogWatch;
const LEASE = 30_000;
const HOST = { ownerType: 'host' as const, ownerId: 'app-1', pid: 1, hostname: 'h', startId: null };

// One store per test: no test sees another's runs, so they pass in any order and alone.
beforeEach(() => {
  t = createTempStore();
  log = new EventLogWatch(t.store);
});
afterEach(() => {
  expectInvariants(t.store);
  log.check();
  expectHealthy(t.store);
  t.cleanup();
});

describe('host lease', () => {
  it('one sweeper at a time; renew keeps it; expiry lets another take over and fences the first', () => {
    const a = t.store.claimHostLease({ ...HOST, leaseMs: 10_000 });
    expect(a).toMatchObject({ runId: 'host', ownerType: 'host', ownerId: 'app-1' });
    expect(t.store.claimHostLease({ ...HOST, ownerId: 'app-2', leaseMs: 10_000 })).toBeNull();
    t.clock.advance(5_000);
    expect(t.store.renewHostLease(a!, 10_000)).toBe(true);
    t.clock.advance(10_000);
    // Lapsed, nobody took over (a suspended app): it renews.
    expect(t.store.renewHostLease(a!, 10_000)).toBe(true);
    t.clock.advance(10_000);
    const b = t.store.claimHostLease({ ...HOST, ownerId: 'app-2', leaseMs: 10_000 });
    expect(t.store.renewHostLease(a!, 10_000)).toBe(false);
    expect(b?.generation).toBe((a?.generation ?? 0) + 1);
    expect(t.store.releaseHostLease(a!)).toBe(false);
    expect(t.store.releaseHostLease(b!)).toBe(true);
    expect(t.store.claimHostLease({ ...HOST, leaseMs: 10_000 })).not.toBeNull();
  });
});

describe('stale detection', () => {
  it('listExpiredLeases honours the grace and forgets a loss once recorded; markRunnerGone is once per generation', () => {
    const claim = reserveAndClaim(t, LEASE);
    expect(t.store.listExpiredLeases({ graceMs: 0, limit: 10 }).map((l) => l.runId)).not.toContain(
      claim.runId,
    );
    t.clock.advance(LEASE + 1_000);
    expect(t.store.listExpiredLeases({ graceMs: 5_000, limit: 10 }).map((l) => l.runId)).not.toContain(
      claim.runId,
    );
    const expired = t.store
      .listExpiredLeases({ graceMs: 1_000, limit: 10 })
      .find((l) => l.runId === claim.runId);
    expect(expired).toMatchObject({
      ownerId: 'runner-1',
      ownerPid: 4242,
      ownerHostname: 'test-host',
      ownerStartId: '777',
      generation: 1,
    });
    log.check();
    expect(t.store.markRunnerGone(claim.runId, 1, 'lease expired', SWEEPER)).toBe(true);
    expect(log.check()).toEqual(['run.runner_lost']);
    expect(t.store.markRunnerGone(claim.runId, 1, 'again', SWEEPER)).toBe(false);
    expect(t.store.listExpiredLeases({ graceMs: 0, limit: 10 }).map((l) => l.runId)).not.toContain(
      claim.runId,
    );
    expect(t.store.listStaleLeases({ olderThanMs: 0, limit: 10 }).map((l) => l.runId)).toContain(claim.runId);
    expect(t.store.listStaleLeases({ olderThanMs: 60_000, limit: 10 }).map((l) => l.runId)).not.toContain(
      claim.runId,
    );
    expect(t.store.doctor().staleLeases).toBeGreaterThanOrEqual(1);
    t.store.cancelRun(claim.runId, { reason: 'stale', actor: HUMAN });
    expect(t.store.listStaleLeases({ olderThanMs: 0, limit: 10 }).map((l) => l.runId)).not.toContain(
      claim.runId,
    );
  });

  it('markRunnerGone on a live lease (owner process gone) expires it now; a stale generation does nothing', () => {
    const claim = reserveAndClaim(t, LEASE);
    expect(t.store.listLiveLeasesOnHost('test-host', 10).map((l) => l.runId)).toContain(claim.runId);
    expect(t.store.listLiveLeasesOnHost('elsewhere', 10)).toEqual([]);
    expect(t.store.markRunnerGone(claim.runId, claim.generation + 1, 'wrong generation', SWEEPER)).toBe(
      false,
    );
    expect(t.store.markRunnerGone(claim.runId, claim.generation, 'pid 4242 is gone', SWEEPER)).toBe(true);
    expect(t.store.getSnapshot(claim.runId).lease?.expiresAt).toBe(t.clock.now());
    expect(t.store.heartbeat(claim, LEASE).ok).toBe(false);
    expect(t.store.listLiveLeasesOnHost('test-host', 10).map((l) => l.runId)).not.toContain(claim.runId);
    const ev = t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).events[0];
    expect(ev).toMatchObject({
      type: 'run.runner_lost',
      leaseGeneration: claim.generation,
      payload: { expiredEarly: true },
    });
    // A new owner's generation can be lost again.
    const again = t.store.claimRun(claim.runId, { ...runnerOwner('r2'), leaseMs: LEASE }).claim;
    t.clock.advance(LEASE);
    expect(t.store.markRunnerGone(again.runId, again.generation, 'expired', SWEEPER)).toBe(true);
  });
});

describe('interaction deadlines', () => {
  it('a default settles with timeout_policy; the live runner keeps its lease and reads it', () => {
    const claim = reserveAndClaim(t, 600_000);
    const q = t.store.requestInteraction(claim, {
      kind: 'decision',
      title: 'Proceed?',
      choices: ['yes', 'no'],
      defaultResponse: 'no',
      deadlineAt: t.clock.now() + 1_000,
    });
    expect(t.store.expireInteractionDeadlines(10, SWEEPER)).toBe(0);
    t.clock.advance(1_000);
    expect(t.store.expireInteractionDeadlines(10, SWEEPER)).toBe(1);
    expect(t.store.getInteraction(q.id)).toMatchObject({
      status: 'settled',
      response: 'no',
      provenance: 'timeout_policy',
      revision: 2,
    });
    expect(t.store.getSnapshot(claim.runId).queue.status).toBe('running');
    expect(t.store.expireInteractionDeadlines(10, SWEEPER)).toBe(0);
    t.store.resumeAfterInteraction(claim);
  });

  it("a waiting runner expires its own due question and nobody else's", () => {
    const mine = reserveAndClaim(t, 600_000);
    const other = reserveAndClaim(t, 600_000, runnerOwner('runner-2'));
    const deadlineAt = t.clock.now() + 1_000;
    const q1 = t.store.requestInteraction(mine, {
      kind: 'decision',
      title: 'Mine?',
      choices: ['y'],
      deadlineAt,
    });
    const q2 = t.store.requestInteraction(other, {
      kind: 'decision',
      title: 'Theirs?',
      choices: ['y'],
      deadlineAt,
    });
    expect(t.store.expireInteractionIfDue(q1.id, RUNNER_ACTOR)).toBe(false);
    t.clock.advance(1_000);
    expect(t.store.expireInteractionIfDue(q1.id, RUNNER_ACTOR)).toBe(true);
    expect(t.store.getInteraction(q1.id).status).toBe('expired');
    expect(t.store.getInteraction(q2.id).status).toBe('pending');
    expect(t.store.expireInteractionIfDue(q1.id, RUNNER_ACTOR)).toBe(false);
    expect(t.store.expireInteractionDeadlines(10, SWEEPER)).toBe(1);
  });

  it('no default and no live runner → expired (expired_no_default) and the run parks interactionExpired', () => {
    const claim = reserveAndClaim(t, LEASE);
    const q = t.store.requestInteraction(claim, {
      kind: 'input',
      title: 'Name',
      fields: [{ name: 'n', type: 'string' }],
      deadlineAt: t.clock.now() + 5_000,
    });
    t.store.park(claim, 'runnerExited');
    t.clock.advance(5_000);
    // parked runs keep their park reason; a run still held only by an expired runner parks
    expect(t.store.expireInteractionDeadlines(10, SWEEPER)).toBe(1);
    expect(t.store.getInteraction(q.id)).toMatchObject({
      status: 'expired',
      provenance: 'expired_no_default',
    });
    const other = reserveAndClaim(t, 1_000);
    t.store.requestInteraction(other, {
      kind: 'decision',
      title: 'q',
      choices: ['a'],
      deadlineAt: t.clock.now() + 2_000,
    });
    t.clock.advance(2_000);
    expect(t.store.expireInteractionDeadlines(10, SWEEPER)).toBe(1);
    expect(t.store.getSnapshot(other.runId).queue).toMatchObject({
      status: 'parked',
      errorCode: 'interactionExpired',
    });
    expect(t.store.getRun(other.runId).status).toBe('waiting');
  });

  it('many deadlines at once settle DEADLINES_PER_CHUNK at a time, each exactly as alone', () => {
    const n = DEADLINES_PER_CHUNK * 2 + 5;
    const asked = Array.from({ length: n }, (_, i) => {
      const claim = reserveAndClaim(t, i % 3 === 0 ? 600_000 : 1_000);
      const q = t.store.requestInteraction(claim, {
        kind: 'decision',
        title: `q${i}`,
        choices: ['a', 'b'],
        ...(i % 2 === 0 && { defaultResponse: 'b' }),
        deadlineAt: t.clock.now() + 2_000,
      });
      // Two questions on some runs: both settle, each with its own revision bump and event.
      const second =
        i % 7 === 0
          ? t.store.requestInteraction(claim, {
              kind: 'decision',
              title: `q${i}b`,
              choices: ['a'],
              deadlineAt: t.clock.now() + 2_000,
            })
          : null;
      return { claim, q, second, withDefault: i % 2 === 0, live: i % 3 === 0 };
    });
    const total = n + asked.filter((a) => a.second !== null).length;
    t.clock.advance(2_000);
    const probe = probeWriteLock(t.store.db);
    try {
      // A budget of 0: one chunk to a transaction, the most transactions a burst can take.
      expect(t.store.expireInteractionDeadlines(1_000, SWEEPER, 0)).toBe(total);
      expect(probe.take()).toHaveLength(Math.ceil(total / DEADLINES_PER_CHUNK));
      // Nothing left: a second look writes nothing, whatever its budget.
      expect(t.store.expireInteractionDeadlines(1_000, SWEEPER, Infinity)).toBe(0);
      expect(probe.take()).toHaveLength(0);
    } finally {
      probe.restore();
    }
    for (const a of asked) {
      expect(t.store.getInteraction(a.q.id)).toMatchObject(
        a.withDefault
          ? { status: 'settled', response: 'b', provenance: 'timeout_policy' }
          : { status: 'expired', provenance: 'expired_no_default' },
      );
      if (a.second !== null) expect(t.store.getInteraction(a.second.id).status).toBe('expired');
      const queue = t.store.getSnapshot(a.claim.runId).queue;
      // Parks only without a default and without a live runner (the 1 s leases expired with the deadline).
      const parked = (!a.withDefault || a.second !== null) && !a.live;
      expect(queue.status, `${a.q.title}`).toBe(parked ? 'parked' : 'running');
    }
    expect(log.check().filter((type) => type === 'interaction.expired')).toHaveLength(total);
    expect(t.store.expireInteractionDeadlines(1_000, SWEEPER)).toBe(0);
  });

  it('expired presenter claims go back to pending', () => {
    const claim = reserveAndClaim(t, LEASE);
    const q = t.store.requestInteraction(claim, { kind: 'decision', title: 'q', choices: ['a'] });
    expect(t.store.presentInteraction(q.id, 'dialog-1', 10_000)).toMatchObject({
      status: 'presenting',
      presenterId: 'dialog-1',
    });
    expect(() => t.store.presentInteraction(q.id, 'dialog-2', 10_000)).toThrow(/being answered elsewhere/);
    expect(t.store.expirePresenterClaims(10)).toBe(0);
    t.clock.advance(10_000);
    expect(t.store.expirePresenterClaims(10)).toBe(1);
    expect(t.store.getInteraction(q.id)).toMatchObject({
      status: 'pending',
      presenterId: null,
      presenterExpiresAt: null,
    });
  });
});

describe('change feed and hygiene', () => {
  it('eventsAfter pages the global sequence; dataVersion moves when another connection writes', () => {
    const start = t.store.lastEventSeq();
    reserve(t);
    reserve(t);
    const events = t.store.eventsAfter(start, 10);
    expect(events.map((e) => e.type)).toEqual(['run.reserved', 'run.reserved']);
    expect(events[1]!.seq).toBeGreaterThan(events[0]!.seq);
    expect(t.store.eventsAfter(start, 1)).toHaveLength(1);
    const other = t.reopen();
    const before = t.store.dataVersion();
    other.setSetting('k', 1, HUMAN);
    expect(t.store.dataVersion()).not.toBe(before);
    // The writes above are in the WAL; with no reader holding an old snapshot, a passive checkpoint copies it all.
    const cp = t.store.checkpoint();
    expect(cp.walPages).toBeGreaterThan(0);
    expect(cp.checkpointed).toBe(cp.walPages);
  });

  it('getRunDetail pages events newest first', () => {
    const claim = reserveAndClaim(t);
    for (let i = 0; i < 5; i += 1) t.store.setProgress(claim, `p${i}`);
    const page1 = t.store.getRunDetail(claim.runId, { eventsLimit: 3 });
    expect(page1.events.map((e) => e.runRevision)).toEqual([7, 6, 5]);
    const page2 = t.store.getRunDetail(claim.runId, {
      eventsLimit: 3,
      eventsBefore: page1.nextEventsCursor!,
    });
    expect(page2.events.map((e) => e.runRevision)).toEqual([4, 3, 2]);
    const page3 = t.store.getRunDetail(claim.runId, {
      eventsLimit: 3,
      eventsBefore: page2.nextEventsCursor!,
    });
    expect(page3.events.map((e) => e.runRevision)).toEqual([1]);
    expect(page3.nextEventsCursor).toBeNull();
    expect(page1.projectPath).toBe(t.store.projectPathOfRun(claim.runId));
    expect(t.store.runLabel(claim.runId)).toEqual({
      title: 'Build the thing',
      projectPath: page1.projectPath,
    });
    expect(t.store.runLabel('run_gone')).toBeNull();
  });

  it('pruneTerminalRuns deletes old finished runs with their rows and events, in batches', () => {
    const local = createTempStore();
    try {
      const s = local.store;
      const old: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const c = reserveAndClaim(local);
        s.completeRun(c);
        old.push(c.runId);
      }
      const child = s.retryRun(old[0]!, { actor: HUMAN });
      local.clock.advance(10 * 86_400_000);
      const fresh = reserveAndClaim(local);
      s.failRun(fresh, 'x');
      s.notify(old[1]!, { level: 'info', title: 'n' }, HUMAN);
      // A budget no batch reaches, so the batches are cut by the limit alone (the budget: prune-batches.test.ts).
      const noBudget = 60_000;
      expect(s.pruneTerminalRuns(7 * 86_400_000, 2, noBudget)).toBe(2);
      expect(s.pruneTerminalRuns(7 * 86_400_000, 2, noBudget)).toBe(1);
      expect(s.pruneTerminalRuns(7 * 86_400_000, 2, noBudget)).toBe(0);
      for (const id of old) expect(() => s.getRun(id)).toThrow(/No run/);
      expect(s.getRun(fresh.runId).status).toBe('failed');
      expect(s.getRun(child.id).parentRunId).toBeNull();
      const orphanEvents = s.db
        .prepare(`SELECT count(*) AS n FROM events WHERE run_id IN (SELECT value FROM json_each(?))`)
        .get(JSON.stringify(old)) as { n: number };
      expect(orphanEvents.n).toBe(0);
      expect(s.listNotifications({ limit: 10 })[0]?.runId).toBeNull();
      expectHealthy(s);
    } finally {
      local.cleanup();
    }
  });

  it('events cannot be updated', () => {
    // An event to update: on an empty log the UPDATE touches no row and no trigger fires.
    reserve(t);
    expect(() => t.store.db.prepare(`UPDATE events SET type = 'x'`).run()).toThrow(/append-only/);
  });
});
