/**
 * Needs you as the store's triage queue (shared/triage.ts): every run that needs a person, ordered by group
 * (questions, stale and orphaned, effects, parked, queued, other), questions by their soonest open deadline
 * (none last), and newest first within that. Pages follow each other by a keyset on (group, deadline, id), so
 * a page never reorders the rows of the pages before it, and the group counts are over the whole queue.
 *
 * The queue is the union of the needs-you index walks (`unionIdsSql`); each of its runs is read once to place
 * it, and a question's deadline is read only for the questions group (interactions_open).
 */
import { RunwardenError } from '../../shared/errors';
import { TRIAGE_GROUPS, type TriageCounts, type TriageGroup } from '../../shared/triage';
import { OPEN_INTERACTION_SQL } from './row-mapping';
import type { ReadableDB } from './store-context';

/**
 * Needs you's three indexed parts, over `x` (with @now and @unattendedBefore): a run that needs a person by
 * its stored state, one whose owner's lease has expired, a queued run nobody picked up. Their union is the
 * view (NEEDS_YOU_SQL in run-views.ts): a static run whose owner expired is in the second part.
 */
export const NEEDS_YOU_BRANCHES = [
  `x.needs_you_static = 1`,
  `x.owner_expires_at IS NOT NULL AND x.owner_expires_at <= @now`,
  `x.unattended_since IS NOT NULL AND x.unattended_since <= @unattendedBefore`,
] as const;

const NEEDS_YOU_IDS = NEEDS_YOU_BRANCHES.map((c) => `SELECT x.id FROM runs x WHERE ${c}`).join(' UNION ');

/** A question without a deadline waits behind every one with a deadline. */
const NO_DEADLINE = Number.MAX_SAFE_INTEGER;

/**
 * The group's rank, as `triageGroupOf` places a run by its display status: an expired owner makes any run
 * stale, and an unknown outcome wins over parked and queued.
 */
const GROUP_SQL = `CASE
  WHEN r.owner_expires_at IS NOT NULL AND r.owner_expires_at <= @now THEN 1
  WHEN r.display_base = 'needs-answer' THEN 0
  WHEN r.display_base IN ('stale', 'orphaned') THEN 1
  WHEN r.display_base = 'ambiguous' OR r.ambiguous_effects > 0 THEN 2
  WHEN r.display_base IN ('parked', 'paused') THEN 3
  WHEN r.display_base = 'queued' THEN 4
  ELSE 5 END`;

const DEADLINE_SQL = `CASE WHEN k.grp = 0 THEN coalesce((SELECT min(i.deadline_at) FROM interactions i
  WHERE i.run_id = k.id AND i.status IN ${OPEN_INTERACTION_SQL}), ${NO_DEADLINE}) ELSE 0 END`;

/** Where a page starts: after the run at (group, deadline, id). */
export interface TriageCursor {
  group: number;
  deadline: number;
  id: string;
}

const CURSOR_PREFIX = 'triage:';

export function encodeTriageCursor(cursor: TriageCursor): string {
  return `${CURSOR_PREFIX}${cursor.group}:${cursor.deadline}:${cursor.id}`;
}

/** A cursor this queue gave out; anything else is a VALIDATION error. */
export function decodeTriageCursor(text: string): TriageCursor {
  const match = /^triage:([0-5]):(\d{1,16}):(run_[0-9a-z]{1,60})$/.exec(text);
  const deadline = match === null ? NaN : Number(match[2]);
  if (match === null || !Number.isSafeInteger(deadline)) {
    throw new RunwardenError(
      'VALIDATION',
      'This cursor is not one a Needs-you page gave out: start from the first page (no cursor).',
    );
  }
  return { group: Number(match[1]), deadline, id: match[3] as string };
}

/** The filters a queue page keeps (`listRuns` binds their parameters). */
export interface TriageFilters {
  project: boolean;
  /** SQL over `r` for a search, or null. */
  search: string | null;
}

function keysSql(filters: TriageFilters): string {
  const where = [`r.id IN (${NEEDS_YOU_IDS})`];
  if (filters.project) where.push('r.project_id = @projectId');
  if (filters.search !== null) where.push(filters.search);
  return `WITH k AS MATERIALIZED (SELECT r.id AS id, ${GROUP_SQL} AS grp FROM runs r WHERE ${where.join(' AND ')})`;
}

/** The page's ids in queue order, @limit of them after the cursor (if any). */
export function triagePageSql(filters: TriageFilters, cursor: boolean): string {
  const after = cursor
    ? `WHERE grp > @cGroup OR (grp = @cGroup AND (dl > @cDeadline OR (dl = @cDeadline AND id < @cId)))`
    : '';
  return `${keysSql(filters)}, kd AS (SELECT k.id, k.grp, ${DEADLINE_SQL} AS dl FROM k)
    SELECT id, grp, dl FROM kd ${after} ORDER BY grp, dl, id DESC LIMIT @limit`;
}

/** Runs per group over the whole queue. */
export function triageCountsSql(filters: TriageFilters): string {
  return `${keysSql(filters)} SELECT grp, count(*) AS n FROM k GROUP BY grp`;
}

export interface TriageKey {
  id: string;
  grp: number;
  dl: number;
}

/** The keys of one page (limit rows, plus one to tell whether more follow). */
export function triagePage(
  ctx: ReadableDB,
  filters: TriageFilters,
  params: Record<string, unknown>,
  cursor: string | null,
): TriageKey[] {
  const at = cursor === null ? null : decodeTriageCursor(cursor);
  const bound = at === null ? params : { ...params, cGroup: at.group, cDeadline: at.deadline, cId: at.id };
  return ctx.prep(triagePageSql(filters, at !== null)).all(bound) as TriageKey[];
}

export function triageCounts(
  ctx: ReadableDB,
  filters: TriageFilters,
  params: Record<string, unknown>,
): TriageCounts {
  const rows = ctx.prep(triageCountsSql(filters)).all(params) as Array<{ grp: number; n: number }>;
  const counts: TriageCounts = {};
  for (const row of rows) counts[triageGroupAt(row.grp)] = row.n;
  return counts;
}

export function triageGroupAt(rank: number): TriageGroup {
  return TRIAGE_GROUPS[rank] ?? 'other';
}
