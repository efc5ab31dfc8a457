import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunwardenError } from '../../../shared/errors';
import {
  createTempStore,
  HUMAN,
  reserve,
  reserveAndClaim,
  RUNNER_ACTOR,
  runnerOwner,
  type TempStore,
} from '../../helpers/temp-store';
import { EventLogWatch, expectHealthy, expectInvariants } from './invariants';

let t: TempStore;
let log: EventLogWatch;

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

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunwardenError) return error.code;
    throw error;
  }
  throw new Error('expected a RunwardenError');
}

const LEASE = 30_000;

describe('reserveRun', () => {
  it('creates a queued run with revision 1, a queued entry and an ownerless lease', () => {
    const run = reserve(t, { title: 'Fresh' });
    expect(run).toMatchObject({ status: 'queued', revision: 1, title: 'Fresh', paused: false });
    expect(run.id).toMatch(/^run_[0-9a-z]{26}$/);
    const snap = t.store.getSnapshot(run.id);
    expect(snap.queue).toMatchObject({ status: 'queued', availableAt: t.clock.now(), errorCode: null });
    expect(snap.lease).toMatchObject({ generation: 0, ownerType: null, expiresAt: null });
    expect(log.check()).toEqual(['run.reserved']);
  });

  it('is idempotent by request key', () => {
    const a = reserve(t, { requestKey: 'key-1' });
    const b = reserve(t, { requestKey: 'key-1', title: 'Other title' });
    expect(b.id).toBe(a.id);
    expect(b.revision).toBe(1);
    expect(log.check()).toEqual(['run.reserved']);
  });

  it("a key stands for its run's newest retry that has not ended, else its newest", () => {
    const fail = (runId: string) => {
      const { claim } = t.store.claimRun(runId, { ...runnerOwner(), leaseMs: LEASE });
      t.store.failRun(claim, 'exit 1');
    };
    const first = reserve(t, { requestKey: 'key-2' });
    fail(first.id);
    expect(reserve(t, { requestKey: 'key-2' }).id).toBe(first.id);
    const retry = t.store.retryRun(first.id, { actor: HUMAN });
    expect(reserve(t, { requestKey: 'key-2' })).toMatchObject({ id: retry.id, status: 'queued' });
    fail(retry.id);
    expect(reserve(t, { requestKey: 'key-2' }).id).toBe(retry.id);
    // A second retry of the first run (`retry --again`) that has not ended wins over the deeper ended one.
    const again = t.store.retryRun(first.id, { actor: HUMAN });
    expect(reserve(t, { requestKey: 'key-2' }).id).toBe(again.id);
    expect(t.store.getSnapshot(first.id).run.requestKey).toBe('key-2');
    expect(t.store.getSnapshot(again.id).run.requestKey).toBeNull();
    log.check();
  });

  it('canonicalises the project path through symlinks', () => {
    const link = path.join(t.dir, 'link-to-project');
    fs.symlinkSync(t.projectDir, link);
    const run = reserve(t, { projectPath: link });
    expect(run.projectPath).toBe(fs.realpathSync(t.projectDir));
    expect(t.store.listProjects().filter((p) => p.canonicalPath === run.projectPath)).toHaveLength(1);
  });

  it('refuses a missing project folder and empty names with VALIDATION, writing nothing', () => {
    const before = t.store.lastEventSeq();
    expect(codeOf(() => reserve(t, { projectPath: path.join(t.dir, 'nope') }))).toBe('VALIDATION');
    expect(codeOf(() => reserve(t, { title: '' }))).toBe('VALIDATION');
    expect(t.store.lastEventSeq()).toBe(before);
  });

  it('hides the origin session of headless runs', () => {
    const run = t.store.reserveRun(
      {
        projectPath: t.projectDir,
        workflow: 'w',
        title: 'h',
        executionMode: 'headless',
        originSession: 's1',
      },
      RUNNER_ACTOR,
    );
    expect(run.originSession).toBeNull();
    const run2 = t.store.reserveRun(
      {
        projectPath: t.projectDir,
        workflow: 'w',
        title: 'i',
        executionMode: 'interactive',
        originSession: 's1',
      },
      RUNNER_ACTOR,
    );
    expect(run2.originSession).toBe('s1');
  });

  it('gives ids that sort by creation time', () => {
    const a = reserve(t);
    t.clock.advance(1);
    const b = reserve(t);
    const c = reserve(t);
    expect([c.id, a.id, b.id].sort()).toEqual([a.id, b.id, c.id]);
  });
});

