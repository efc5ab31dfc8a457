/**
 * The shared core of every run transition: loading a run's rows, the fencing check (docs/ARCHITECTURE.md#leases-and-fencing), the
 * compare-and-set check for people, and `commitRun`, which bumps the revision, rewrites the
 * denormalised view columns from `displayStatus()` and appends the event — all inside the caller's
 * transaction.
 */
import type {
  Lease,
  Actor,
  ActorType,
  EventType,
  OwnerType,
  RunnerSurface,
  RunSnapshot,
  Surface,
} from '../../shared/domain';
import { isTerminalRunStatus } from '../../shared/domain';
import { displayStatus, hasLiveOwner, isOrphaned, type OwnerLiveness } from '../../shared/display-status';
import { UNKNOWN_LIVENESS } from './liveness';
import { RunwardenError } from '../../shared/errors';
import { hashToken } from './ids';
import {
  OPEN_INTERACTION_SQL,
  RUN_COLUMNS,
  RUN_FROM,
  toEffect,
  toInteraction,
  toLease,
  toQueue,
  toRun,
  toJson,
  type EffectRow,
  type InteractionRow,
  type LeaseRow,
  type QueueRow,
  type RunRow,
} from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';

/** What a runner presents for a protected write. */
export interface ClaimRef {
  runId: string;
  generation: number;
  token: string;
  ownerType: OwnerType;
  /** How the runner reaches the store, for its events: its kit ('sdk', the default) or the CLI. */
  surface?: RunnerSurface;
}

export interface EventActor {
  type: ActorType;
  id: string | null;
  surface: Surface | null;
}

export interface EventInput {
  type: EventType;
  actor: EventActor;
  leaseGeneration?: number | null;
  payload?: unknown;
}

/** A time before any lease expiry: evaluating the reducer at it gives the time-independent display. */
const BEFORE_TIME = Number.MIN_SAFE_INTEGER;

export function actorOf(actor: Actor): EventActor {
  return { type: actor.type, id: actor.id, surface: actor.surface };
}

export function findRunRow(ctx: ReadableDB, runId: string): RunRow | undefined {
  return ctx.prep(`SELECT ${RUN_COLUMNS} FROM ${RUN_FROM} WHERE r.id = ?`).get(runId) as RunRow | undefined;
}

export function loadRunRow(ctx: ReadableDB, runId: string): RunRow {
  const row = findRunRow(ctx, runId);
  if (row === undefined) throw new RunwardenError('NOT_FOUND', `No run ${runId} in this store.`);
  return row;
}

export function loadQueueRow(ctx: ReadableDB, runId: string): QueueRow {
  const row = ctx.prep(`SELECT * FROM queue_entries WHERE run_id = ?`).get(runId) as QueueRow | undefined;
  if (row === undefined) throw new RunwardenError('INTERNAL', `Run ${runId} has no queue entry.`);
  return row;
}

export function loadLeaseRow(ctx: ReadableDB, runId: string): LeaseRow {
  const row = ctx.prep(`SELECT * FROM leases WHERE run_id = ?`).get(runId) as LeaseRow | undefined;
  if (row === undefined) throw new RunwardenError('INTERNAL', `Run ${runId} has no lease row.`);
  return row;
}

export function openInteractionRows(ctx: WritableDB, runId: string): InteractionRow[] {
  return ctx
    .prep(
      `SELECT * FROM interactions WHERE run_id = ? AND status IN ${OPEN_INTERACTION_SQL} ORDER BY created_at, id`,
    )
    .all(runId) as InteractionRow[];
}

export function ambiguousEffectRows(ctx: WritableDB, runId: string): EffectRow[] {
  return ctx
    .prep(`SELECT * FROM effects WHERE run_id = ? AND status = 'ambiguous' ORDER BY id`)
    .all(runId) as EffectRow[];
}

