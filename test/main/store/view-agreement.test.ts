/**
 * The SQL view filters (listRuns / attentionSummary / listProjects) must agree exactly with the
 * `displayStatus()` reducer (docs/ARCHITECTURE.md#display-status-and-views): for every view, at several times, SQL membership == reducer result.
 */
import { TRIAGE_GROUPS, triageGroupFor } from '../../../shared/triage';
import { VIEW_STATUSES, viewIncludes } from '../../../shared/views';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_DISPLAY_OPTIONS,
  DISPLAY_STATUSES,
  displayStatus,
  type DisplayStatus,
} from '../../../shared/display-status';
import { isRunwardenError } from '../../../shared/errors';
import type { RunStore } from '../../../main/store/run-store';
import type { Claim, ListView } from '../../../main/store/store-types';
import {
  createTempStore,
  HUMAN,
  reserve,
  reserveAndClaim,
  RUNNER_ACTOR,
  runnerOwner,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';
import { createContext } from '../../../main/store/store-context';
import { commitRun } from '../../../main/store/run-state';

const LEASE = 30_000;
const VIEWS: ListView[] = [...DISPLAY_STATUSES, 'needs-you', 'all'];

function reducerMembers(store: RunStore, now: number, view: ListView, projectPath?: string): string[] {
  const ids = (store.db.prepare(`SELECT id FROM runs ORDER BY id DESC`).all() as Array<{ id: string }>).map(
    (r) => r.id,
  );
  const members = ids.filter((id) => {
    const snap = store.getSnapshot(id);
    if (projectPath !== undefined && snap.run.projectPath !== projectPath) return false;
    const d = displayStatus(snap, now);
    if (view === 'all') return true;
    if (view === 'needs-you') return d.needsYou;
    if (Object.hasOwn(VIEW_STATUSES, view)) return viewIncludes(view as keyof typeof VIEW_STATUSES, d.status);
    return d.status === view;
  });
  return view === 'needs-you' ? inTriageOrder(store, now, members) : members;
}

/**
 * The reducer's members of Needs you in triage order (shared/triage.ts): by group, questions by their
 * soonest open deadline (none last), newest first within that. The store keeps this order in SQL.
 */
function inTriageOrder(store: RunStore, now: number, newestFirst: string[]): string[] {
  const key = new Map(
    newestFirst.map((id, index) => {
      const snap = store.getSnapshot(id);
      const ambiguous = snap.effects.filter((e) => e.status === 'ambiguous').length;
      const group = TRIAGE_GROUPS.indexOf(triageGroupFor(displayStatus(snap, now).status, ambiguous));
      const open = snap.interactions.filter((i) => i.status === 'pending' || i.status === 'presenting');
      const deadlines = open.map((i) => i.deadlineAt ?? Number.MAX_SAFE_INTEGER);
      const deadline = group === 0 ? Math.min(Number.MAX_SAFE_INTEGER, ...deadlines) : 0;
      return [id, { group, deadline, index }];
    }),
  );
  return newestFirst.toSorted((a, b) => {
    const x = key.get(a) as { group: number; deadline: number; index: number };
    const y = key.get(b) as { group: number; deadline: number; index: number };
    return x.group - y.group || x.deadline - y.deadline || x.index - y.index;
  });
}

function sqlMembers(store: RunStore, view: ListView, projectPath?: string): string[] {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page += 1) {
    const res = store.listRuns({ view, limit: 3, cursor, ...(projectPath ? { projectPath } : {}) });
    out.push(...res.items.map((i) => i.run.id));
    if (res.nextCursor === null) break;
    cursor = res.nextCursor;
  }
  return out;
}

