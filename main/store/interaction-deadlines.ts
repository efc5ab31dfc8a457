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
  changedViewColumns,
  loadDisplaySnapshots,
  viewColumnsOf,
  type ViewColumn,
} from './run-state';
import type { StoreContext } from './store-context';

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
 * A chunk is a fixed number of statements whatever its size; why 40 is in docs/PERFORMANCE-HISTORY.md
 * (round 3).
 */
export const DEADLINES_PER_CHUNK = 40;

/** The open questions whose deadline has passed at `now`, earliest first: what the sweeper settles. */
export function dueInteractions(ctx: StoreContext, limit: number, now: number): string[] {
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
 * transaction, with a fixed number of statements for the whole set. The result — rows and events, in the
 * same sequence order — is exactly that of expiring each question in turn as its own run transition
 * (interaction, park, `commitRun`; test/main/store/deadline-expiry.test.ts compares both):
 * - one UPDATE settles (default → timeout_policy) or expires (expired_no_default) every due question;
 * - in `ids` order, a question without a default parks its run (interactionExpired, with its title) when
 *   no live runner holds it and its queue entry is not parked yet — so only the first such question of a run
 *   parks it, and the events say which;
 * - each run's view columns are computed once from its final state (the same as after its last question),
 *   its revision moves by its number of questions, and each question appends its own event with its own
 *   revision. Returns how many questions were settled or expired.
 */
export function expireDueInteractions(
  ctx: StoreContext,
  ids: readonly string[],
  actor: Actor,
  now: number,
): number {
  if (ids.length === 0) return 0;
  const expired = settleDue(ctx, ids, now);
  if (expired.length === 0) return 0;
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
}

/** One UPDATE settles (default → timeout_policy) or expires every question of `ids` still open and due, in `ids` order. */
function settleDue(ctx: StoreContext, ids: readonly string[], now: number): ExpiredRow[] {
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
  ctx: StoreContext,
  expired: readonly ExpiredRow[],
  runIds: readonly string[],
  now: number,
): Outcome[] {
  const holders = new Map(
    (
      ctx
        .prep(
          `SELECT q.run_id, q.status, l.owner_type, l.expires_at FROM queue_entries q
           JOIN leases l ON l.run_id = q.run_id WHERE q.run_id IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(runIds)) as Array<
        Pick<LeaseRow, 'run_id' | 'owner_type' | 'expires_at'> & { status: string }
      >
    ).map((row) => [row.run_id as string, { queue: row.status, live: runnerHoldsLive(row, now) }]),
  );
  return expired.map((row) => {
    const holder = holders.get(row.run_id);
    if (holder === undefined) {
      throw new RunwardenError('INTERNAL', `Run ${row.run_id} has no queue entry or lease row.`);
    }
    const withDefault = row.has_default === 1;
    const parked = !withDefault && !holder.live && holder.queue !== 'parked';
    if (parked) holder.queue = 'parked';
    return { row, withDefault, parked };
  });
}

/** Parks the runs `decideParks` chose (interactionExpired, naming the question), a queued run as waiting. */
function parkRuns(ctx: StoreContext, outcomes: readonly Outcome[], now: number): void {
  const parks = outcomes
    .filter((o) => o.parked)
    .map(({ row }) => [row.run_id, `No answer to "${row.title}" before its deadline.`]);
  if (parks.length === 0) return;
  const parksJson = JSON.stringify(parks);
  ctx
    .prep(
      `UPDATE queue_entries SET status = 'parked', error_code = 'interactionExpired', error_detail = p.detail,
         updated_at = @now
       FROM (SELECT value ->> 0 AS run_id, value ->> 1 AS detail FROM json_each(@parks)) AS p
       WHERE queue_entries.run_id = p.run_id`,
    )
    .run({ parks: parksJson, now });
  ctx
    .prep(
      `UPDATE runs SET status = 'waiting'
       WHERE id IN (SELECT value ->> 0 FROM json_each(?)) AND status = 'queued'`,
    )
    .run(parksJson);
}

/**
 * Each run once, from its state after all its questions: what the last of its transitions would write. Its
 * view columns are computed from that final state, its revision moves by its number of questions, and each
 * question gets its own event at its own revision (returned, in question order). One UPDATE per set of
 * moved view columns (few distinct sets): only moved columns are named in SET.
 */
function moveRuns(
  ctx: StoreContext,
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
  const byChange = new Map<string, { columns: ViewColumn[]; runs: Array<Record<string, unknown>> }>();
  rows.forEach((row, i) => {
    const view = viewColumnsOf(ctx, row, snapshots[i] as RunSnapshot);
    const columns = changedViewColumns(row, view);
    const key = columns.join(',');
    const group = byChange.get(key) ?? { columns, runs: [] };
    const values: Record<string, unknown> = { id: row.id, revision: revisions.get(row.id) };
    for (const column of columns) values[column] = view[column];
    group.runs.push(values);
    byChange.set(key, group);
  });
  for (const { columns, runs } of byChange.values()) {
    ctx
      .prep(
        `UPDATE runs SET revision = v.revision, updated_at = @now${columns.map((c) => `, ${c} = v.${c}`).join('')}
         FROM (SELECT value ->> 'id' AS id, value ->> 'revision' AS revision${columns
           .map((c) => `, value ->> '${c}' AS ${c}`)
           .join('')} FROM json_each(@runs)) AS v
         WHERE runs.id = v.id`,
      )
      .run({ runs: JSON.stringify(runs), now });
  }
  return events;
}

/** One `interaction.expired` event per question, in order, each at its own run revision. */
function appendExpiryEvents(
  ctx: StoreContext,
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
export function hasExpiredPresenterClaims(ctx: StoreContext, now: number): boolean {
  return (
    ctx
      .prep(`SELECT 1 FROM interactions WHERE status = 'presenting' AND presenter_expires_at <= ? LIMIT 1`)
      .get(now) !== undefined
  );
}

/** Expired presenter claims go back to pending. No run revision change: both states are "open". */
export function expirePresenterClaims(ctx: StoreContext, limit: number, now: number): number {
  return ctx.prep(EXPIRE_PRESENTERS_SQL).run(now, limit).changes;
}
