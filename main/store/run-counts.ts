/** Counts for the window, tray and CLI: runs per display status and per project, and "needs you". */
import type { DisplayStatus } from '../../shared/display-status';
import { allProjects } from './projects';
import { listRuns, timeParams } from './run-views';
import type { AttentionSummary, ProjectSummary } from './store-types';
import type { ReadableDB } from './store-context';

type StatusRow = { pid: number; ds: DisplayStatus; n: number };

/** Runs per display status from rows of (status, n): summed, zero counts left out. */
function countsFrom(
  rows: Iterable<{ ds: DisplayStatus; n: number }>,
): Partial<Record<DisplayStatus, number>> {
  const counts: Partial<Record<DisplayStatus, number>> = {};
  for (const row of rows) counts[row.ds] = (counts[row.ds] ?? 0) + row.n;
  for (const key of Object.keys(counts) as DisplayStatus[]) if (counts[key] === 0) delete counts[key];
  return counts;
}

/**
 * Runs whose owner's lease has expired at `now`, per (project, stored display status): few rows, from the
 * covering index over owner expiry. Both the status counts (they are stale now) and "needs you" (they need a
 * person) use them, so the index is walked once per call.
 */
function expiredOwners(ctx: ReadableDB, now: number): StatusRow[] {
  return ctx
    .prep(
      `SELECT project_id AS pid, display_base AS ds, count(*) AS n FROM runs
       WHERE owner_expires_at IS NOT NULL AND owner_expires_at <= ? GROUP BY project_id, display_base`,
    )
    .all(now) as StatusRow[];
}

/** Runs per (project, display status) at `now`: the kept counters (`moveRunCounts`), with expired owners moved to stale. */
function statusCounts(ctx: ReadableDB, expired: readonly StatusRow[]): StatusRow[] {
  const out = ctx
    .prep(`SELECT project_id AS pid, display_base AS ds, n FROM run_counts WHERE n > 0`)
    .all() as StatusRow[];
  for (const row of expired) {
    if (row.ds === 'stale') continue;
    out.push({ pid: row.pid, ds: row.ds, n: -row.n }, { pid: row.pid, ds: 'stale', n: row.n });
  }
  // Orphans are counted under 'stale' by the counters (docs/LIVENESS.md#orphans); few rows, read through
  // leases_orphaned.
  const orphans = ctx
    .prep(
      `SELECT r.project_id AS pid, count(*) AS n FROM leases l JOIN runs r ON r.id = l.run_id
       WHERE l.orphaned_at IS NOT NULL AND r.display_base = 'stale' GROUP BY r.project_id`,
    )
    .all() as Array<{ pid: number; n: number }>;
  for (const row of orphans) {
    out.push({ pid: row.pid, ds: 'stale', n: -row.n }, { pid: row.pid, ds: 'orphaned', n: row.n });
  }
  return out;
}

/**
 * "Needs you" per project: three disjoint, indexed parts (a static flag on an unexpired run; an expired
 * owner; a queued run unattended since before the cutoff) — the same set as NEEDS_YOU_SQL.
 */
function needsYouCounts(ctx: ReadableDB, now: number, expired: readonly StatusRow[]): Map<number, number> {
  const rows = ctx
    .prep(
      `SELECT project_id AS pid, count(*) AS n FROM runs WHERE needs_you_static = 1
         AND (owner_expires_at IS NULL OR owner_expires_at > @now) GROUP BY project_id
       UNION ALL
       SELECT project_id, count(*) FROM runs WHERE unattended_since IS NOT NULL
         AND unattended_since <= @unattendedBefore GROUP BY project_id`,
    )
    .all(timeParams(ctx, now)) as Array<{ pid: number; n: number }>;
  const out = new Map<number, number>();
  for (const row of [...rows, ...expired]) out.set(row.pid, (out.get(row.pid) ?? 0) + row.n);
  return out;
}

export function attentionSummary(ctx: ReadableDB, limit: number, now: number): AttentionSummary {
  const expired = expiredOwners(ctx, now);
  const counts = countsFrom(statusCounts(ctx, expired));
  let needsYou = 0;
  for (const n of needsYouCounts(ctx, now, expired).values()) needsYou += n;
  const items = limit === 0 ? [] : listRuns(ctx, { view: 'needs-you', limit }, now).items;
  return { counts, needsYou, items };
}

export function listProjects(ctx: ReadableDB, now: number): ProjectSummary[] {
  const expired = expiredOwners(ctx, now);
  const byProject = new Map<number, StatusRow[]>();
  for (const row of statusCounts(ctx, expired)) {
    const list = byProject.get(row.pid);
    if (list === undefined) byProject.set(row.pid, [row]);
    else list.push(row);
  }
  const needs = needsYouCounts(ctx, now, expired);
  return allProjects(ctx).map((project) => {
    const mine = byProject.get(project.id) ?? [];
    let total = 0;
    for (const row of mine) total += row.n;
    return { ...project, counts: countsFrom(mine), needsYou: needs.get(project.id) ?? 0, total };
  });
}
