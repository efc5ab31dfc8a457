/**
 * Question deadlines and presenter claims, the sweeper's second step (docs/ARCHITECTURE.md#sweeper): a due
 * question with a default settles with provenance timeout_policy, one without expires
 * (expired_no_default); a live runner reads the outcome itself, otherwise a run left without an answer
 * parks. The facade runs `expireDueInteractions` DEADLINES_PER_CHUNK questions at a time, as many chunks to a
 * write transaction as fit in its time budget (RunStore.writeBurst).
 */
import type { Actor, RunSnapshot } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { isLeaseLive } from './lease-rows';
import {
  OPEN_INTERACTION_SQL,
  RUN_COLUMNS,
  RUN_FROM,
  toJson,
  type LeaseRow,
  type RunRow,
} from './row-mapping';
import {
  actorOf,
  loadDisplaySnapshots,
  moveRunCounts,
  viewColumnsOf,
  writeRunView,
  type CountMove,
} from './run-state';
import { resolveQuestionNotifications } from './notification-subjects';
import type { ReadableDB, WritableDB } from './store-context';

function runnerHoldsLive(lease: Pick<LeaseRow, 'owner_type' | 'expires_at'>, now: number): boolean {
  return lease.owner_type === 'runner' && isLeaseLive(lease, now);
}

export const DEADLINE_SQL = `SELECT id FROM interactions
  WHERE status IN ${OPEN_INTERACTION_SQL} AND deadline_at IS NOT NULL AND deadline_at <= ?
  ORDER BY deadline_at LIMIT ?`;

/**
 * Questions settled per call of `expireDueInteractions` by `RunStore.expireInteractionDeadlines`, which puts
 * as many of these chunks in one write transaction as fit in its time budget: a burst of deadlines must not
 * cost a commit each, and one transaction must not hold the write lock long (docs/ARCHITECTURE.md#sweeper).
 */
export const DEADLINES_PER_CHUNK = 40;

/** The open questions whose deadline has passed at `now`, earliest first: what the sweeper settles. */
export function dueInteractions(ctx: ReadableDB, limit: number, now: number): string[] {
  return (ctx.prep(DEADLINE_SQL).all(now, limit) as Array<{ id: string }>).map(({ id }) => id);
}

interface ExpiredRow {
  id: string;
  run_id: string;
  has_default: number;
  title: string;
}

/** What one expired question appends: its run, the run revision it carries, the event payload. */
type ExpiryEvent = [runId: string, revision: number, payload: string];

/**
 * Settles or expires the questions `ids` (in this order) that are still open and due, in the caller's
 * transaction: set-based reads and inserts, and an UPDATE per parked queue entry and per moved run (a
 * statement over a JSON list of rows cost SQLite more than one prepared statement per row). The result —
 * rows and events, in the same sequence order — is exactly that of expiring each question in turn as its
 * own run transition (interaction, park, `commitRun`; test/main/store/deadline-expiry.test.ts compares
 * both):
 * - one UPDATE settles (default → timeout_policy) or expires (expired_no_default) every due question;
 * - in `ids` order, a question without a default parks its run (interactionExpired, with its title) when
 *   no live runner holds it and its queue entry is not parked yet — so only the first such question of a run
 *   parks it, and the events say which;
 * - each run's view columns are computed once from its final state (the same as after its last question),
 *   its revision moves by its number of questions, and each question appends its own event with its own
 *   revision. Returns how many questions were settled or expired.
 */
export function expireDueInteractions(
  ctx: WritableDB,
  ids: readonly string[],
  actor: Actor,
  now: number,
): number {
  if (ids.length === 0) return 0;
  const expired = settleDue(ctx, ids, now);
  if (expired.length === 0) return 0;
  resolveQuestionNotifications(
    ctx,
    expired.map((row) => row.id),
    now,
  );
  const runIds = [...new Set(expired.map((row) => row.run_id))];
  const outcomes = decideParks(ctx, expired, runIds, now);
  parkRuns(ctx, outcomes, now);
  const events = moveRuns(ctx, runIds, outcomes, now);
  appendExpiryEvents(ctx, events, actor, now);
  return expired.length;
}

/** One due question's outcome: settled by its default, or expired, and whether it parked its run. */
interface Outcome {
  row: ExpiredRow;
  withDefault: boolean;
  parked: boolean;
  /** It parked a run whose status was queued, which becomes waiting. */
  queued: boolean;
}

/** What decides whether an expired question parks its run: its queue entry, its lease, its status. */
interface Holder {
  queue: string;
  live: boolean;
  queued: boolean;
}