/** The full snapshot (every interaction and effect of the run), as the detail view and `fresh` use. */
export function loadSnapshot(ctx: ReadableDB, runId: string): RunSnapshot {
  const run = loadRunRow(ctx, runId);
  return {
    run: toRun(run),
    queue: toQueue(loadQueueRow(ctx, runId)),
    lease: toLease(loadLeaseRow(ctx, runId)),
    interactions: (
      ctx
        .prep(`SELECT * FROM interactions WHERE run_id = ? ORDER BY created_at, id`)
        .all(runId) as InteractionRow[]
    ).map(toInteraction),
    effects: (ctx.prep(`SELECT * FROM effects WHERE run_id = ? ORDER BY id`).all(runId) as EffectRow[]).map(
      toEffect,
    ),
  };
}

/** The snapshot the reducer needs (open interactions and ambiguous effects only): cheap enough per list row. */
export function loadDisplaySnapshot(ctx: WritableDB, row: RunRow): RunSnapshot {
  return {
    run: toRun(row),
    queue: toQueue(loadQueueRow(ctx, row.id)),
    lease: toLease(loadLeaseRow(ctx, row.id)),
    interactions: openInteractionRows(ctx, row.id).map(toInteraction),
    effects: ambiguousEffectRows(ctx, row.id).map(toEffect),
  };
}

/**
 * `loadDisplaySnapshot` for many rows in four statements instead of four per row: queue entries and leases
 * by id, and interactions / effects only for the rows whose counters say they have open ones — or for every
 * row with `readAll` (a transition recomputing those counters must not trust them, as `loadDisplaySnapshot`
 * does not). A list page reads less, in one statement (list-page.ts).
 */
export function loadDisplaySnapshots(
  ctx: WritableDB,
  rows: readonly RunRow[],
  opts: { readAll?: boolean } = {},
): RunSnapshot[] {
  if (rows.length === 0) return [];
  const ids = JSON.stringify(rows.map((r) => r.id));
  const all = opts.readAll === true;
  const queues = new Map(
    (
      ctx
        .prep(`SELECT * FROM queue_entries WHERE run_id IN (SELECT value FROM json_each(?))`)
        .all(ids) as QueueRow[]
    ).map((q) => [q.run_id, q]),
  );
  const leases = new Map(
    (
      ctx.prep(`SELECT * FROM leases WHERE run_id IN (SELECT value FROM json_each(?))`).all(ids) as LeaseRow[]
    ).map((l) => [l.run_id, l]),
  );
  const withOpen = rows.filter((r) => all || r.open_interactions > 0).map((r) => r.id);
  const withAmbiguous = rows.filter((r) => all || r.ambiguous_effects > 0).map((r) => r.id);
  const open = groupBy(
    withOpen.length === 0
      ? []
      : (ctx
          .prep(
            `SELECT * FROM interactions WHERE run_id IN (SELECT value FROM json_each(?))
               AND status IN ${OPEN_INTERACTION_SQL} ORDER BY created_at, id`,
          )
          .all(JSON.stringify(withOpen)) as InteractionRow[]),
  );
  const ambiguous = groupBy(
    withAmbiguous.length === 0
      ? []
      : (ctx
          .prep(
            `SELECT * FROM effects WHERE run_id IN (SELECT value FROM json_each(?)) AND status = 'ambiguous' ORDER BY id`,
          )
          .all(JSON.stringify(withAmbiguous)) as EffectRow[]),
  );
  return rows.map((row) => {
    const queue = queues.get(row.id);
    const lease = leases.get(row.id);
    if (queue === undefined) throw new RunwardenError('INTERNAL', `Run ${row.id} has no queue entry.`);
    if (lease === undefined) throw new RunwardenError('INTERNAL', `Run ${row.id} has no lease row.`);
    return {
      run: toRun(row),
      queue: toQueue(queue),
      lease: toLease(lease),
      interactions: (open.get(row.id) ?? []).map(toInteraction),
      effects: (ambiguous.get(row.id) ?? []).map(toEffect),
    };
  });
}