/** Checks every view, the attention counts and the project counts against the reducer at the store's now. */
function expectAgreement(t: TempStore, projects: string[]): void {
  const now = t.clock.now();
  const { store } = t;
  for (const view of VIEWS) {
    expect(sqlMembers(store, view), `view ${view} at +${now}`).toEqual(reducerMembers(store, now, view));
  }
  for (const projectPath of projects) {
    for (const view of ['all', 'needs-you', 'stale', 'queued', 'running'] as ListView[]) {
      expect(sqlMembers(store, view, projectPath), `${view} in ${projectPath}`).toEqual(
        reducerMembers(store, now, view, projectPath),
      );
    }
  }
  const expected: Partial<Record<DisplayStatus, number>> = {};
  let needsYou = 0;
  for (const id of reducerMembers(store, now, 'all')) {
    const d = displayStatus(store.getSnapshot(id), now);
    expected[d.status] = (expected[d.status] ?? 0) + 1;
    if (d.needsYou) needsYou += 1;
  }
  const summary = store.attentionSummary(1000);
  expect(summary.counts).toEqual(expected);
  expect(summary.needsYou).toBe(needsYou);
  expect(summary.items.map((i) => i.run.id)).toEqual(reducerMembers(store, now, 'needs-you'));
  for (const item of store.listRuns({ view: 'all', limit: 1000 }).items) {
    expect(item.display).toEqual(displayStatus(store.getSnapshot(item.run.id), now));
  }
  const byProject = store.listProjects();
  expect(byProject.reduce((n, p) => n + p.total, 0)).toBe(reducerMembers(store, now, 'all').length);
  expect(byProject.reduce((n, p) => n + p.needsYou, 0)).toBe(needsYou);
  for (const p of byProject) {
    const counts: Partial<Record<DisplayStatus, number>> = {};
    for (const id of reducerMembers(store, now, 'all', p.canonicalPath)) {
      const s = displayStatus(store.getSnapshot(id), now).status;
      counts[s] = (counts[s] ?? 0) + 1;
    }
    expect(p.counts, p.canonicalPath).toEqual(counts);
  }
}

