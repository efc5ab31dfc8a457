import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunwardenError } from '../../../shared/errors';
import type { RunSnapshot } from '../../../shared/domain';
import type { Claim } from '../../../main/store/store-types';
import {
  createTempStore,
  HUMAN,
  reserve,
  reserveAndClaim,
  runnerOwner,
  type TempStore,
} from '../../helpers/temp-store';
import { EventLogWatch, expectHealthy, expectInvariants } from './invariants';

let t: TempStore;
let log: EventLogWatch;
const LEASE = 30_000;

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

function errorOf(fn: () => unknown): RunwardenError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunwardenError) return error;
    throw error;
  }
  throw new Error('expected a RunwardenError');
}

const rev = (runId: string) => t.store.getRun(runId).revision;

/** A run whose runner did a bit of everything, then its lease expired (stale). */
function staleRunWithEverything(): { claim: Claim; attemptId: number } {
  const claim = reserveAndClaim(t, LEASE);
  t.store.markRunning(claim);
  const a1 = t.store.startAttempt(claim, 'first');
  t.store.finishAttempt(claim, a1.id, 'completed');
  const attempt = t.store.startAttempt(claim, 'deploy');
  const pending = t.store.reserveEffect(claim, { type: 'http', idempotencyKey: 'p', summary: 'not started' });
  const applying = t.store.reserveEffect(claim, {
    type: 'http',
    idempotencyKey: 'a',
    summary: 'POST /deploy',
  });
  t.store.beginEffect(claim, applying.id);
  const done = t.store.reserveEffect(claim, { type: 'http', idempotencyKey: 'd', summary: 'done' });
  t.store.beginEffect(claim, done.id);
  t.store.settleEffect(claim, done.id, 'applied');
  expect(pending.status).toBe('pending');
  t.store.requestInteraction(claim, { kind: 'decision', title: 'Ship?', choices: ['yes', 'no'] });
  t.store.requestInteraction(claim, {
    kind: 'input',
    title: 'Note',
    fields: [{ name: 'n', type: 'string' }],
  });
  t.clock.advance(LEASE + 1);
  return { claim, attemptId: attempt.id };
}