/** One UPDATE settles (default → timeout_policy) or expires every question of `ids` still open and due, in `ids` order. */
function settleDue(ctx: WritableDB, ids: readonly string[], now: number): ExpiredRow[] {
  const order = new Map(ids.map((id, i) => [id, i]));
  return (
    ctx
      .prep(
        `UPDATE interactions SET status = CASE has_default WHEN 1 THEN 'settled' ELSE 'expired' END,
           response_json = CASE has_default WHEN 1 THEN default_json ELSE 'null' END,
           provenance = CASE has_default WHEN 1 THEN 'timeout_policy' ELSE 'expired_no_default' END,
           revision = revision + 1, settled_at = @now, presenter_id = NULL, presenter_expires_at = NULL
         WHERE id IN (SELECT value FROM json_each(@ids)) AND status IN ${OPEN_INTERACTION_SQL}
           AND deadline_at IS NOT NULL AND deadline_at <= @now
         RETURNING id, run_id, has_default, title`,
      )
      .all({ ids: JSON.stringify(ids), now }) as ExpiredRow[]
  ).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/**
 * In question order: one without a default parks its run when no live runner holds it and its queue entry
 * is not parked yet — so only the first such question of a run parks it, and the events say which.
 */
function decideParks(
  ctx: WritableDB,
  expired: readonly ExpiredRow[],
  runIds: readonly string[],
  now: number,
): Outcome[] {
  const holders = new Map<string, Holder>();
  const rows = ctx
    .prep(
      `SELECT q.run_id, q.status, l.owner_type, l.expires_at, r.status AS run_status FROM queue_entries q
       JOIN leases l ON l.run_id = q.run_id JOIN runs r ON r.id = q.run_id
       WHERE q.run_id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(runIds)) as Array<
    Pick<LeaseRow, 'owner_type' | 'expires_at'> & { run_id: string; status: string; run_status: string }
  >;
  for (const row of rows) {
    holders.set(row.run_id, {
      queue: row.status,
      live: runnerHoldsLive(row, now),
      queued: row.run_status === 'queued',
    });
  }
  const missing = runIds.find((id) => !holders.has(id));
  if (missing !== undefined) {
    throw new RunwardenError('INTERNAL', `Run ${missing} has no queue entry or lease row.`);
  }
  return expired.map((row) => {
    const holder = holders.get(row.run_id) as Holder;
    const withDefault = row.has_default === 1;
    const parked = !withDefault && !holder.live && holder.queue !== 'parked';
    if (parked) holder.queue = 'parked';
    return { row, withDefault, parked, queued: parked && holder.queued };
  });
}

/** Parks the runs `decideParks` chose (interactionExpired, naming the question), a queued run as waiting. */
function parkRuns(ctx: WritableDB, outcomes: readonly Outcome[], now: number): void {
  const queue = ctx.prep(
    `UPDATE queue_entries SET status = 'parked', error_code = 'interactionExpired', error_detail = ?,
       updated_at = ? WHERE run_id = ?`,
  );
  const waiting = ctx.prep(`UPDATE runs SET status = 'waiting' WHERE id = ? AND status = 'queued'`);
  for (const { row, parked, queued } of outcomes) {
    if (!parked) continue;
    queue.run(`No answer to "${row.title}" before its deadline.`, now, row.run_id);
    if (queued) waiting.run(row.run_id);
  }
}

/**
 * Each run once, from its state after all its questions: what the last of its transitions would write. Its
 * view columns are computed from that final state, its revision moves by its number of questions, and each
 * question gets its own event at its own revision (returned, in question order). One UPDATE per run
 * naming only its moved columns (`writeRunView`), and the counters moved once for all (`moveRunCounts`).
 */
function moveRuns(
  ctx: WritableDB,
  runIds: readonly string[],
  outcomes: readonly Outcome[],
  now: number,
): ExpiryEvent[] {
  const rows = ctx
    .prep(`SELECT ${RUN_COLUMNS} FROM ${RUN_FROM} WHERE r.id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(runIds)) as RunRow[];
  if (rows.length !== runIds.length) {
    throw new RunwardenError('INTERNAL', 'A question refers to a run that is not in this store.');
  }
  const snapshots = loadDisplaySnapshots(ctx, rows, { readAll: true });
  const revisions = new Map(rows.map((row) => [row.id, row.revision]));
  const moves: CountMove[] = [];
  const events: ExpiryEvent[] = outcomes.map(({ row, withDefault, parked }) => {
    const revision = (revisions.get(row.run_id) ?? 0) + 1;
    revisions.set(row.run_id, revision);
    const payload = toJson({
      interactionId: row.id,
      provenance: withDefault ? 'timeout_policy' : 'expired_no_default',
      parked,
    });
    return [row.run_id, revision, payload];
  });
  rows.forEach((row, i) => {
    const view = viewColumnsOf(ctx, row, snapshots[i] as RunSnapshot);
    writeRunView(ctx, row, view, revisions.get(row.id) as number, now);
    moves.push({ projectId: row.project_id, from: row.display_base, to: view.display_base as string });
  });
  moveRunCounts(ctx, moves);
  return events;
}

/** One `interaction.expired` event per question, in order, each at its own run revision. */
function appendExpiryEvents(
  ctx: WritableDB,
  events: readonly ExpiryEvent[],
  actor: Actor,
  now: number,
): void {
  const eventActor = actorOf(actor);
  ctx
    .prep(
      `INSERT INTO events (run_id, run_revision, type, actor_type, actor_id, surface, lease_generation, payload_json, at)
       SELECT value ->> 0, value ->> 1, 'interaction.expired', @actorType, @actorId, @surface, NULL, value ->> 2, @now
       FROM json_each(@events) ORDER BY key`,
    )
    .run({
      events: JSON.stringify(events),
      actorType: eventActor.type,
      actorId: eventActor.id,
      surface: eventActor.surface,
      now,
    });
}

export const EXPIRE_PRESENTERS_SQL = `UPDATE interactions SET status = 'pending', presenter_id = NULL, presenter_expires_at = NULL
  WHERE id IN (SELECT id FROM interactions WHERE status = 'presenting' AND presenter_expires_at <= ?
               ORDER BY presenter_expires_at LIMIT ?)`;

/**
 * Whether any presenter claim has expired: the sweeper asks this first (an indexed read), so its idle tick
 * opens no write transaction for claims that are not there.
 */
export function hasExpiredPresenterClaims(ctx: ReadableDB, now: number): boolean {
  return (
    ctx
      .prep(`SELECT 1 FROM interactions WHERE status = 'presenting' AND presenter_expires_at <= ? LIMIT 1`)
      .get(now) !== undefined
  );
}

/** Expired presenter claims go back to pending. No run revision change: both states are "open". */
export function expirePresenterClaims(ctx: WritableDB, limit: number, now: number): number {
  return ctx.prep(EXPIRE_PRESENTERS_SQL).run(now, limit).changes;
}
