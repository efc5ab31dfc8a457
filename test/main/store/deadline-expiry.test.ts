/**
 * Interaction deadlines, set-based (`expireDueInteractions`): the rows and events it writes are exactly
 * those of the per-question path it replaced — each due question its own run transition (interaction,
 * park, `commitRun`), in order. The same store is copied twice; one copy runs the reference below (the
 * former code, verbatim), the other the set-based path, with the same clock and the same question ids;
 * every table is then compared row for row, events in sequence order included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../../shared/domain';
import { DEFAULT_DISPLAY_OPTIONS } from '../../../shared/display-status';
import { seededRandom } from '../../../bench/random';
import { probeWriteLock } from '../../../bench/lock-probe';
import {
  DEADLINE_SQL,
  DEADLINES_PER_CHUNK,
  expireDueInteractions,
} from '../../../main/store/interaction-deadlines';
import { findInteractionRow } from '../../../main/store/interaction-rows';
import { openStore } from '../../../main/store/open-store';
import type { LeaseRow } from '../../../main/store/row-mapping';
import { actorOf, commitRun, loadLeaseRow, loadQueueRow } from '../../../main/store/run-state';
import type { RunStore } from '../../../main/store/run-store';
import { createContext, writeTx, type WritableDB } from '../../../main/store/store-context';
import {
  createTempStore,
  HUMAN,
  reserve,
  runnerOwner,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';

// ── The reference: expiry one question at a time, as before the set-based path ───────────────────────────

function runnerHoldsLive(lease: LeaseRow, now: number): boolean {
  return lease.owner_type === 'runner' && lease.expires_at !== null && lease.expires_at > now;
}

function expireOneByOne(ctx: WritableDB, id: string, actor: Actor, now: number): boolean {
  const row = findInteractionRow(ctx, id);
  if (row === undefined || (row.status !== 'pending' && row.status !== 'presenting')) return false;
  if (row.deadline_at === null || row.deadline_at > now) return false;
  const withDefault = row.has_default === 1;
  ctx
    .prep(
      `UPDATE interactions SET status = ?, response_json = ?, provenance = ?, revision = revision + 1, settled_at = ?,
         presenter_id = NULL, presenter_expires_at = NULL WHERE id = ?`,
    )
    .run(
      withDefault ? 'settled' : 'expired',
      withDefault ? row.default_json : 'null',
      withDefault ? 'timeout_policy' : 'expired_no_default',
      now,
      id,
    );
  const lease = loadLeaseRow(ctx, row.run_id);
  const queue = loadQueueRow(ctx, row.run_id);
  const parks = !withDefault && !runnerHoldsLive(lease, now) && queue.status !== 'parked';
  if (parks) {
    ctx
      .prep(
        `UPDATE queue_entries SET status = 'parked', error_code = 'interactionExpired', error_detail = ?, updated_at = ?
         WHERE run_id = ?`,
      )
      .run(`No answer to "${row.title}" before its deadline.`, now, row.run_id);
    ctx.prep(`UPDATE runs SET status = 'waiting' WHERE id = ? AND status = 'queued'`).run(row.run_id);
  }
  commitRun(ctx, row.run_id, now, {
    type: 'interaction.expired',
    actor: actorOf(actor),
    payload: {
      interactionId: id,
      provenance: withDefault ? 'timeout_policy' : 'expired_no_default',
      parked: parks,
    },
  });
  return true;
}

// ── Copies of one store, and a dump of every table ────────────────────────────────────────────────────────

const TABLES: Record<string, string> = {
  runs: 'id',
  queue_entries: 'run_id',
  leases: 'name',
  interactions: 'id',
  submissions: 'id',
  attempts: 'id',
  effects: 'id',
  events: 'seq',
  notifications: 'id',
  run_counts: 'project_id, display_base',
  run_search_keys: 'key',
  sqlite_sequence: 'name',
};

function dump(store: RunStore): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(TABLES)) {
    out[table] = store.db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all();
  }
  return out;
}

let t: TempStore;
let copies: string[] = [];

/** A fresh copy of the temp store's current state, opened with its clock. */
function copyOf(): { store: RunStore; ctx: WritableDB } {
  const file = path.join(t.dir, `copy-${copies.length}.sqlite`);
  t.store.db.exec(`VACUUM INTO '${file.replaceAll("'", "''")}'`);
  copies.push(file);
  const store = openStore(file, { clock: t.clock });
  return { store, ctx: createContext(store.db, t.clock, DEFAULT_DISPLAY_OPTIONS, null) };
}