function groupBy<T extends { run_id: string }>(rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const list = out.get(row.run_id) ?? [];
    list.push(row);
    out.set(row.run_id, list);
  }
  return out;
}

export function appendEvent(
  ctx: WritableDB,
  now: number,
  runId: string | null,
  runRevision: number | null,
  event: EventInput,
): number {
  const result = ctx
    .prep(
      `INSERT INTO events (run_id, run_revision, type, actor_type, actor_id, surface, lease_generation, payload_json, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      runId,
      runRevision,
      event.type,
      event.actor.type,
      event.actor.id,
      event.actor.surface,
      event.leaseGeneration ?? null,
      toJson(event.payload ?? {}),
      now,
    );
  return Number(result.lastInsertRowid);
}

/** The denormalised view columns of a run (migration 0001), as `displayStatus()` sees its snapshot. */
export function viewColumnsOf(
  ctx: WritableDB,
  row: RunRow,
  snapshot: RunSnapshot,
): Record<ViewColumn, string | number | null> {
  const base = displayStatus(snapshot, BEFORE_TIME, ctx.displayOptions);
  const lease = snapshot.lease;
  const owned = lease !== null && lease.ownerType !== null;
  return {
    // The column's CHECK (migration 0001) predates `orphaned`: an orphan is stored as stale and told apart
    // by leases.orphaned_at (run-views.ts, ORPHANED_SQL), with no expiry so the clock cannot move it.
    display_base: base.status === 'orphaned' ? 'stale' : base.status,
    needs_you_static: base.needsYou ? 1 : 0,
    // An orphan's state does not move with the clock: only a liveness verdict ends it.
    owner_expires_at:
      !isTerminalRunStatus(row.status) && owned && base.status !== 'orphaned'
        ? (lease.expiresAt ?? null)
        : null,
    unattended_since: base.status === 'queued' && !owned ? snapshot.queue.availableAt : null,
    open_interactions: snapshot.interactions.length,
    ambiguous_effects: snapshot.effects.length,
  };
}

/**
 * The view columns that moved. Only those are named in an UPDATE's SET: SQLite rewrites every index over a
 * column named in SET (even to the same value), and `runs` has ~11 over these — a full SET dirtied a dozen
 * index pages per transition.
 */
export function changedViewColumns(
  row: RunRow,
  view: Record<ViewColumn, string | number | null>,
): ViewColumn[] {
  return VIEW_COLUMNS.filter((column) => row[column] !== view[column]);
}

/**
 * Ends every run transition: revision+1, updated_at, the denormalised view columns recomputed from the
 * reducer, and one event carrying the new revision. Returns the new revision.
 */
export function commitRun(ctx: WritableDB, runId: string, now: number, event: EventInput): number {
  const row = loadRunRow(ctx, runId);
  const view = viewColumnsOf(ctx, row, loadDisplaySnapshot(ctx, row));
  const revision = row.revision + 1;
  writeRunView(ctx, row, view, revision, now);
  moveRunCounts(ctx, [
    { projectId: row.project_id, from: row.display_base, to: view.display_base as string },
  ]);
  appendEvent(ctx, now, runId, revision, event);
  return revision;
}

/**
 * Writes a run's new revision, `updated_at` and those of its view columns that moved: one UPDATE per run,
 * naming only the moved columns, since SQLite rewrites every index over a column named in SET.
 */
export function writeRunView(
  ctx: WritableDB,
  row: RunRow,
  view: Record<ViewColumn, string | number | null>,
  revision: number,
  now: number,
): void {
  const changed = changedViewColumns(row, view);
  const params: Record<string, string | number | null> = { revision, now, id: row.id };
  for (const column of changed) params[column] = view[column];
  ctx
    .prep(
      `UPDATE runs SET revision = @revision, updated_at = @now${changed.map((c) => `, ${c} = @${c}`).join('')}
       WHERE id = @id`,
    )
    .run(params);
}

/** One run's move between display statuses, for `moveRunCounts`. */
export interface CountMove {
  projectId: number;
  from: string;
  to: string;
}

/**
 * Keeps `run_counts` (runs per project and display status) for runs whose `display_base` the caller has
 * moved: one statement per counter whose net change is not zero (few: a burst moves runs between a
 * handful of statuses). Migration 0012 says why this is not a trigger; inserted and deleted runs are
 * still counted by theirs.
 */
export function moveRunCounts(ctx: WritableDB, moves: readonly CountMove[]): void {
  const net = new Map<string, [projectId: number, display: string, n: number]>();
  const add = (projectId: number, display: string, n: number): void => {
    const key = `${projectId}\u0000${display}`;
    const entry = net.get(key) ?? [projectId, display, 0];
    entry[2] += n;
    net.set(key, entry);
  };
  for (const { projectId, from, to } of moves) {
    if (from === to) continue;
    add(projectId, from, -1);
    add(projectId, to, 1);
  }
  if (net.size === 0) return;
  const down = ctx.prep(
    `UPDATE run_counts SET n = n - @n WHERE project_id = @projectId AND display_base = @display`,
  );
  const up = ctx.prep(
    `INSERT INTO run_counts (project_id, display_base, n) VALUES (@projectId, @display, @n)
     ON CONFLICT (project_id, display_base) DO UPDATE SET n = n + excluded.n`,
  );
  for (const [projectId, display, n] of net.values()) {
    if (n < 0) down.run({ projectId, display, n: -n });
    else if (n > 0) up.run({ projectId, display, n });
  }
}

/** The denormalised view columns `commitRun` keeps (see migration 0001), in a fixed order. */
export const VIEW_COLUMNS = [
  'display_base',
  'needs_you_static',
  'owner_expires_at',
  'unattended_since',
  'open_interactions',
  'ambiguous_effects',
] as const;
export type ViewColumn = (typeof VIEW_COLUMNS)[number];

/**
 * The fencing check (docs/ARCHITECTURE.md#leases-and-fencing): token hash, generation, owner type and `expires_at > now` inside one UPDATE.
 * 0 rows → FENCED. Also records the write as a sign of life (heartbeat_at).
 */
export function fence(ctx: WritableDB, claim: ClaimRef, now: number): LeaseRow {
  const row = ctx
    .prep(
      `UPDATE leases SET heartbeat_at = ?
       WHERE run_id = ? AND token_hash = ? AND generation = ? AND owner_type = ? AND expires_at > ?
       RETURNING *`,
    )
    .get(now, claim.runId, hashToken(claim.token), claim.generation, claim.ownerType, now) as
    LeaseRow | undefined;
  if (row === undefined) {
    throw new RunwardenError(
      'FENCED',
      `This ${claim.ownerType} no longer holds run ${claim.runId} (lease generation ${claim.generation} expired or was taken over). Stop and drop side effects.`,
    );
  }
  return row;
}

export function runnerActor(lease: LeaseRow, claim: Pick<ClaimRef, 'surface'>): EventActor {
  return { type: lease.owner_type ?? 'runner', id: lease.owner_id, surface: runnerSurface(claim.surface) };
}

/** A runner's surface as its events record it; anything but the two a runner has is refused. */
export function runnerSurface(surface: unknown): RunnerSurface {
  if (surface === undefined) return 'sdk';
  if (surface === 'sdk' || surface === 'cli') return surface;
  throw new RunwardenError(
    'VALIDATION',
    `A runner's surface is "sdk" or "cli", not ${JSON.stringify(surface)}.`,
  );
}