describe('claimRun', () => {
  it('bumps the generation, moves queue → starting and run → running, returns a token only the claimer has', () => {
    const run = reserve(t);
    const { claim, run: claimed } = t.store.claimRun(run.id, { ...runnerOwner(), leaseMs: LEASE });
    expect(claim).toMatchObject({
      runId: run.id,
      generation: 1,
      ownerType: 'runner',
      expiresAt: t.clock.now() + LEASE,
    });
    expect(claim.token).toMatch(/^[0-9a-f]{64}$/);
    expect(claimed).toMatchObject({ status: 'running', revision: 2 });
    expect(t.store.getSnapshot(run.id).queue.status).toBe('starting');
    const hash = t.store.db.prepare(`SELECT token_hash FROM leases WHERE run_id = ?`).get(run.id) as {
      token_hash: string;
    };
    expect(hash.token_hash).not.toBe(claim.token);
    expect(hash.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(log.check()).toEqual(['run.reserved', 'run.claimed']);
  });

  it('refuses another owner while the lease is live (LIVE_OWNER) and allows it once expired', () => {
    const claim = reserveAndClaim(t, LEASE);
    expect(codeOf(() => t.store.claimRun(claim.runId, { ...runnerOwner('runner-2'), leaseMs: LEASE }))).toBe(
      'LIVE_OWNER',
    );
    t.clock.advance(LEASE);
    const second = t.store.claimRun(claim.runId, { ...runnerOwner('runner-2'), leaseMs: LEASE }).claim;
    expect(second.generation).toBe(claim.generation + 1);
    // The first owner is fenced.
    expect(codeOf(() => t.store.markRunning(claim))).toBe('FENCED');
  });

  it('lets the same owner re-claim (new generation fences the old token)', () => {
    const claim = reserveAndClaim(t, LEASE);
    const again = t.store.claimRun(claim.runId, { ...runnerOwner(), leaseMs: LEASE }).claim;
    expect(again.generation).toBe(claim.generation + 1);
    expect(t.store.heartbeat(claim, LEASE).ok).toBe(false);
    expect(t.store.heartbeat(again, LEASE).ok).toBe(true);
  });

  it('refuses a finished run (CONFLICT) and an unknown one (NOT_FOUND)', () => {
    const claim = reserveAndClaim(t);
    t.store.completeRun(claim);
    expect(codeOf(() => t.store.claimRun(claim.runId, { ...runnerOwner(), leaseMs: LEASE }))).toBe(
      'CONFLICT',
    );
    expect(codeOf(() => t.store.claimRun('run_nope', { ...runnerOwner(), leaseMs: LEASE }))).toBe(
      'NOT_FOUND',
    );
  });

  it('refuses a run with an open question unless it is a control claim', () => {
    const claim = reserveAndClaim(t);
    t.store.requestInteraction(claim, { kind: 'decision', title: 'Go?', choices: ['yes', 'no'] });
    t.store.park(claim, 'runnerExited');
    expect(codeOf(() => t.store.claimRun(claim.runId, { ...runnerOwner(), leaseMs: LEASE }))).toBe(
      'CONFLICT',
    );
    const ctl = t.store.claimRun(claim.runId, {
      ...runnerOwner('ctl', { ownerType: 'control' }),
      leaseMs: LEASE,
      control: true,
      keepQueueStatus: true,
    }).claim;
    expect(ctl.ownerType).toBe('control');
    expect(t.store.getSnapshot(claim.runId).queue.status).toBe('parked');
    t.clock.advance(LEASE);
  });

  it('interrupts the previous owner’s active attempt', () => {
    const claim = reserveAndClaim(t, LEASE);
    const attempt = t.store.startAttempt(claim, 'step');
    t.clock.advance(LEASE);
    t.store.claimRun(claim.runId, { ...runnerOwner('runner-2'), leaseMs: LEASE });
    const detail = t.store.getRunDetail(claim.runId, { eventsLimit: 5 });
    expect(detail.attempts.find((a) => a.id === attempt.id)?.status).toBe('interrupted');
  });
});

describe('claimRun by id respects what only a person may undo', () => {
  it('refuses a run parked for an ambiguous effect until the effect is resolved and the run resumed', () => {
    const claim = reserveAndClaim(t);
    const effect = t.store.reserveEffect(claim, { type: 'http', idempotencyKey: 'pay-1', summary: 'charge' });
    t.store.beginEffect(claim, effect.id);
    t.store.settleEffect(claim, effect.id, 'ambiguous');
    t.store.park(claim, 'effectAmbiguous', 'timeout');
    const again = () => t.store.claimRun(claim.runId, { ...runnerOwner('ci-retry'), leaseMs: 30_000 });
    expect(codeOf(again)).toBe('CONFLICT');
    expect(t.store.getSnapshot(claim.runId).queue).toMatchObject({
      status: 'parked',
      errorCode: 'effectAmbiguous',
    });
    let run = t.store.getRun(claim.runId);
    t.store.resolveEffect(effect.id, {
      resolution: 'not_applied',
      note: 'no charge',
      expectedRevision: run.revision,
      actor: HUMAN,
    });
    expect(codeOf(again)).toBe('CONFLICT');
    run = t.store.getRun(claim.runId);
    t.store.resumeRun(claim.runId, { expectedRevision: run.revision, actor: HUMAN });
    expect(again().run.status).toBe('running');
  });

  it('refuses a run parked because its source changed until a person resumes it anyway', () => {
    const claim = reserveAndClaim(t);
    t.store.park(claim, 'sourceChanged', 'workflow.ts changed');
    const again = () => t.store.claimRun(claim.runId, { ...runnerOwner('ci-retry'), leaseMs: 30_000 });
    expect(codeOf(again)).toBe('CONFLICT');
    const run = t.store.getRun(claim.runId);
    t.store.resumeRun(claim.runId, { expectedRevision: run.revision, anyway: true, actor: HUMAN });
    expect(again().run.status).toBe('running');
  });

  it('a takeover of an expired lease turns the effects it left applying into ambiguous ones', () => {
    const claim = reserveAndClaim(t, 5_000);
    const attempt = t.store.startAttempt(claim, 'deploy');
    const effect = t.store.reserveEffect(claim, {
      type: 'deploy',
      idempotencyKey: 'deploy-42',
      summary: 'deploy v42',
      attemptId: attempt.id,
    });
    t.store.beginEffect(claim, effect.id);
    t.clock.advance(6_000);
    const { claim: taken } = t.store.claimRun(claim.runId, { ...runnerOwner('runner-2'), leaseMs: 30_000 });
    const snapshot = t.store.getSnapshot(claim.runId);
    expect(snapshot.effects.find((e) => e.id === effect.id)?.status).toBe('ambiguous');
    expect(
      t.store.getRunDetail(claim.runId, { eventsLimit: 10 }).attempts.find((a) => a.id === attempt.id)
        ?.status,
    ).toBe('interrupted');
    // The new owner finds it unknown and must not repeat it.
    expect(
      t.store.reserveEffect(taken, { type: 'deploy', idempotencyKey: 'deploy-42', summary: 'deploy v42' })
        .status,
    ).toBe('ambiguous');
    t.store.park(taken, 'effectAmbiguous', 'deploy-42 unknown');
  });
});

describe('claimNext', () => {
  it('takes the oldest available claimable run and skips what it must', () => {
    const local = createTempStore();
    try {
      const s = local.store;
      const mk = (title: string) => reserve(local, { title });
      const paused = mk('paused');
      s.pauseRun(paused.id, { expectedRevision: 1, reason: 'hold', actor: HUMAN });
      local.clock.advance(1);
      const source = mk('source');
      const sc = s.claimRun(source.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
      s.park(sc, 'sourceChanged');
      local.clock.advance(1);
      const amb = mk('amb');
      const ac = s.claimRun(amb.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
      const eff = s.reserveEffect(ac, { type: 't', idempotencyKey: 'k', summary: 's' });
      s.beginEffect(ac, eff.id);
      s.settleEffect(ac, eff.id, 'ambiguous');
      s.park(ac, 'effectAmbiguous');
      local.clock.advance(1);
      const asking = mk('asking');
      const qc = s.claimRun(asking.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
      s.requestInteraction(qc, { kind: 'decision', title: 'q', choices: ['a'] });
      s.park(qc, 'runnerExited');
      local.clock.advance(1);
      const future = s.reserveRun(
        {
          projectPath: local.projectDir,
          workflow: 'w',
          title: 'future',
          availableAt: local.clock.now() + 60_000,
        },
        RUNNER_ACTOR,
      );
      local.clock.advance(1);
      const excluded = mk('excluded');
      local.clock.advance(1);
      const exited = mk('exited');
      const ec = s.claimRun(exited.id, { ...runnerOwner(), leaseMs: LEASE }).claim;
      s.park(ec, 'runnerExited');
      local.clock.advance(1);
      const plain = mk('plain');

      const owner = { ...runnerOwner('w2'), leaseMs: LEASE, excludeIds: [excluded.id] };
      const first = s.claimNext(owner);
      expect(first?.run.title).toBe('exited'); // parked runnerExited is claimable, and older than plain
      const second = s.claimNext(owner);
      expect(second?.run.id).toBe(plain.id);
      expect(s.claimNext(owner)).toBeNull();
      local.clock.advance(60_000);
      expect(s.claimNext(owner)?.run.id).toBe(future.id);
      expect(s.claimNext({ ...owner, excludeIds: [] })?.run.id).toBe(excluded.id);
      expect(s.claimNext({ ...owner, excludeIds: [] })).toBeNull();
      expectInvariants(s);
      expectHealthy(s);
    } finally {
      local.cleanup();
    }
  });

  it('filters by project and by runs that carry a command', () => {
    const local = createTempStore();
    try {
      const other = path.join(local.dir, 'other');
      fs.mkdirSync(other);
      local.store.reserveRun({ projectPath: other, workflow: 'w', title: 'other' }, RUNNER_ACTOR);
      local.store.reserveRun(
        { projectPath: local.projectDir, workflow: 'w', title: 'no-command' },
        RUNNER_ACTOR,
      );
      local.store.reserveRun(
        {
          projectPath: local.projectDir,
          workflow: 'w',
          title: 'with-command',
          command: { argv: ['true'], cwd: '/' },
        },
        RUNNER_ACTOR,
      );
      const owner = { ...runnerOwner(), leaseMs: LEASE };
      expect(
        local.store.claimNext({ ...owner, projectPaths: [local.projectDir], requireCommand: true })?.run
          .title,
      ).toBe('with-command');
      expect(local.store.claimNext({ ...owner, projectPaths: [local.projectDir] })?.run.title).toBe(
        'no-command',
      );
      expect(local.store.claimNext({ ...owner, projectPaths: [local.projectDir] })).toBeNull();
      expect(local.store.claimNext(owner)?.run.title).toBe('other');
      expectInvariants(local.store);
    } finally {
      local.cleanup();
    }
  });
});

describe('heartbeat', () => {
  it('extends a live lease without an event or a revision bump, and answers requests', () => {
    const claim = reserveAndClaim(t, LEASE);
    const rev = t.store.getRun(claim.runId).revision;
    log.check();
    t.clock.advance(10_000);
    const answer = t.store.heartbeat(claim, LEASE);
    expect(answer).toEqual({
      ok: true,
      cancelRequested: false,
      pauseRequested: false,
      expiresAt: t.clock.now() + LEASE,
    });
    expect(t.store.getRun(claim.runId).revision).toBe(rev);
    expect(log.check()).toEqual([]);
    t.store.requestCancel(claim.runId, { expectedRevision: rev, reason: 'stop', actor: HUMAN });
    expect(t.store.heartbeat(claim, LEASE)).toMatchObject({ ok: true, cancelRequested: true });
    t.store.requestPause(claim.runId, { expectedRevision: rev + 1, reason: 'hold', actor: HUMAN });
    expect(t.store.heartbeat(claim, LEASE)).toMatchObject({
      ok: true,
      cancelRequested: true,
      pauseRequested: true,
    });
  });

  it('renews a lapsed lease nobody took over, with an event; never one taken over or verified gone', () => {
    const claim = reserveAndClaim(t, LEASE);
    t.clock.advance(LEASE + 5_000);
    const rev = t.store.getRun(claim.runId).revision;
    log.check();
    expect(t.store.heartbeat(claim, LEASE)).toMatchObject({ ok: true, lapsedMs: 5_000 });
    expect(t.store.getSnapshot(claim.runId).lease?.expiresAt).toBe(t.clock.now() + LEASE);
    expect(t.store.getRun(claim.runId).revision).toBe(rev + 1);
    expect(log.check()).toEqual(['run.lease_renewed_late']);
    const late = t.store
      .getRunDetail(claim.runId, { eventsLimit: 5 })
      .events.find((e) => e.type === 'run.lease_renewed_late');
    // Its actor is the runner that came back, not an empty one.
    expect(late).toMatchObject({ actorType: claim.ownerType, actorId: claim.ownerId });
    expect(late?.actorId).toBeTruthy();
    // Verified gone (the sweeper saw its process vanish): the lapsed lease stays lost.
    expect(t.store.markRunnerGone(claim.runId, claim.generation, 'pid gone', HUMAN)).toBe(true);
    t.clock.advance(1);
    expect(t.store.heartbeat(claim, LEASE)).toMatchObject({ ok: false, expiresAt: null, lost: 'lapsed' });
    log.check();
    // Taken over: a new generation.
    const other = reserveAndClaim(t, LEASE);
    t.clock.advance(LEASE + 1);
    const taker = t.store.claimRun(other.runId, { ...runnerOwner('taker'), leaseMs: LEASE }).claim;
    expect(t.store.heartbeat(other, LEASE)).toMatchObject({ ok: false, lost: 'takenOver' });
    t.store.releaseRun(taker);
    expect(t.store.heartbeat(taker, LEASE)).toMatchObject({ ok: false, lost: 'released' });
  });

  it('is fenced by a wrong token, generation or owner type', () => {
    const claim = reserveAndClaim(t, LEASE);
    expect(t.store.heartbeat({ ...claim, token: '0'.repeat(64) }, LEASE).ok).toBe(false);
    expect(t.store.heartbeat({ ...claim, generation: claim.generation + 1 }, LEASE).ok).toBe(false);
    expect(t.store.heartbeat({ ...claim, ownerType: 'control' }, LEASE).ok).toBe(false);
    expect(t.store.heartbeat(claim, LEASE).ok).toBe(true);
  });
});

describe('running, progress, attempts', () => {
  it('markRunning → queue running; setProgress records the detail', () => {
    const claim = reserveAndClaim(t);
    t.store.markRunning(claim);
    expect(t.store.getSnapshot(claim.runId).queue.status).toBe('running');
    const run = t.store.setProgress(claim, '3/10 files');
    expect(run.statusDetail).toBe('3/10 files');
    expect(log.check()).toEqual(['run.reserved', 'run.claimed', 'run.running', 'run.progress']);
  });

  it('allows at most one active attempt; numbers attempts per step', () => {
    const claim = reserveAndClaim(t);
    const a1 = t.store.startAttempt(claim, 'fetch', { deadlineAt: t.clock.now() + 1000 });
    expect(a1).toMatchObject({
      step: 'fetch',
      number: 1,
      status: 'running',
      deadlineAt: t.clock.now() + 1000,
    });
    expect(t.store.getRun(claim.runId).currentStep).toBe('fetch');
    expect(codeOf(() => t.store.startAttempt(claim, 'other'))).toBe('CONFLICT');
    expect(t.store.finishAttempt(claim, a1.id, 'failed', 'boom')).toMatchObject({
      status: 'failed',
      error: 'boom',
    });
    expect(codeOf(() => t.store.finishAttempt(claim, a1.id, 'completed'))).toBe('CONFLICT');
    const a2 = t.store.startAttempt(claim, 'fetch');
    expect(a2.number).toBe(2);
    t.store.finishAttempt(claim, a2.id, 'completed');
    // The schema itself refuses a second active attempt.
    t.store.startAttempt(claim, 'x');
    expect(() =>
      t.store.db
        .prepare(
          `INSERT INTO attempts (run_id, step, number, status, started_at) VALUES (?, 'y', 1, 'running', 0)`,
        )
        .run(claim.runId),
    ).toThrow(/UNIQUE/);
  });
});

describe('interactions (runner side)', () => {
  it('requestInteraction → run waiting, attempt waiting; answered; resumeAfterInteraction → running', () => {
    const claim = reserveAndClaim(t);
    t.store.markRunning(claim);
    t.store.startAttempt(claim, 'ask');
    const q = t.store.requestInteraction(claim, {
      kind: 'input',
      title: 'Version?',
      prompt: '**which**',
      fields: [
        { name: 'version', type: 'string', required: true },
        { name: 'dry', type: 'boolean' },
      ],
      deadlineAt: t.clock.now() + 60_000,
    });
    expect(q).toMatchObject({ status: 'pending', revision: 1, kind: 'input', hasDefault: false });
    const snap = t.store.getSnapshot(claim.runId);
    expect(snap.run.status).toBe('waiting');
    expect(snap.queue.status).toBe('running');
    expect(codeOf(() => t.store.resumeAfterInteraction(claim))).toBe('CONFLICT');
    t.store.answerInteraction(q.id, {
      interactionRevision: 1,
      idempotencyKey: 'k',
      payload: { version: '1.2' },
      actor: HUMAN,
    });
    expect(t.store.getInteraction(q.id)).toMatchObject({
      status: 'settled',
      response: { version: '1.2' },
      provenance: 'human',
    });
    t.store.resumeAfterInteraction(claim);
    const after = t.store.getRunDetail(claim.runId, { eventsLimit: 50 });
    expect(after.snapshot.run.status).toBe('running');
    expect(after.attempts[0]?.status).toBe('running');
  });

  it('validates the question', () => {
    const claim = reserveAndClaim(t);
    expect(
      codeOf(() => t.store.requestInteraction(claim, { kind: 'decision', title: 'x', choices: [] })),
    ).toBe('VALIDATION');
    expect(
      codeOf(() => t.store.requestInteraction(claim, { kind: 'decision', title: 'x', choices: ['a', 'a'] })),
    ).toBe('VALIDATION');
    expect(
      codeOf(() =>
        t.store.requestInteraction(claim, {
          kind: 'decision',
          title: 'x',
          choices: ['a'],
          defaultResponse: 'b',
        }),
      ),
    ).toBe('VALIDATION');
    expect(
      codeOf(() =>
        t.store.requestInteraction(claim, {
          kind: 'input',
          title: 'x',
          fields: [{ name: 'n', type: 'date' as 'string' }],
        }),
      ),
    ).toBe('VALIDATION');
    expect(codeOf(() => t.store.getInteraction('int_nope'))).toBe('NOT_FOUND');
  });
});

describe('effects (runner side)', () => {
  it('reserve is idempotent by key; pending → applying → applied|rejected|ambiguous', () => {
    const claim = reserveAndClaim(t);
    const e1 = t.store.reserveEffect(claim, { type: 'http', idempotencyKey: 'k1', summary: 'POST /deploy' });
    expect(e1).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect(t.store.reserveEffect(claim, { type: 'http', idempotencyKey: 'k1', summary: 'again' }).id).toBe(
      e1.id,
    );
    expect(codeOf(() => t.store.settleEffect(claim, e1.id, 'applied'))).toBe('CONFLICT');
    expect(t.store.beginEffect(claim, e1.id)).toMatchObject({ status: 'applying', attemptCount: 1 });
    expect(codeOf(() => t.store.beginEffect(claim, e1.id))).toBe('CONFLICT');
    expect(t.store.settleEffect(claim, e1.id, 'applied').status).toBe('applied');
    const e2 = t.store.reserveEffect(claim, { type: 'mail', idempotencyKey: 'k2', summary: 'mail' });
    t.store.beginEffect(claim, e2.id);
    expect(t.store.settleEffect(claim, e2.id, 'ambiguous').status).toBe('ambiguous');
    const row = t.store.db.prepare(`SELECT ambiguous_effects FROM runs WHERE id = ?`).get(claim.runId) as {
      ambiguous_effects: number;
    };
    expect(row.ambiguous_effects).toBe(1);
    expect(log.check()).toEqual([
      'run.reserved',
      'run.claimed',
      'effect.reserved',
      'effect.applying',
      'effect.applied',
      'effect.reserved',
      'effect.applying',
      'effect.ambiguous',
    ]);
  });

  it('refuses an effect of another run', () => {
    const a = reserveAndClaim(t);
    const b = reserveAndClaim(t);
    const e = t.store.reserveEffect(a, { type: 't', idempotencyKey: 'k', summary: 's' });
    expect(codeOf(() => t.store.beginEffect(b, e.id))).toBe('NOT_FOUND');
  });
});

describe('park', () => {
  it('effectAmbiguous: active attempt → waiting, run → waiting, queue parked, lease released', () => {
    const claim = reserveAndClaim(t);
    const a = t.store.startAttempt(claim, 's');
    const run = t.store.park(claim, 'effectAmbiguous', 'unknown deploy');
    expect(run.status).toBe('waiting');
    const detail = t.store.getRunDetail(claim.runId, { eventsLimit: 1 });
    expect(detail.attempts.find((x) => x.id === a.id)?.status).toBe('waiting');
    expect(detail.snapshot.queue).toMatchObject({
      status: 'parked',
      errorCode: 'effectAmbiguous',
      errorDetail: 'unknown deploy',
    });
    expect(detail.snapshot.lease?.ownerType).toBeNull();
    expect(detail.events[0]?.type).toBe('run.parked');
  });

  it.each(['sourceChanged', 'runnerExited', 'paused'] as const)(
    '%s: queue parked, attempts interrupted, lease released',
    (code) => {
      const claim = reserveAndClaim(t);
      t.store.markRunning(claim);
      const a = t.store.startAttempt(claim, 's');
      t.store.park(claim, code);
      const detail = t.store.getRunDetail(claim.runId, { eventsLimit: 1 });
      expect(detail.snapshot.queue).toMatchObject({ status: 'parked', errorCode: code });
      expect(detail.snapshot.run.status).toBe('running');
      expect(detail.snapshot.run.paused).toBe(code === 'paused');
      expect(detail.attempts.find((x) => x.id === a.id)?.status).toBe('interrupted');
      expect(detail.snapshot.lease?.ownerType).toBeNull();
      expect(codeOf(() => t.store.markRunning(claim))).toBe('FENCED');
    },
  );

  it('refuses an unknown code', () => {
    const claim = reserveAndClaim(t);
    expect(codeOf(() => t.store.park(claim, 'bogus' as 'paused'))).toBe('VALIDATION');
  });
});

describe('finishing', () => {
  it('completeRun: done, output kept, active attempt completed, open questions cancelled, lease released', () => {
    const claim = reserveAndClaim(t);
    t.store.startAttempt(claim, 's');
    const run = t.store.completeRun(claim, { result: 42 });
    expect(run).toMatchObject({ status: 'completed', output: { result: 42 }, finishedAt: t.clock.now() });
    const d = t.store.getRunDetail(claim.runId, { eventsLimit: 1 });
    expect(d.snapshot.queue.status).toBe('done');
    expect(d.attempts[0]?.status).toBe('completed');
    expect(codeOf(() => t.store.completeRun(claim))).toBe('FENCED');
  });

  it('failRun and timeOutRun map to queue failed with their codes', () => {
    const c1 = reserveAndClaim(t);
    expect(t.store.failRun(c1, 'exit 2\nstack').error).toBe('exit 2\nstack');
    expect(t.store.getSnapshot(c1.runId).queue).toMatchObject({ status: 'failed', errorCode: 'failed' });
    const c2 = reserveAndClaim(t);
    expect(t.store.timeOutRun(c2).status).toBe('timed_out');
    expect(t.store.getSnapshot(c2.runId).queue).toMatchObject({ status: 'failed', errorCode: 'timedOut' });
  });

  it('releaseRun: back to queued, available now, ownerless; refused while waiting', () => {
    const claim = reserveAndClaim(t);
    t.clock.advance(5);
    const run = t.store.releaseRun(claim);
    expect(run.status).toBe('queued');
    const snap = t.store.getSnapshot(claim.runId);
    expect(snap.queue).toMatchObject({ status: 'queued', availableAt: t.clock.now() });
    expect(snap.lease).toMatchObject({ ownerType: null, generation: 1 });
    const c2 = reserveAndClaim(t);
    t.store.requestInteraction(c2, { kind: 'decision', title: 'q', choices: ['a'] });
    expect(codeOf(() => t.store.releaseRun(c2))).toBe('CONFLICT');
  });

  it('cancelOwnRun answers a cancel request with the cascade (stale: false)', () => {
    const claim = reserveAndClaim(t);
    const e = t.store.reserveEffect(claim, { type: 't', idempotencyKey: 'k', summary: 's' });
    const out = t.store.cancelOwnRun(claim, 'asked to stop');
    expect(out.run.status).toBe('cancelled');
    expect(out.cascade.effectsCancelled).toBe(1);
    expect(t.store.getSnapshot(claim.runId).effects.find((x) => x.id === e.id)?.status).toBe('cancelled');
  });
});

describe('notify', () => {
  it('stores a notification without bumping the run revision', () => {
    const run = reserve(t);
    const n = t.store.notify(run.id, { level: 'attention', title: 'Look', body: '<b>x</b>' }, RUNNER_ACTOR);
    expect(n).toMatchObject({ runId: run.id, level: 'attention', body: '<b>x</b>', readAt: null });
    expect(t.store.getRun(run.id).revision).toBe(1);
    const g = t.store.notify(null, { level: 'info', title: 'Global' }, RUNNER_ACTOR);
    expect(t.store.listNotifications({ unreadOnly: true, limit: 10 }).map((x) => x.id)).toEqual([g.id, n.id]);
    expect(t.store.markNotificationsRead([n.id])).toBe(1);
    expect(t.store.listNotifications({ unreadOnly: true, limit: 10 }).map((x) => x.id)).toEqual([g.id]);
    expect(t.store.markNotificationsRead('all')).toBe(1);
    expect(codeOf(() => t.store.notify(run.id, { level: 'loud' as 'info', title: 'x' }, RUNNER_ACTOR))).toBe(
      'VALIDATION',
    );
    expect(codeOf(() => t.store.notify('run_nope', { level: 'info', title: 'x' }, RUNNER_ACTOR))).toBe(
      'NOT_FOUND',
    );
  });
});

describe('settings', () => {
  it('round-trips JSON values and cannot be polluted', () => {
    expect(t.store.getSetting('missing', 7)).toBe(7);
    t.store.setSetting('tick', { ms: 2000 }, HUMAN);
    t.store.setSetting('__proto__', { polluted: true }, HUMAN);
    expect(t.store.getSetting('tick', null)).toEqual({ ms: 2000 });
    const all = t.store.listSettings();
    expect(all.tick).toEqual({ ms: 2000 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(all)).toBe(Object.prototype);
  });
});
