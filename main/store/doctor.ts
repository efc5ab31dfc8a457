/** `runwarden doctor`: contradictions (docs/ARCHITECTURE.md#run-model-and-state-machine status pairs and the store's own invariants), stale leases, integrity. */
import { isTerminalRunStatus, type Actor, type QueueStatus, type RunStatus } from '../../shared/domain';
import { appendEvent } from './run-state';
import { RECOUNT_KEY, type RecountMarker } from './migrations/migration';
import type { CounterDrift } from '../../shared/views';
import { TERMINAL_RUN_SQL } from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';

/** The valid (run.status, queue.status) pairs (docs/ARCHITECTURE.md#run-model-and-state-machine); anything else is a contradiction. */
export const VALID_STATUS_PAIRS: Readonly<Record<RunStatus, readonly QueueStatus[]>> = {
  queued: ['queued'],
  running: ['starting', 'running', 'parked'],
  waiting: ['parked', 'running'],
  completed: ['done'],
  failed: ['failed'],
  timed_out: ['failed'],
  cancelled: ['cancelled'],
};

const PAIRS_SQL = Object.entries(VALID_STATUS_PAIRS)
  .map(([run, queue]) => `(r.status = '${run}' AND q.status IN (${queue.map((s) => `'${s}'`).join(', ')}))`)
  .join(' OR ');

const CHECKS: ReadonlyArray<{ problem: string; sql: string }> = [
  {
    problem: 'run has no queue entry',
    sql: `SELECT r.id FROM runs r WHERE NOT EXISTS (SELECT 1 FROM queue_entries q WHERE q.run_id = r.id)`,
  },
  {
    problem: 'run has no lease row',
    sql: `SELECT r.id FROM runs r WHERE NOT EXISTS (SELECT 1 FROM leases l WHERE l.run_id = r.id)`,
  },
  {
    problem: 'finished run still has a lease owner',
    sql: `SELECT r.id FROM runs r JOIN leases l ON l.run_id = r.id WHERE r.status IN ${TERMINAL_RUN_SQL} AND l.owner_type IS NOT NULL`,
  },
  {
    problem: 'finished run still has an active attempt',
    sql: `SELECT DISTINCT a.run_id AS id FROM attempts a JOIN runs r ON r.id = a.run_id
          WHERE r.status IN ${TERMINAL_RUN_SQL} AND a.status IN ('pending', 'running', 'waiting')`,
  },
  {
    // docs/LIVENESS.md#unknown-outcomes: an ending turns them ambiguous; one left applying is never retried safely.
    problem: 'finished run has an effect still applying (its outcome is unknown: it should be ambiguous)',
    sql: `SELECT DISTINCT e.run_id AS id FROM effects e JOIN runs r ON r.id = e.run_id
          WHERE r.status IN ${TERMINAL_RUN_SQL} AND e.status = 'applying'`,
  },
  {
    problem: 'open_interactions counter disagrees with the interactions',
    sql: `SELECT r.id FROM runs r WHERE r.open_interactions !=
          (SELECT count(*) FROM interactions i WHERE i.run_id = r.id AND i.status IN ('pending', 'presenting'))`,
  },
  {
    problem: 'ambiguous_effects counter disagrees with the effects',
    sql: `SELECT r.id FROM runs r WHERE r.ambiguous_effects !=
          (SELECT count(*) FROM effects e WHERE e.run_id = r.id AND e.status = 'ambiguous')`,
  },
  {
    problem: 'run revision disagrees with its last event',
    sql: `SELECT r.id FROM runs r WHERE r.revision !=
          COALESCE((SELECT MAX(e.run_revision) FROM events e WHERE e.run_id = r.id), 0)`,
  },
];

export function findContradictions(ctx: ReadableDB): Array<{ runId: string; problem: string }> {
  const out: Array<{ runId: string; problem: string }> = [];
  const pairs = ctx
    .prep(
      `SELECT r.id, r.status AS rs, q.status AS qs FROM runs r JOIN queue_entries q ON q.run_id = r.id
       WHERE NOT (${PAIRS_SQL}) ORDER BY r.id`,
    )
    .all() as Array<{ id: string; rs: string; qs: string }>;
  for (const row of pairs) {
    out.push({ runId: row.id, problem: `run is ${row.rs} but its queue entry is ${row.qs}` });
  }
  for (const check of CHECKS) {
    for (const row of ctx.prep(check.sql).all() as Array<{ id: string }>) {
      out.push({ runId: row.id, problem: check.problem });
    }
  }
  return out;
}

/**
 * The `run_counts` rows (runs per project and display status, kept by the code that moves a run:
 * migration 0012) that disagree with a count of the runs, for the window's and tray's counts. One walk of
 * `runs_project_display_id`, at 100k runs a few tens of ms.
 */