/**
 * The liveness check's verdict on a run still owned (docs/LIVENESS.md), for the reducer: a finished or
 * ownerless run has nothing to judge, so a page of finished runs costs no /proc reads.
 */
export function ownerLiveness(ctx: ReadableDB, snapshot: Pick<RunSnapshot, 'run' | 'lease'>): OwnerLiveness {
  const lease = snapshot.lease;
  if (lease === null || lease.ownerType === null || isTerminalRunStatus(snapshot.run.status))
    return UNKNOWN_LIVENESS;
  return ctx.liveness.judge(lease);
}

/** Compare-and-set for a person's command: refused with the fresh snapshot when the run moved. */
export function checkRevision(ctx: WritableDB, row: RunRow, expectedRevision: number | undefined): void {
  if (expectedRevision !== undefined && row.revision !== expectedRevision) {
    throw new RunwardenError(
      'STALE_VIEW',
      `Run ${row.id} changed since you looked at it (revision ${expectedRevision} → ${row.revision}). Review it and try again.`,
      { recovery: { kind: 'refresh' }, fresh: loadSnapshot(ctx, row.id) },
    );
  }
}

/**
 * A live run is never touched by a person, only asked (docs/ARCHITECTURE.md#leases-and-fencing) — live as the
 * liveness check judges it (docs/LIVENESS.md): a verifiably alive owner whatever the clock says. Nor is a run
 * whose command still runs without its supervisor (an orphan): its command must be stopped first.
 */