/** Runs the reference on one copy and the set-based path on another; both must leave the same rows. */
function compare(ids: readonly string[]): { reference: RunStore; setBased: RunStore; count: number } {
  const a = copyOf();
  const b = copyOf();
  const expected = writeTx(
    a.ctx,
    (now) => ids.filter((id) => expireOneByOne(a.ctx, id, SWEEPER, now)).length,
  );
  const count = writeTx(b.ctx, (now) => expireDueInteractions(b.ctx, ids, SWEEPER, now));
  expect(count).toBe(expected);
  const before = dump(a.store);
  expect(dump(b.store)).toEqual(before);
  return { reference: a.store, setBased: b.store, count };
}

function closeAll(...stores: RunStore[]): void {
  for (const store of stores) {
    expectInvariants(store);
    expectHealthy(store);
    store.close();
  }
}

// A store per test, seeded the same way each time: no test sees another's writes.
beforeEach(() => {
  t = createTempStore();
});
afterEach(() => {
  t.cleanup();
  copies = [];
});

const DUE = 2_000;
const LIVE = 600_000;
const SHORT = 1_000;

function ask(
  claim: ReturnType<TempStore['store']['claimRun']>['claim'],
  title: string,
  opts: { withDefault: boolean; dueIn?: number | null },
) {
  return t.store.requestInteraction(claim, {
    kind: 'decision',
    title,
    choices: ['yes', 'no'],
    ...(opts.withDefault && { defaultResponse: 'no' }),
    deadlineAt: opts.dueIn === null ? null : t.clock.now() + (opts.dueIn ?? DUE),
  });
}