describe('cancelRun (stale cancel)', () => {
  it('refuses a live lease with LIVE_OWNER and a requestCancel recovery, writing nothing', () => {
    const claim = reserveAndClaim(t, LEASE);
    const before = t.store.lastEventSeq();
    const error = errorOf(() =>
      t.store.cancelRun(claim.runId, { expectedRevision: rev(claim.runId), reason: 'x', actor: HUMAN }),
    );
    expect(error.code).toBe('LIVE_OWNER');
    expect(error.recovery).toEqual({ kind: 'requestCancel', runId: claim.runId });
    expect(t.store.lastEventSeq()).toBe(before);
    expect(t.store.previewCancel(claim.runId).liveOwner).toBe(true);
  });

  it('cancels a stale run with the full cascade in one transaction', () => {
    const { claim, attemptId } = staleRunWithEverything();
    const preview = t.store.previewCancel(claim.runId);
    expect(preview).toEqual({
      liveOwner: false,
      cascade: {
        attemptsCancelled: 0,
        attemptsInterrupted: 1,
        effectsCancelled: 1,
        effectsAmbiguous: 1,
        interactionsCancelled: 2,
      },
    });
    log.check();
    const out = t.store.cancelRun(claim.runId, {
      expectedRevision: rev(claim.runId),
      reason: 'runner died',
      actor: HUMAN,
    });
    expect(out.cascade).toEqual(preview.cascade);
    expect(out.run).toMatchObject({
      status: 'cancelled',
      paused: false,
      statusDetail: 'runner died',
      finishedAt: t.clock.now(),
    });
    const d = t.store.getRunDetail(claim.runId, { eventsLimit: 1 });
    expect(d.snapshot.queue).toMatchObject({ status: 'cancelled', errorCode: 'cancelled' });
    expect(d.snapshot.lease).toMatchObject({ ownerType: null, generation: claim.generation + 1 });
    expect(d.attempts.find((a) => a.id === attemptId)?.status).toBe('interrupted');
    expect(d.attempts[0]?.status).toBe('completed');
    expect(d.snapshot.effects.map((e) => [e.idempotencyKey, e.status])).toEqual([
      ['p', 'cancelled'],
      ['a', 'ambiguous'],
      ['d', 'applied'],
    ]);
    const [decision, input] = d.snapshot.interactions;
    expect(decision).toMatchObject({ status: 'cancelled', revision: 2, provenance: 'explicit_cancel' });
    expect(input).toMatchObject({ status: 'cancelled', revision: 2, provenance: null });
    expect(d.events[0]).toMatchObject({
      type: 'run.cancelled',
      actorType: 'human',
      actorId: 'alice',
      surface: 'app',
      leaseGeneration: claim.generation + 1,
      payload: { stale: true, reason: 'runner died', cascade: out.cascade },
    });
    expect(log.check()).toEqual(['run.cancelled']);
    // The expired owner is fenced for good.
    expect(errorOf(() => t.store.setProgress(claim, 'late')).code).toBe('FENCED');
    expect(t.store.heartbeat(claim, LEASE).ok).toBe(false);
    expect(errorOf(() => t.store.cancelRun(claim.runId, { reason: 'again', actor: HUMAN })).code).toBe(
      'CONFLICT',
    );
  });

  it('cancels an active attempt with no applying effect as cancelled', () => {
    const claim = reserveAndClaim(t, LEASE);
    t.store.startAttempt(claim, 's');
    t.clock.advance(LEASE);
    const out = t.store.cancelRun(claim.runId, { reason: 'stale', actor: HUMAN });
    expect(out.cascade).toMatchObject({ attemptsCancelled: 1, attemptsInterrupted: 0 });
  });

  it('cancels a queued run nobody holds (stale: false)', () => {
    const run = reserve(t);
    const out = t.store.cancelRun(run.id, { expectedRevision: 1, reason: '', actor: HUMAN });
    expect(out.run.status).toBe('cancelled');
    const ev = t.store.getRunDetail(run.id, { eventsLimit: 1 }).events[0];
    expect(ev?.payload).toMatchObject({ stale: false });
  });

  it('compare-and-set: STALE_VIEW with the fresh snapshot when the run moved', () => {
    const claim = reserveAndClaim(t, LEASE);
    const seen = rev(claim.runId);
    t.store.setProgress(claim, 'moved on');
    t.clock.advance(LEASE);
    const error = errorOf(() =>
      t.store.cancelRun(claim.runId, { expectedRevision: seen, reason: 'x', actor: HUMAN }),
    );
    expect(error.code).toBe('STALE_VIEW');
    expect((error.fresh as RunSnapshot).run.revision).toBe(seen + 1);
    expect((error.fresh as RunSnapshot).run.statusDetail).toBe('moved on');
    expect(t.store.getRun(claim.runId).status).toBe('running');
    expect(errorOf(() => t.store.cancelRun('run_nope', { reason: 'x', actor: HUMAN })).code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('requestCancel / requestPause', () => {
  it('sets flags on a live run, answered by the next heartbeat; refuses finished runs', () => {
    const claim = reserveAndClaim(t, LEASE);
    const r1 = t.store.requestCancel(claim.runId, {
      expectedRevision: rev(claim.runId),
      reason: 'enough',
      actor: HUMAN,
    });
    expect(r1.cancelRequested).toBe(true);
    expect(log.check()).toContain('run.cancel_requested');
    const r2 = t.store.requestPause(claim.runId, {
      expectedRevision: r1.revision,
      reason: 'lunch',
      actor: HUMAN,
    });
    expect(r2.pauseRequested).toBe(true);
    expect(t.store.heartbeat(claim, LEASE)).toMatchObject({
      ok: true,
      cancelRequested: true,
      pauseRequested: true,
    });
    expect(
      errorOf(() =>
        t.store.requestCancel(claim.runId, { expectedRevision: r1.revision, reason: 'x', actor: HUMAN }),
      ).code,
    ).toBe('STALE_VIEW');
    // The runner honours the pause: parks paused, flag cleared.
    const parked = t.store.park(claim, 'paused');
    expect(parked).toMatchObject({ paused: true, pauseRequested: false });
    t.store.cancelRun(claim.runId, { reason: 'done', actor: HUMAN });
    expect(
      errorOf(() =>
        t.store.requestCancel(claim.runId, { expectedRevision: rev(claim.runId), reason: 'x', actor: HUMAN }),
      ).code,
    ).toBe('CONFLICT');
  });
});

describe('pauseRun / resumeRun', () => {
  it('pauses a queued run (stays queued, paused) and resumes it', () => {
    const run = reserve(t);
    const paused = t.store.pauseRun(run.id, { expectedRevision: 1, reason: 'hold', actor: HUMAN });
    expect(paused.paused).toBe(true);
    expect(t.store.getSnapshot(run.id).queue.status).toBe('queued');
    expect(
      errorOf(() => t.store.pauseRun(run.id, { expectedRevision: 2, reason: 'again', actor: HUMAN })).code,
    ).toBe('CONFLICT');
    const resumed = t.store.resumeRun(run.id, { expectedRevision: 2, actor: HUMAN });
    expect(resumed.paused).toBe(false);
    expect(errorOf(() => t.store.resumeRun(run.id, { expectedRevision: 3, actor: HUMAN })).code).toBe(
      'CONFLICT',
    );
  });

  it('refuses to pause or resume a live run (LIVE_OWNER) or a stale one (CONFLICT)', () => {
    const claim = reserveAndClaim(t, LEASE);
    const live = errorOf(() =>
      t.store.pauseRun(claim.runId, { expectedRevision: rev(claim.runId), reason: 'x', actor: HUMAN }),
    );
    expect(live.code).toBe('LIVE_OWNER');
    // The refusal names the cooperative form of the command the person ran: pause --request.
    expect(live.message).toContain('Ask it to pause instead ("pause --request").');
    expect(live.message).not.toContain('cancel');
    expect(live.recovery).toEqual({ kind: 'requestPause', runId: claim.runId });
    const cancel = errorOf(() =>
      t.store.cancelRun(claim.runId, { expectedRevision: rev(claim.runId), reason: 'x', actor: HUMAN }),
    );
    expect(cancel.message).toContain('Ask it to stop instead ("cancel --request").');
    expect(cancel.recovery).toEqual({ kind: 'requestCancel', runId: claim.runId });
    t.clock.advance(LEASE);
    expect(
      errorOf(() =>
        t.store.pauseRun(claim.runId, { expectedRevision: rev(claim.runId), reason: 'x', actor: HUMAN }),
      ).code,
    ).toBe('CONFLICT');
    expect(
      errorOf(() => t.store.resumeRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN }))
        .code,
    ).toBe('CONFLICT');
  });

  it('sourceChanged needs "resume anyway"', () => {
    const claim = reserveAndClaim(t);
    t.store.park(claim, 'sourceChanged', 'workflow.ts changed');
    const error = errorOf(() =>
      t.store.resumeRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.recovery).toEqual({ kind: 'resumeAnyway', runId: claim.runId });
    const run = t.store.resumeRun(claim.runId, {
      expectedRevision: rev(claim.runId),
      anyway: true,
      reason: 'ok',
      actor: HUMAN,
    });
    expect(run.status).toBe('queued');
    expect(t.store.getSnapshot(claim.runId).queue).toMatchObject({
      status: 'queued',
      errorCode: null,
      availableAt: t.clock.now(),
    });
  });

  it('a paused parked run keeps its park reason', () => {
    const claim = reserveAndClaim(t);
    t.store.park(claim, 'sourceChanged');
    t.store.pauseRun(claim.runId, { expectedRevision: rev(claim.runId), reason: 'hold', actor: HUMAN });
    expect(
      errorOf(() => t.store.resumeRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN }))
        .code,
    ).toBe('CONFLICT');
    t.store.resumeRun(claim.runId, { expectedRevision: rev(claim.runId), anyway: true, actor: HUMAN });
  });

  it('effectAmbiguous needs every ambiguous effect resolved first', () => {
    const claim = reserveAndClaim(t);
    t.store.startAttempt(claim, 's');
    const e1 = t.store.reserveEffect(claim, { type: 't', idempotencyKey: '1', summary: 'one' });
    const e2 = t.store.reserveEffect(claim, { type: 't', idempotencyKey: '2', summary: 'two' });
    for (const e of [e1, e2]) {
      t.store.beginEffect(claim, e.id);
      t.store.settleEffect(claim, e.id, 'ambiguous');
    }
    t.store.park(claim, 'effectAmbiguous');
    const error = errorOf(() =>
      t.store.resumeRun(claim.runId, { expectedRevision: rev(claim.runId), anyway: true, actor: HUMAN }),
    );
    expect(error.recovery).toEqual({ kind: 'resolveEffects', runId: claim.runId });
    expect(
      errorOf(() =>
        t.store.resolveEffect(e1.id, {
          resolution: 'applied',
          note: '',
          expectedRevision: rev(claim.runId),
          actor: HUMAN,
        }),
      ).code,
    ).toBe('VALIDATION');
    const r1 = t.store.resolveEffect(e1.id, {
      resolution: 'applied',
      note: 'saw it in the dashboard',
      expectedRevision: rev(claim.runId),
      actor: HUMAN,
    });
    expect(r1).toMatchObject({
      status: 'applied',
      resolution: 'applied',
      resolvedBy: 'alice',
      resolutionNote: 'saw it in the dashboard',
    });
    expect(
      errorOf(() => t.store.resumeRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN }))
        .code,
    ).toBe('CONFLICT');
    const r2 = t.store.resolveEffect(e2.id, {
      resolution: 'not_applied',
      note: 'not in logs',
      expectedRevision: rev(claim.runId),
      actor: HUMAN,
    });
    expect(r2).toMatchObject({ status: 'rejected', resolution: 'not_applied' });
    expect(
      errorOf(() =>
        t.store.resolveEffect(e2.id, {
          resolution: 'applied',
          note: 'x',
          expectedRevision: rev(claim.runId),
          actor: HUMAN,
        }),
      ).code,
    ).toBe('CONFLICT');
    const run = t.store.resumeRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN });
    expect(run.status).toBe('queued');
    // The attempt left waiting by the park is closed by the resume.
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).attempts[0]?.status).toBe('interrupted');
  });

  it('resolveEffect is compare-and-set and refuses a live owner', () => {
    const claim = reserveAndClaim(t, LEASE);
    const e = t.store.reserveEffect(claim, { type: 't', idempotencyKey: 'x', summary: 's' });
    t.store.beginEffect(claim, e.id);
    t.store.settleEffect(claim, e.id, 'ambiguous');
    const input = { resolution: 'applied' as const, note: 'n', actor: HUMAN };
    expect(errorOf(() => t.store.resolveEffect(e.id, { ...input, expectedRevision: 1 })).code).toBe(
      'STALE_VIEW',
    );
    expect(
      errorOf(() => t.store.resolveEffect(e.id, { ...input, expectedRevision: rev(claim.runId) })).code,
    ).toBe('LIVE_OWNER');
    expect(errorOf(() => t.store.resolveEffect(999_999, { ...input, expectedRevision: 1 })).code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('answerInteraction', () => {
  function ask(kind: 'decision' | 'input' = 'decision') {
    const claim = reserveAndClaim(t, LEASE);
    const q =
      kind === 'decision'
        ? t.store.requestInteraction(claim, { kind, title: 'Ship?', choices: ['yes', 'no'] })
        : t.store.requestInteraction(claim, {
            kind,
            title: 'Params',
            fields: [
              { name: 'name', type: 'string', required: true },
              { name: 'count', type: 'number' },
              { name: 'force', type: 'boolean' },
            ],
          });
    return { claim, q };
  }
  const submissions = (runId: string) => t.store.getRunDetail(runId, { eventsLimit: 1 }).submissions;

  it('accepts once; the same idempotency key is adopted without a second write', () => {
    const { claim, q } = ask();
    const first = t.store.answerInteraction(q.id, {
      interactionRevision: 1,
      idempotencyKey: 'k1',
      payload: 'yes',
      actor: HUMAN,
    });
    expect(first.outcome).toBe('accepted');
    expect(first.interaction).toMatchObject({
      status: 'settled',
      revision: 2,
      response: 'yes',
      provenance: 'human',
    });
    const revision = rev(claim.runId);
    const again = t.store.answerInteraction(q.id, {
      interactionRevision: 1,
      idempotencyKey: 'k1',
      payload: 'yes',
      actor: HUMAN,
    });
    expect(again.outcome).toBe('adopted');
    expect(again.interaction.revision).toBe(2);
    expect(rev(claim.runId)).toBe(revision);
    expect(submissions(claim.runId).map((s) => s.outcome)).toEqual(['accepted', 'adopted']);
    // A different key on the settled question is refused.
    expect(
      errorOf(() =>
        t.store.answerInteraction(q.id, {
          interactionRevision: 2,
          idempotencyKey: 'k2',
          payload: 'no',
          actor: HUMAN,
        }),
      ).code,
    ).toBe('CONFLICT');
    expect(submissions(claim.runId).map((s) => s.outcome)).toEqual(['accepted', 'adopted', 'rejected']);
  });

  it('refuses the same key with a different answer instead of reporting it recorded', () => {
    const { claim, q } = ask();
    t.store.answerInteraction(q.id, {
      interactionRevision: 1,
      idempotencyKey: 'k1',
      payload: 'yes',
      actor: HUMAN,
    });
    const changedMind = errorOf(() =>
      t.store.answerInteraction(q.id, {
        interactionRevision: 1,
        idempotencyKey: 'k1',
        payload: 'no',
        actor: HUMAN,
      }),
    );
    expect(changedMind.code).toBe('CONFLICT');
    expect(t.store.getInteraction(q.id).response).toBe('yes');
    expect(submissions(claim.runId).map((s) => s.outcome)).toEqual(['accepted', 'rejected']);
  });

  it('validates decisions against the choices and inputs against the fields (recorded as rejected)', () => {
    const { claim, q } = ask();
    const bad = errorOf(() =>
      t.store.answerInteraction(q.id, {
        interactionRevision: 1,
        idempotencyKey: 'k',
        payload: 'maybe',
        actor: HUMAN,
      }),
    );
    expect(bad.code).toBe('VALIDATION');
    const { claim: c2, q: q2 } = ask('input');
    const cases: unknown[] = [
      'text',
      [],
      null,
      { count: 1 },
      { name: 3 },
      { name: 'x', count: 'two' },
      { name: 'x', count: Number.NaN },
      { name: 'x', extra: 1 },
      { name: 'x', force: 'yes' },
    ];
    for (const payload of cases) {
      const error = errorOf(() =>
        t.store.answerInteraction(q2.id, {
          interactionRevision: 1,
          idempotencyKey: JSON.stringify(payload) ?? 'u',
          payload,
          actor: HUMAN,
        }),
      );
      expect(error.code, JSON.stringify(payload)).toBe('VALIDATION');
      expect(error.issues?.length).toBeGreaterThan(0);
    }
    expect(submissions(c2.runId).every((s) => s.outcome === 'rejected')).toBe(true);
    expect(submissions(c2.runId)).toHaveLength(cases.length);
    const ok = t.store.answerInteraction(q2.id, {
      interactionRevision: 1,
      idempotencyKey: 'good',
      payload: { name: 'x', count: 2, force: false },
      actor: HUMAN,
    });
    expect(ok.outcome).toBe('accepted');
    expect(submissions(claim.runId)).toHaveLength(1);
  });

  it('refuses a moved revision (STALE_VIEW), a paused run and a finished run (CONFLICT)', () => {
    const { q } = ask();
    const stale = errorOf(() =>
      t.store.answerInteraction(q.id, {
        interactionRevision: 5,
        idempotencyKey: 'k',
        payload: 'yes',
        actor: HUMAN,
      }),
    );
    expect(stale.code).toBe('STALE_VIEW');
    expect(stale.fresh).toMatchObject({ id: q.id, revision: 1 });

    const { claim: c2, q: q2 } = ask();
    t.store.park(c2, 'paused');
    expect(
      errorOf(() =>
        t.store.answerInteraction(q2.id, {
          interactionRevision: 1,
          idempotencyKey: 'k',
          payload: 'yes',
          actor: HUMAN,
        }),
      ).code,
    ).toBe('CONFLICT');

    const { claim: c3, q: q3 } = ask();
    t.store.completeRun(c3);
    expect(
      errorOf(() =>
        t.store.answerInteraction(q3.id, {
          interactionRevision: 1,
          idempotencyKey: 'k',
          payload: 'yes',
          actor: HUMAN,
        }),
      ).code,
    ).toBe('CONFLICT');
    expect(
      errorOf(() =>
        t.store.answerInteraction('int_nope', {
          interactionRevision: 1,
          idempotencyKey: 'k',
          payload: 'yes',
          actor: HUMAN,
        }),
      ).code,
    ).toBe('NOT_FOUND');
  });
});

describe('retryRun', () => {
  it('makes a new queued run with lineage retry and the same workflow, input and command', () => {
    const run = t.store.reserveRun(
      {
        projectPath: t.projectDir,
        workflow: 'release',
        title: 'Release 1.0',
        input: { v: 1 },
        command: { argv: ['make'], cwd: '/src' },
      },
      { type: 'runner', id: 'r', surface: 'cli' },
    );
    expect(errorOf(() => t.store.retryRun(run.id, { actor: HUMAN })).code).toBe('CONFLICT');
    const claim = t.store.claimRun(run.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
    t.store.failRun(claim, 'boom');
    expect(errorOf(() => t.store.retryRun(run.id, { expectedRevision: 1, actor: HUMAN })).code).toBe(
      'STALE_VIEW',
    );
    const retry = t.store.retryRun(run.id, { expectedRevision: rev(run.id), actor: HUMAN });
    expect(retry).toMatchObject({
      status: 'queued',
      parentRunId: run.id,
      lineage: 'retry',
      workflow: 'release',
      title: 'Release 1.0',
      input: { v: 1 },
      command: { argv: ['make'], cwd: '/src' },
      revision: 1,
    });
    expect(retry.id).not.toBe(run.id);
    expect(log.check().slice(-2)).toEqual(['run.reserved', 'run.retried']);
  });

  it('refuses a second retry while the first has not finished, from any surface, unless again', () => {
    const claim = reserveAndClaim(t);
    t.store.failRun(claim, 'boom');
    const first = t.store.retryRun(claim.runId, { actor: HUMAN });
    const before = t.store.lastEventSeq();
    const refused = errorOf(() =>
      t.store.retryRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN }),
    );
    expect(refused).toMatchObject({ code: 'CONFLICT' });
    expect(refused.message).toBe(
      `Run ${claim.runId} was already retried as ${first.id}, which is queued; another retry would run the same work twice at once.`,
    );
    expect(t.store.lastEventSeq()).toBe(before);
    const again = t.store.retryRun(claim.runId, { again: true, actor: HUMAN });
    expect(again.id).not.toBe(first.id);
    // Once the retries have finished, a plain retry is taken again.
    for (const id of [first.id, again.id]) {
      t.store.failRun(t.store.claimRun(id, { ...runnerOwner(), leaseMs: LEASE }).claim, 'boom again');
    }
    expect(t.store.retryRun(claim.runId, { actor: HUMAN }).status).toBe('queued');
    log.check();
  });

  it('is refused while a side effect of the finished run is unresolved, and allowed once it is', () => {
    const claim = reserveAndClaim(t);
    t.store.startAttempt(claim, 's');
    const effect = t.store.reserveEffect(claim, { type: 'charge', idempotencyKey: 'c1', summary: 'charge' });
    t.store.beginEffect(claim, effect.id);
    t.store.settleEffect(claim, effect.id, 'ambiguous');
    t.store.failRun(claim, 'lost the connection mid-charge');
    log.check();
    const refused = errorOf(() =>
      t.store.retryRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN }),
    );
    expect(refused.code).toBe('CONFLICT');
    expect(refused.message).toMatch(/Resolve it first: a retry could do it again/);
    expect(refused.recovery).toEqual({ kind: 'resolveEffects', runId: claim.runId });
    expect(log.check(), 'a refused retry writes nothing').toEqual([]);
    t.store.resolveEffect(effect.id, {
      resolution: 'applied',
      note: 'the provider shows the charge',
      expectedRevision: rev(claim.runId),
      actor: HUMAN,
    });
    const retry = t.store.retryRun(claim.runId, { expectedRevision: rev(claim.runId), actor: HUMAN });
    expect(retry).toMatchObject({ parentRunId: claim.runId, lineage: 'retry' });
  });
});