/**
 * The sweeper's recount after an upgrade (docs/ARCHITECTURE.md#upgrades): nothing to do (one keyed read)
 * unless a migration left a marker; then the counts are set right, and the marker narrowed to the runs still
 * live, and removed once its time is up and none is left. Run inside a write transaction.
 */
export function recountAfterUpgrade(ctx: WritableDB, actor: Actor, now: number): CounterDrift[] {
  const row = ctx.prep(`SELECT value_json FROM settings WHERE key = ?`).get(RECOUNT_KEY) as
    { value_json: string } | undefined;
  if (row === undefined) return [];
  const marker = JSON.parse(row.value_json) as RecountMarker;
  const changes = repairCounterDrift(ctx, actor, now);
  const status = ctx.prep(`SELECT status FROM runs WHERE id = ?`).pluck();
  const live = marker.runs.filter((id) => {
    const s = status.get(id) as string | undefined;
    return s !== undefined && !isTerminalRunStatus(s);
  });
  if (now >= marker.until && live.length === 0) {
    ctx.prep(`DELETE FROM settings WHERE key = ?`).run(RECOUNT_KEY);
  } else if (live.length !== marker.runs.length) {
    ctx
      .prep(`UPDATE settings SET value_json = ?, updated_at = ? WHERE key = ?`)
      .run(JSON.stringify({ until: marker.until, runs: live }), now, RECOUNT_KEY);
  }
  return changes;
}

export function hasRecountMarker(ctx: ReadableDB): boolean {
  return ctx.prep(`SELECT 1 FROM settings WHERE key = ?`).get(RECOUNT_KEY) !== undefined;
}

const DRIFT_SQL = `WITH counted AS (SELECT project_id, display_base, count(*) AS n FROM runs GROUP BY project_id, display_base),
  kept AS (SELECT project_id, display_base, n FROM run_counts WHERE n != 0),
  keys AS (SELECT project_id, display_base FROM counted UNION SELECT project_id, display_base FROM kept)
  SELECT k.project_id AS projectId, p.canonical_path AS projectPath, k.display_base AS display,
    coalesce(kept.n, 0) AS kept, coalesce(counted.n, 0) AS counted
  FROM keys k
  LEFT JOIN counted USING (project_id, display_base) LEFT JOIN kept USING (project_id, display_base)
  LEFT JOIN projects p ON p.id = k.project_id
  WHERE coalesce(kept.n, 0) != coalesce(counted.n, 0)
  ORDER BY p.canonical_path, k.display_base`;

type DriftRow = CounterDrift & { projectId: number };

const withoutId = (row: DriftRow): CounterDrift => ({
  projectPath: row.projectPath,
  display: row.display,
  kept: row.kept,
  counted: row.counted,
});

export function findCounterDrift(ctx: ReadableDB): CounterDrift[] {
  return (ctx.prep(DRIFT_SQL).all() as DriftRow[]).map(withoutId);
}

/**
 * Sets every kept count that disagrees with the runs to the runs' own count (docs/ARCHITECTURE.md#upgrades):
 * a writer of an older schema that was still running across an upgrade moved runs without counting them.
 * Returns what it changed (kept → counted); run it inside a write transaction.
 */
export function repairCounterDrift(ctx: WritableDB, actor: Actor, now: number): CounterDrift[] {
  const drift = ctx.prep(DRIFT_SQL).all() as DriftRow[];
  if (drift.length === 0) return [];
  const set = ctx.prep(
    `INSERT INTO run_counts (project_id, display_base, n) VALUES (?, ?, ?)
     ON CONFLICT (project_id, display_base) DO UPDATE SET n = excluded.n`,
  );
  for (const row of drift) set.run(row.projectId, row.display, row.counted);
  const changes = drift.map(withoutId);
  appendEvent(ctx, now, null, null, { type: 'store.counts_repaired', actor, payload: { changes } });
  return changes;
}

export function countStaleLeases(ctx: ReadableDB, now: number): number {
  return (ctx.prep(`SELECT count(*) AS n FROM runs WHERE owner_expires_at <= ?`).get(now) as { n: number }).n;
}

/** `integrity_check` and `foreign_key_check` together: "ok" or the problems, one per line. */
export function integrity(ctx: ReadableDB): string {
  const rows = ctx.prep('PRAGMA integrity_check').all() as Array<{ integrity_check: string }>;
  const problems = rows.map((r) => r.integrity_check).filter((text) => text !== 'ok');
  const fk = ctx.prep('PRAGMA foreign_key_check').all() as Array<{
    table: string;
    rowid: number;
    parent: string;
  }>;
  for (const row of fk) problems.push(`foreign key: ${row.table} row ${row.rowid} → missing ${row.parent}`);
  return problems.length === 0 ? 'ok' : problems.join('\n');
}