describe('set-based deadline expiry writes what the per-question path wrote', () => {
  it('named cases: default or not, live runner or expired, parked, paused, two per run, answered, presenting', () => {
    const claimOf = (leaseMs: number, title: string) =>
      t.store.claimRun(reserve(t, { title }).id, { ...runnerOwner(), leaseMs }).claim;
    const ids: string[] = [];
    const add = (q: { id: string }) => ids.push(q.id);

    // Default, live runner: settled, the runner reads it; no park.
    add(ask(claimOf(LIVE, 'default-live'), 'd-live', { withDefault: true }));
    // Default, runner lease expired: settled, never parks.
    add(ask(claimOf(SHORT, 'default-gone'), 'd-gone', { withDefault: true }));
    // No default, live runner: expired, the runner decides; no park.
    add(ask(claimOf(LIVE, 'none-live'), 'n-live', { withDefault: false }));
    // No default, runner gone (lease expired, loss not yet noticed): expired and parks.
    add(ask(claimOf(SHORT, 'none-gone'), 'n-gone', { withDefault: false }));
    // No default, loss already noticed by the sweeper.
    const noticed = claimOf(SHORT, 'none-noticed');
    add(ask(noticed, 'n-noticed', { withDefault: false }));
    // Parked by its runner (runnerExited) before the deadline: keeps its park reason.
    const exited = claimOf(LIVE, 'parked-exited');
    add(ask(exited, 'p-exited', { withDefault: false }));
    t.store.park(exited, 'runnerExited');
    // Paused by its runner, and paused by a person after it parked.
    const paused = claimOf(LIVE, 'paused-runner');
    add(ask(paused, 'paused-none', { withDefault: false }));
    add(ask(paused, 'paused-default', { withDefault: true }));
    t.store.park(paused, 'paused');
    const personPaused = claimOf(LIVE, 'paused-person');
    add(ask(personPaused, 'pp-none', { withDefault: false }));
    t.store.park(personPaused, 'runnerExited');
    t.store.pauseRun(personPaused.runId, {
      expectedRevision: t.store.getRun(personPaused.runId).revision,
      reason: 'hold',
      actor: HUMAN,
    });
    // Two questions on one run, default first: the second (no default) parks it.
    const two = claimOf(SHORT, 'two-questions');
    add(ask(two, 'two-a-default', { withDefault: true }));
    add(ask(two, 'two-b-none', { withDefault: false }));
    // Three without default on one run: only the first parks (its title is the park detail).
    const three = claimOf(SHORT, 'three-questions');
    add(ask(three, 'three-a', { withDefault: false }));
    add(ask(three, 'three-b', { withDefault: false }));
    add(ask(three, 'three-c', { withDefault: true }));
    // One due and one not yet due on the same run: the other stays open.
    const mixed = claimOf(SHORT, 'mixed-due');
    add(ask(mixed, 'mixed-due', { withDefault: false }));
    const later = ask(mixed, 'mixed-later', { withDefault: false, dueIn: 60_000 });
    add(later);
    // No deadline at all: never due.
    add(ask(claimOf(LIVE, 'no-deadline'), 'no-deadline', { withDefault: false, dueIn: null }));
    // Answered before the sweep reached it (listed as due, settled meanwhile): skipped.
    const answered = claimOf(LIVE, 'answered');
    const q = ask(answered, 'answered', { withDefault: false });
    add(q);
    // Being presented in a dialog: the claim is cleared.
    const shown = claimOf(SHORT, 'presenting');
    const s = ask(shown, 'presenting', { withDefault: false });
    add(s);
    t.store.presentInteraction(s.id, 'dialog-1', 600_000);
    // Cancelled run: its question is cancelled by the cascade, so skipped.
    const cancelled = claimOf(SHORT, 'cancelled');
    add(ask(cancelled, 'cancelled', { withDefault: false }));
    // An ambiguous side effect next to the question.
    const effect = claimOf(SHORT, 'ambiguous');
    const e = t.store.reserveEffect(effect, { type: 'http', idempotencyKey: 'k1', summary: 'POST /x' });
    t.store.beginEffect(effect, e.id);
    t.store.settleEffect(effect, e.id, 'ambiguous');
    add(ask(effect, 'with-ambiguous', { withDefault: false }));
    add({ id: 'int_does_not_exist' });

    t.clock.advance(DUE);
    t.store.markRunnerGone(noticed.runId, noticed.generation, 'lease expired', SWEEPER);
    t.store.cancelRun(cancelled.runId, { reason: 'stale', actor: HUMAN });
    t.store.answerInteraction(q.id, {
      interactionRevision: q.revision,
      idempotencyKey: 'a1',
      payload: 'yes',
      actor: HUMAN,
    });

    // In the order asked, in reverse, and in the sweeper's order (deadline).
    const due = (t.store.db.prepare(DEADLINE_SQL).all(t.clock.now(), 1_000) as Array<{ id: string }>).map(
      (r) => r.id,
    );
    for (const order of [ids, ids.toReversed(), due]) {
      const { reference, setBased, count } = compare(order);
      expect(count).toBe(17);
      const one = (store: RunStore, title: string) =>
        store.db.prepare(`SELECT * FROM interactions WHERE title = ?`).get(title) as Record<string, unknown>;
      // The comparison covers every branch.
      expect(one(setBased, 'd-live')).toMatchObject({ status: 'settled', provenance: 'timeout_policy' });
      expect(one(setBased, 'n-gone')).toMatchObject({ status: 'expired', provenance: 'expired_no_default' });
      expect(one(setBased, 'mixed-later')).toMatchObject({ status: 'pending' });
      expect(one(setBased, 'answered')).toMatchObject({ status: 'settled', provenance: 'human' });
      expect(one(setBased, 'presenting')).toMatchObject({ status: 'expired', presenter_id: null });
      const parkedFlags = (
        setBased.db
          .prepare(`SELECT payload_json FROM events WHERE type = 'interaction.expired' ORDER BY seq`)
          .all() as Array<{ payload_json: string }>
      ).map((r) => (JSON.parse(r.payload_json) as { parked: boolean }).parked);
      expect(parkedFlags.filter(Boolean).length).toBeGreaterThanOrEqual(5);
      expect(parkedFlags.filter((p) => !p).length).toBeGreaterThanOrEqual(5);
      const queue = setBased.getSnapshot(three.runId).queue;
      expect(queue).toMatchObject({ status: 'parked', errorCode: 'interactionExpired' });
      closeAll(reference, setBased);
    }
  });

  it('a seeded mix of 120 runs (1–3 questions each), in the sweeper order and shuffled', () => {
    const rng = seededRandom(23);
    const claims = [];
    for (let i = 0; i < 120; i += 1) {
      const claim = t.store.claimRun(reserve(t, { title: `mix ${i}` }).id, {
        ...runnerOwner(),
        leaseMs: rng.chance(0.4) ? LIVE : SHORT,
      }).claim;
      const questions = Array.from({ length: rng.int(1, 3) }, (_, j) =>
        ask(claim, `mix ${i}.${j}`, {
          withDefault: rng.chance(0.5),
          dueIn: rng.chance(0.85) ? rng.int(1, DUE) : 60_000,
        }),
      );
      const fate = rng.int(0, 5);
      if (fate === 1) t.store.park(claim, 'runnerExited');
      if (fate === 2) t.store.park(claim, 'paused');
      if (fate === 3) t.store.presentInteraction(rng.pick(questions).id, `dialog-${i}`, 600_000);
      if (fate === 4) {
        const pick = rng.pick(questions);
        t.store.answerInteraction(pick.id, {
          interactionRevision: pick.revision,
          idempotencyKey: `k${i}`,
          payload: 'yes',
          actor: HUMAN,
        });
      }
      claims.push(claim);
    }
    t.clock.advance(DUE);
    const due = (t.store.db.prepare(DEADLINE_SQL).all(t.clock.now(), 10_000) as Array<{ id: string }>).map(
      (r) => r.id,
    );
    expect(due.length).toBeGreaterThan(150);
    const shuffled = [...due];
    for (let i = shuffled.length - 1; i > 0; i -= 1) {
      const j = rng.int(0, i);
      [shuffled[i], shuffled[j]] = [shuffled[j] as string, shuffled[i] as string];
    }
    for (const order of [due, shuffled]) {
      const { reference, setBased, count } = compare(order);
      expect(count).toBe(due.length);
      closeAll(reference, setBased);
    }
  });

  it('through the store, DEADLINES_PER_CHUNK per transaction, the same rows as the reference in the same batches', () => {
    for (let i = 0; i < DEADLINES_PER_CHUNK + 30; i += 1) {
      const claim = t.store.claimRun(reserve(t, { title: `batch ${i}` }).id, {
        ...runnerOwner(),
        leaseMs: i % 3 === 0 ? LIVE : SHORT,
      }).claim;
      ask(claim, `batch ${i}`, { withDefault: i % 2 === 0 });
      if (i % 5 === 0) ask(claim, `batch ${i} again`, { withDefault: false });
    }
    t.clock.advance(DUE);
    const due = (t.store.db.prepare(DEADLINE_SQL).all(t.clock.now(), 10_000) as Array<{ id: string }>).map(
      (r) => r.id,
    );
    const a = copyOf();
    const b = copyOf();
    for (let i = 0; i < due.length; i += DEADLINES_PER_CHUNK) {
      const batch = due.slice(i, i + DEADLINES_PER_CHUNK);
      writeTx(a.ctx, (now) => batch.filter((id) => expireOneByOne(a.ctx, id, SWEEPER, now)).length);
    }
    const probe = probeWriteLock(b.store.db);
    try {
      expect(b.store.expireInteractionDeadlines(10_000, SWEEPER, 0)).toBe(due.length);
      expect(probe.take()).toHaveLength(Math.ceil(due.length / DEADLINES_PER_CHUNK));
    } finally {
      probe.restore();
    }
    expect(dump(b.store)).toEqual(dump(a.store));
    closeAll(a.store, b.store);
  });

  it('an empty or fully settled batch writes nothing', () => {
    const { store, ctx } = copyOf();
    const before = dump(store);
    expect(writeTx(ctx, (now) => expireDueInteractions(ctx, [], SWEEPER, now))).toBe(0);
    expect(writeTx(ctx, (now) => expireDueInteractions(ctx, ['int_none'], SWEEPER, now))).toBe(0);
    expect(dump(store)).toEqual(before);
    closeAll(store);
    for (const file of copies) fs.rmSync(file, { force: true });
  });
});