describe('a varied store: every state', () => {
  let t: TempStore;
  let other: string;
  // A store per test, seeded the same way each time: no test sees another's writes.
  beforeEach(() => {
    t = createTempStore();
    other = path.join(t.dir, 'other');
    fs.mkdirSync(other);
  });
  afterEach(() => {
    expectHealthy(t.store);
    t.cleanup();
  });

  it('agrees for every view now, after leases expire, and after queued runs go unattended', () => {
    const s = t.store;
    const claimed = (title: string, projectPath = t.projectDir, leaseMs = LEASE): Claim => {
      const run = s.reserveRun({ projectPath, workflow: 'w', title }, RUNNER_ACTOR);
      return s.claimRun(run.id, { ...runnerOwner(), leaseMs }).claim;
    };
    const rev = (id: string) => s.getRun(id).revision;

    reserve(t, { title: 'queued' });
    const pausedQueued = reserve(t, { title: 'paused queued' });
    s.pauseRun(pausedQueued.id, { expectedRevision: 1, reason: 'hold', actor: HUMAN });
    s.markRunning(claimed('running'));
    claimed('starting');
    claimed('short lease', other, 5_000);
    const asking = claimed('needs answer');
    s.requestInteraction(asking, { kind: 'decision', title: 'Go?', choices: ['y', 'n'] });
    const answered = claimed('waiting after answer');
    const q = s.requestInteraction(answered, { kind: 'decision', title: 'Go?', choices: ['y', 'n'] });
    s.answerInteraction(q.id, { interactionRevision: 1, idempotencyKey: 'k', payload: 'y', actor: HUMAN });
    const askExit = claimed('asked then exited', other);
    s.requestInteraction(askExit, { kind: 'decision', title: 'Go?', choices: ['y', 'n'] });
    s.park(askExit, 'runnerExited');
    const askPaused = claimed('asked then paused');
    s.requestInteraction(askPaused, { kind: 'input', title: 'x', fields: [{ name: 'a', type: 'string' }] });
    s.park(askPaused, 'paused');
    s.park(claimed('parked exited'), 'runnerExited', 'exit 137');
    s.park(claimed('parked source'), 'sourceChanged');
    s.park(claimed('parked paused', other), 'paused');
    const amb = claimed('ambiguous');
    const e = s.reserveEffect(amb, { type: 't', idempotencyKey: 'k', summary: 'deploy' });
    s.beginEffect(amb, e.id);
    s.settleEffect(amb, e.id, 'ambiguous');
    s.park(amb, 'effectAmbiguous');
    const resolved = claimed('ambiguity resolved, still parked');
    const e2 = s.reserveEffect(resolved, { type: 't', idempotencyKey: 'k', summary: 'deploy' });
    s.beginEffect(resolved, e2.id);
    s.settleEffect(resolved, e2.id, 'ambiguous');
    s.park(resolved, 'effectAmbiguous');
    s.resolveEffect(e2.id, {
      resolution: 'applied',
      note: 'seen',
      expectedRevision: rev(resolved.runId),
      actor: HUMAN,
    });
    const liveAmb = claimed('live with ambiguous effect');
    const e3 = s.reserveEffect(liveAmb, { type: 't', idempotencyKey: 'k', summary: 'x' });
    s.beginEffect(liveAmb, e3.id);
    s.settleEffect(liveAmb, e3.id, 'ambiguous');
    const deadline = claimed('question with deadline, runner gone', t.projectDir, 5_000);
    s.requestInteraction(deadline, {
      kind: 'decision',
      title: 'Soon',
      choices: ['a'],
      deadlineAt: t.clock.now() + 1_000,
    });
    const lost = claimed('runner lost');
    s.markRunnerGone(lost.runId, lost.generation, 'pid gone', SWEEPER);
    // Supervisor gone, command alive (docs/LIVENESS.md#orphans): its own status, in Needs you, whatever the clock.
    const orphan = claimed('orphaned command');
    s.markOrphaned(orphan.runId, orphan.generation, SWEEPER);
    // Cancelled while an effect was applying: terminal, yet under Needs you until the effect is resolved.
    const cancelledMidEffect = claimed('cancelled mid-effect');
    const e4 = s.reserveEffect(cancelledMidEffect, {
      type: 'bank.transfer',
      idempotencyKey: 'k',
      summary: 'pay',
    });
    s.beginEffect(cancelledMidEffect, e4.id);
    s.cancelOwnRun(cancelledMidEffect, 'asked to');
    const kept = s.reserveRun(
      { projectPath: t.projectDir, workflow: 'w', title: 'queued, owned' },
      RUNNER_ACTOR,
    );
    s.claimRun(kept.id, { ...runnerOwner(), leaseMs: LEASE, keepQueueStatus: true });
    s.completeRun(claimed('completed'));
    s.failRun(claimed('failed'), 'boom');
    s.timeOutRun(claimed('timed out'));
    const cancelled = reserve(t, { title: 'cancelled' });
    s.cancelRun(cancelled.id, { expectedRevision: 1, reason: 'no', actor: HUMAN });
    const future = s.reserveRun(
      {
        projectPath: other,
        workflow: 'w',
        title: 'available later',
        availableAt: t.clock.now() + 20 * 60_000,
      },
      RUNNER_ACTOR,
    );
    expect(future.status).toBe('queued');
    // Two states no transition produces, but the reducer handles (a store left by a crash or an older
    // version): waiting with nobody holding it, and running with nobody holding it. Written raw, then
    // refreshed through the same commit path every transition uses.
    const ctx = createContext(s.db, t.clock, DEFAULT_DISPLAY_OPTIONS, null);
    for (const [title, status] of [
      ['raw waiting, ownerless', 'waiting'],
      ['raw running, ownerless', 'running'],
    ] as const) {
      const run = reserve(t, { title });
      s.db.transaction(() => {
        s.db.prepare(`UPDATE runs SET status = ? WHERE id = ?`).run(status, run.id);
        s.db.prepare(`UPDATE queue_entries SET status = 'running' WHERE run_id = ?`).run(run.id);
        commitRun(ctx, run.id, t.clock.now(), {
          type: 'run.progress',
          actor: { type: 'system', id: null, surface: null },
        });
      })();
    }
    expectInvariants(s);

    const projects = [fs.realpathSync(t.projectDir), fs.realpathSync(other)];
    expectAgreement(t, projects);
    const seen = new Set(
      reducerMembers(s, t.clock.now(), 'all').map(
        (id) => displayStatus(s.getSnapshot(id), t.clock.now()).status,
      ),
    );
    t.clock.advance(6_000); // the short leases expire → stale
    s.expireInteractionDeadlines(10, SWEEPER);
    expectAgreement(t, projects);
    t.clock.advance(5 * 60_000); // queued runs now unattended; all leases expired
    expectAgreement(t, projects);
    for (const id of reducerMembers(s, t.clock.now(), 'all'))
      seen.add(displayStatus(s.getSnapshot(id), t.clock.now()).status);
    t.clock.advance(20 * 60_000);
    expectAgreement(t, projects);
    expect([...seen].sort()).toEqual([...DISPLAY_STATUSES].sort());
    expectInvariants(s);
  });
});