export function refuseLiveOwner(ctx: WritableDB, row: RunRow, now: number, what: string): void {
  const lease = toLease(loadLeaseRow(ctx, row.id));
  const liveness = ctx.liveness.judge(lease);
  if (hasLiveOwner(lease, now, liveness)) {
    const late =
      lease.expiresAt !== null && lease.expiresAt <= now
        ? ' (its heartbeat is late, but its process is alive)'
        : '';
    // Name the cooperative form of what the person ran: a live run is asked, never touched.
    const pause = what === 'pause';
    const instead = pause
      ? 'Ask it to pause instead ("pause --request").'
      : what === 'cancel'
        ? 'Ask it to stop instead ("cancel --request").'
        : 'Wait for it to finish, or ask it to stop ("cancel --request").';
    throw new RunwardenError(
      'LIVE_OWNER',
      `Cannot ${what} run ${row.id}: ${lease.ownerType} ${lease.ownerId ?? ''} holds a live lease${late}. ${instead}`,
      {
        recovery: { kind: pause ? 'requestPause' : 'requestCancel', runId: row.id },
        fresh: loadSnapshot(ctx, row.id),
      },
    );
  }
  if (isOrphaned(lease, liveness) || (liveness.supervisor !== 'alive' && liveness.command === 'alive')) {
    throw new RunwardenError(
      'LIVE_OWNER',
      `Cannot ${what} run ${row.id}: its runner is gone but ${orphanCommandWords(lease)}. Stop the command first; it would otherwise keep running unseen.`,
      { recovery: { kind: 'stopCommand', runId: row.id }, fresh: loadSnapshot(ctx, row.id) },
    );
  }
}

/**
 * What still runs of an orphan, as it is: its command's own process group, or — started from a terminal,
 * sharing the terminal's group — the processes that inherited the run's environment from the command's pid
 * (docs/LIVENESS.md#terminal-mode), which need not be alive itself.
 */
export function orphanCommandWords(
  lease: Pick<Lease, 'runId'> & Partial<Pick<Lease, 'commandPgid' | 'commandPid'>>,
): string {
  const pgid = lease.commandPgid ?? null;
  const pid = lease.commandPid ?? null;
  if (pgid !== null) return `its command (process group ${pgid}) still runs`;
  if (pid === null) return 'its command still runs';
  return `what its command (pid ${pid}, started from a terminal) started still runs: the processes carrying run ${lease.runId ?? ''}'s environment`;
}

export function refuseTerminal(ctx: WritableDB, row: RunRow, what: string): void {
  if (isTerminalRunStatus(row.status)) {
    throw new RunwardenError('CONFLICT', `Cannot ${what} run ${row.id}: it is already ${row.status}.`, {
      fresh: loadSnapshot(ctx, row.id),
    });
  }
}

export function conflict(ctx: WritableDB, runId: string, message: string): RunwardenError {
  return new RunwardenError('CONFLICT', message, { fresh: loadSnapshot(ctx, runId) });
}