type Op =
  | { kind: 'reserve'; project: number }
  | { kind: 'claim'; pick: number; leaseMs: number }
  | { kind: 'runner'; pick: number; action: number }
  | { kind: 'person'; pick: number; action: number }
  | { kind: 'sweep' }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('reserve' as const), project: fc.nat(1) }),
  fc.record({
    kind: fc.constant('claim' as const),
    pick: fc.nat(),
    leaseMs: fc.constantFrom(5_000, 30_000, 600_000),
  }),
  fc.record({ kind: fc.constant('runner' as const), pick: fc.nat(), action: fc.nat(15) }),
  fc.record({ kind: fc.constant('runner' as const), pick: fc.nat(), action: fc.nat(15) }),
  fc.record({ kind: fc.constant('person' as const), pick: fc.nat(), action: fc.nat(8) }),
  fc.record({ kind: fc.constant('sweep' as const) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(1_000, 10_000, 60_000, 400_000) }),
);

describe('random walks (fast-check)', () => {
  it('keep every invariant and the SQL views in agreement with the reducer', () => {
    let walks = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 20, maxLength: 70 }), (ops) => {
        const t = createTempStore();
        try {
          const other = path.join(t.dir, 'other');
          fs.mkdirSync(other);
          const projects = [t.projectDir, other];
          const runIds: string[] = [];
          const claims = new Map<string, Claim>();
          const s = t.store;
          const at = <T>(list: T[], n: number): T | undefined =>
            list.length === 0 ? undefined : list[n % list.length];
          for (const op of ops) {
            try {
              apply(op);
            } catch (error) {
              if (!isRunwardenError(error)) throw error; // refusals are fine; raw errors are not
            }
          }
          expectInvariants(s);
          expectAgreement(
            t,
            projects.map((p) => fs.realpathSync(p)),
          );
          expectHealthy(s);
          walks += 1;

          function apply(op: Op): void {
            switch (op.kind) {
              case 'reserve':
                runIds.push(
                  s.reserveRun(
                    {
                      projectPath: projects[op.project] ?? t.projectDir,
                      workflow: 'w',
                      title: `r${runIds.length}`,
                    },
                    RUNNER_ACTOR,
                  ).id,
                );
                return;
              case 'claim': {
                const id = at(runIds, op.pick);
                if (id)
                  claims.set(
                    id,
                    s.claimRun(id, { ...runnerOwner(`o${op.pick % 3}`), leaseMs: op.leaseMs }).claim,
                  );
                return;
              }
              case 'runner': {
                const claim = at([...claims.values()], op.pick);
                if (claim) runnerStep(claim, op.action);
                return;
              }
              case 'person': {
                const id = at(runIds, op.pick);
                if (id) personStep(id, op.action);
                return;
              }
              case 'sweep':
                for (const l of s.listExpiredLeases({ graceMs: 0, limit: 50 }))
                  s.markRunnerGone(l.runId, l.generation, 'expired', SWEEPER);
                s.expireInteractionDeadlines(50, SWEEPER);
                s.expirePresenterClaims(50);
                return;
              case 'advance':
                t.clock.advance(op.ms);
                return;
            }
          }

          function runnerStep(c: Claim, action: number): void {
            const snap = s.getSnapshot(c.runId);
            const applying = snap.effects.find((e) => e.status === 'applying');
            const pending = snap.effects.find((e) => e.status === 'pending');
            const active = s
              .getRunDetail(c.runId, { eventsLimit: 1 })
              .attempts.find((a) => ['pending', 'running', 'waiting'].includes(a.status));
            switch (action) {
              case 0:
                s.heartbeat(c, 30_000);
                return;
              case 1:
                s.markRunning(c);
                return;
              case 2:
                s.startAttempt(c, 'step');
                return;
              case 3:
                if (active) s.finishAttempt(c, active.id, 'completed');
                return;
              case 4:
                s.requestInteraction(c, {
                  kind: 'decision',
                  title: 'q',
                  choices: ['a', 'b'],
                  deadlineAt: t.clock.now() + 30_000,
                  ...(action % 2 ? {} : { defaultResponse: 'a' }),
                });
                return;
              case 5:
                s.requestInteraction(c, {
                  kind: 'decision',
                  title: 'q2',
                  choices: ['a'],
                  deadlineAt: t.clock.now() + 5_000,
                  defaultResponse: 'a',
                });
                return;
              case 6:
                s.resumeAfterInteraction(c);
                return;
              case 7:
                s.reserveEffect(c, { type: 't', idempotencyKey: `k${snap.effects.length}`, summary: 's' });
                return;
              case 8:
                if (pending) s.beginEffect(c, pending.id);
                return;
              case 9:
                if (applying)
                  s.settleEffect(
                    c,
                    applying.id,
                    (['applied', 'rejected', 'ambiguous'] as const)[snap.effects.length % 3] ?? 'applied',
                  );
                return;
              case 10:
                s.park(
                  c,
                  (['sourceChanged', 'effectAmbiguous', 'paused', 'runnerExited'] as const)[
                    snap.run.revision % 4
                  ] ?? 'paused',
                );
                return;
              case 11:
                s.completeRun(c, { ok: 1 });
                return;
              case 12:
                s.failRun(c, 'x');
                return;
              case 13:
                s.releaseRun(c);
                return;
              case 14: {
                const eff = s.reserveEffect(c, {
                  type: 't',
                  idempotencyKey: `amb${snap.effects.length}`,
                  summary: 's',
                });
                s.beginEffect(c, eff.id);
                s.settleEffect(c, eff.id, 'ambiguous');
                if (snap.run.revision % 2 === 0) s.park(c, 'effectAmbiguous');
                return;
              }
              default:
                s.cancelOwnRun(c, 'asked');
                return;
            }
          }

          function personStep(id: string, action: number): void {
            const snap = s.getSnapshot(id);
            const expectedRevision = snap.run.revision;
            const base = { expectedRevision, reason: 'r', actor: HUMAN };
            const open = snap.interactions.find((i) => i.status === 'pending' || i.status === 'presenting');
            const amb = snap.effects.find((e) => e.status === 'ambiguous');
            switch (action) {
              case 0:
                s.cancelRun(id, base);
                return;
              case 1:
                s.requestCancel(id, base);
                return;
              case 2:
                s.pauseRun(id, base);
                return;
              case 3:
                s.resumeRun(id, { expectedRevision, anyway: true, actor: HUMAN });
                return;
              case 4:
                if (amb)
                  s.resolveEffect(amb.id, {
                    resolution: 'not_applied',
                    note: 'n',
                    expectedRevision,
                    actor: HUMAN,
                  });
                return;
              case 5:
                if (open)
                  s.answerInteraction(open.id, {
                    interactionRevision: open.revision,
                    idempotencyKey: `a${open.id}`,
                    payload: open.choices?.[0] ?? {},
                    actor: HUMAN,
                  });
                return;
              case 6:
                if (open) s.presentInteraction(open.id, 'dialog', 10_000);
                return;
              case 7:
                s.retryRun(id, { expectedRevision, actor: HUMAN });
                return;
              default:
                s.requestPause(id, base);
                return;
            }
          }
        } finally {
          t.cleanup();
        }
      }),
      { numRuns: 30, seed: 20250101 },
    );
    expect(walks).toBe(30);
  });
});

describe('multi-status views page past runs that have left the view', () => {
  it('Running lists the older live runs even when the newest running runs have all gone stale', () => {
    const s = createTempStore();
    try {
      const live = Array.from({ length: 3 }, () => reserveAndClaim(s, 600_000).runId);
      const dying = Array.from({ length: 5 }, () => reserveAndClaim(s, 1_000).runId);
      s.clock.advance(2_000);
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = s.store.listRuns({ view: 'running', limit: 2, ...(cursor !== null && { cursor }) });
        ids.push(...page.items.map((i) => i.run.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(ids).toEqual(live.toReversed());
      expect(s.store.listRuns({ view: 'stale', limit: 10 }).items.map((i) => i.run.id)).toEqual(
        dying.toReversed(),
      );
    } finally {
      s.cleanup();
    }
  });
});
