/**
 * The run list by view (keyset, newest first) for the window, tray and CLI. The view filters are indexed
 * SQL over the denormalised run columns and agree with `displayStatus()` (test/main/store/view-agreement):
 * `display_base` is the reducer's answer ignoring time, and the two time-dependent parts — an owner's lease
 * expiring (→ stale) and a queued run going unattended (→ needs you) — are the columns `owner_expires_at`
 * and `unattended_since` compared with `now` (docs/ARCHITECTURE.md#change-feed for when the lists refresh).
 * How a search is answered is search-plan.ts.
 */
import { DISPLAY_STATUSES, displayStatus } from '../../shared/display-status';
import { TERMINAL_RUN_STATUSES } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { VIEW_STATUSES } from '../../shared/views';
import { filterPath, findProjectByPath } from './projects';
import { listRowSnapshot, listRowsSql, type ListInteraction, type ListRow } from './list-page';
import type { FullRunListItem } from '../../shared/views';
import {
  encodeTriageCursor,
  NEEDS_YOU_BRANCHES,
  triageCounts,
  triageGroupAt,
  triagePage,
  type TriageFilters,
} from './needs-you-queue';
import { RUN_COLUMNS, RUN_FROM, RUN_FROM_SEARCH_WALK } from './row-mapping';
import { ownerLiveness } from './run-state';
import {
  ftsPhrase,
  matchingProjectIds,
  runIdRange,
  SEARCH_CANDIDATES_SQL,
  SEARCH_SQL,
  searchPlan,
  searchWalkRows,
  walkFloorSql,
} from './search-plan';
import type { ListRunsQuery, ListView, RunListPage } from './store-types';
import type { ReadableDB } from './store-context';

const TERMINAL_VIEWS = new Set<string>(TERMINAL_RUN_STATUSES);
const NOT_EXPIRED = `(r.owner_expires_at IS NULL OR r.owner_expires_at > @now)`;

/** An orphan (docs/LIVENESS.md#orphans): stored with display_base 'stale', marked on its lease. */
export const ORPHANED_SQL = `(r.display_base = 'stale'
  AND EXISTS (SELECT 1 FROM leases l WHERE l.run_id = r.id AND l.orphaned_at IS NOT NULL))`;

/** SQL for "needs you" (docs/ARCHITECTURE.md#run-model-and-state-machine), with @now and @unattendedBefore. */
export const NEEDS_YOU_SQL = `((r.needs_you_static = 1 AND ${NOT_EXPIRED}) OR r.owner_expires_at <= @now
  OR r.unattended_since <= @unattendedBefore)`;

function isView(view: string): view is ListView {
  return view === 'all' || view === 'needs-you' || (DISPLAY_STATUSES as readonly string[]).includes(view);
}

/**
 * The display statuses a view lists. The window's views (shared VIEW_STATUSES: Running = running + waiting,
 * Parked = parked + paused + ambiguous, Failed = failed + timed_out) take their names' place; every other
 * display status is a view of its own.
 */
export function viewStatuses(view: Exclude<ListView, 'all' | 'needs-you'>): readonly string[] {
  if (Object.hasOwn(VIEW_STATUSES, view)) return VIEW_STATUSES[view as keyof typeof VIEW_STATUSES];
  return [view];
}

/** The WHERE fragment for a view. */
export function viewCondition(view: ListView): string {
  if (view === 'all') return '1';
  if (view === 'needs-you') return NEEDS_YOU_SQL;
  if (view === 'stale') return `(r.display_base = 'stale' OR r.owner_expires_at <= @now)`;
  if (view === 'orphaned') return ORPHANED_SQL;
  const statuses = viewStatuses(view);
  const list = statuses.map((status) => `'${status}'`).join(', ');
  if (statuses.every((status) => TERMINAL_VIEWS.has(status))) return `r.display_base IN (${list})`;
  return `(r.display_base IN (${list}) AND ${NOT_EXPIRED})`;
}

/**
 * Views whose condition is an OR are answered as a union of index-ordered branches (each a subset of the
 * view, each walking its own index newest first): the first page of the union is the first page of the
 * view, and no branch scans the whole table.
 */
const MULTI_STATUS_VIEWS = ['running', 'parked', 'failed'] as const;

const VIEW_BRANCHES: Partial<Record<ListView, string[]>> = {
  'needs-you': [...NEEDS_YOU_BRANCHES],
  stale: [`x.display_base = 'stale'`, `x.owner_expires_at IS NOT NULL AND x.owner_expires_at <= @now`],
  // Several statuses: one index walk per status, newest first, merged. A live status's branch skips runs
  // whose owner's lease has expired (they are stale now), so every branch row is in the view and a page
  // of the union is a page of the view: stale rows at the top never crowd out the live ones below.
  ...Object.fromEntries(
    MULTI_STATUS_VIEWS.map((view) => [
      view,
      viewStatuses(view).map((status) =>
        TERMINAL_VIEWS.has(status)
          ? `x.display_base = '${status}'`
          : `x.display_base = '${status}' AND (x.owner_expires_at IS NULL OR x.owner_expires_at > @now)`,
      ),
    ]),
  ),
};

/** Views whose branches after the first walk a time range (lapsed owners, unattended runs), not a status. */
const TIME_RANGE_VIEWS = new Set<ListView>(['needs-you', 'stale']);

/** Views whose branches select only rows of the view (each branch condition implies the view's condition). */
const BRANCHES_WITHIN_VIEW = new Set<ListView>(['needs-you', 'stale', ...MULTI_STATUS_VIEWS]);

function branchSql(condition: string, opts: { project: boolean; cursor: boolean; limited: boolean }): string {
  const where = [condition];
  if (opts.project) where.push('x.project_id = @projectId');
  if (opts.cursor) where.push('x.id < @cursor');
  const tail = opts.limited ? ' ORDER BY x.id DESC LIMIT @limit' : '';
  return `SELECT id FROM (SELECT x.id FROM runs x WHERE ${where.join(' AND ')}${tail})`;
}

/** The ids of a union view, for counting (no ordering, no limit). */
export function unionIdsSql(view: 'needs-you' | 'stale'): string {
  return (VIEW_BRANCHES[view] ?? [])
    .map((c) => branchSql(c, { project: false, cursor: false, limited: false }))
    .join(' UNION ');
}

interface ListShape {
  project: boolean;
  search: boolean;
  cursor: boolean;
  indexedSearch?: boolean;
  /** `r.id >= @floor`: a search's window. */
  floor?: boolean;
}

/** The page query's FROM and WHERE for a view and the filters given. */
function listRunsParts(view: ListView, opts: ListShape): { from: string; where: string } {
  const branches = opts.search ? undefined : VIEW_BRANCHES[view];
  // A union of branches within the view is the view: its condition again would only let SQLite walk the
  // status index for it (two IN lists) and sort the page, rather than read the page's ids in order.
  const where = branches !== undefined && BRANCHES_WITHIN_VIEW.has(view) ? [] : [viewCondition(view)];
  if (branches !== undefined) {
    const shape = { project: opts.project, cursor: opts.cursor, limited: true };
    // The newest page of the union lies at or above the page-th newest id of any one branch: the first
    // branch's bounds the others, so a branch over a time range (lapsed owners, unattended runs) walks its
    // range in its covering index but keeps and sorts only the ids above it, not every run in the range.
    // Unary plus: the bound only filters; as a range it would let SQLite walk the id index instead.
    // Only there: a status branch stops after its page anyway, and the bound was a quarter of Failed's
    // time at 1M runs.
    const floor = `(SELECT CASE WHEN count(*) = @limit THEN min(id) ELSE '' END FROM (${branchSql(branches[0] as string, shape)}))`;
    const bounded = TIME_RANGE_VIEWS.has(view);
    const union = branches.map((c, i) =>
      branchSql(i === 0 || !bounded ? c : `${c} AND +x.id >= ${floor}`, shape),
    );
    // When every branch row is in the view, the page is the newest @limit of their union: only those rows
    // are read from runs, not up to @limit per branch. (A parked run with an expired owner is stale, not
    // parked: that view keeps the filter on every branch row.)
    where.push(
      BRANCHES_WITHIN_VIEW.has(view)
        ? `r.id IN (SELECT id FROM (${union.join(' UNION ')}) ORDER BY id DESC LIMIT @limit)`
        : `r.id IN (${union.join(' UNION ALL ')})`,
    );
  }
  if (opts.project) where.push('r.project_id = @projectId');
  if (opts.search) {
    if (opts.indexedSearch === true) where.push(SEARCH_CANDIDATES_SQL);
    where.push(SEARCH_SQL);
  }
  if (opts.cursor) where.push('r.id < @cursor');
  if (opts.floor === true) where.push('r.id >= @floor');
  // A substring walk over all runs reads title, workflow and project from runs_search_walk (migration 0005)
  // and the table row only of the runs it keeps. Named: with `r.id >= @floor` SQLite would rather take the
  // narrower id index and read every row it walks past. (With a project filter, runs_project is the walk;
  // other views filter on columns this index does not hold.)
  const from =
    view === 'all' && opts.search && opts.indexedSearch !== true && !opts.project
      ? RUN_FROM_SEARCH_WALK
      : RUN_FROM;
  return { from, where: where.join(' AND ') };
}

/** The page query: the view's runs (RUN_COLUMNS), newest first, @limit of them. */
export function listRunsSql(view: ListView, opts: ListShape): string {
  const { from, where } = listRunsParts(view, opts);
  return `SELECT ${RUN_COLUMNS} FROM ${from} WHERE ${where} ORDER BY r.id DESC LIMIT @limit`;
}

/**
 * The statement a list page runs: the page query with each row's queue entry, lease and extras
 * (list-page.ts). A search may sort many candidates (the trigram index's, or a multi-status view's), so
 * there the extras are read after the page's LIMIT; every other page query walks an index in order (a union
 * view reads its page's ids in order) and takes the extras in the same pass.
 */
export function listPageSql(view: ListView, opts: ListShape): string {
  const { from, where } = listRunsParts(view, opts);
  return listRowsSql(from, where, { sorted: opts.search });
}

/** The soonest deadline among open questions (pending or being presented), or null. */
function soonestOpenDeadline(interactions: readonly ListInteraction[]): number | null {
  let soonest: number | null = null;
  for (const i of interactions) {
    if ((i.status === 'pending' || i.status === 'presenting') && i.deadlineAt !== null)
      soonest = soonest === null ? i.deadlineAt : Math.min(soonest, i.deadlineAt);
  }
  return soonest;
}

/** The time-dependent parameters of the view conditions. */
export function timeParams(ctx: ReadableDB, now: number): { now: number; unattendedBefore: number } {
  return { now, unattendedBefore: now - ctx.displayOptions.unattendedQueueMs };
}

export function listRuns(ctx: ReadableDB, q: ListRunsQuery, now: number): RunListPage {
  const view = q.view ?? 'all';
  if (!isView(view)) throw new RunwardenError('VALIDATION', `Unknown view ${String(view)}.`);
  if (!Number.isInteger(q.limit) || q.limit <= 0 || q.limit > 1000) {
    throw new RunwardenError('VALIDATION', 'limit must be an integer from 1 to 1000.');
  }
  let projectId: number | null = null;
  if (q.projectPath !== undefined) {
    const project = findProjectByPath(ctx, filterPath(q.projectPath));
    if (project === null) return { items: [], nextCursor: null };
    projectId = project.id;
  }
  const search = q.search !== undefined && q.search.trim() !== '' ? q.search.trim() : null;
  const cursor = q.cursor ?? null;
  if (cursor !== null && view !== 'needs-you' && !/^run_[0-9a-z]{1,60}$/.test(cursor)) {
    throw new RunwardenError(
      'VALIDATION',
      'This cursor is not one a page of runs gave out: start from the first page (no cursor).',
    );
  }
  const needle = search?.toLowerCase() ?? null;
  const projectIds = needle === null ? null : matchingProjectIds(ctx, needle);
  const plan =
    needle === null || projectIds === null ? null : searchPlan(ctx, view, needle, q.limit, projectIds);
  const params: Record<string, unknown> = { ...timeParams(ctx, now), limit: q.limit + 1 };
  if (projectId !== null) params.projectId = projectId;
  if (search !== null && needle !== null) {
    params.search = needle;
    params.projectIds = projectIds;
    Object.assign(params, runIdRange(search));
  }
  if (cursor !== null) params.cursor = cursor;
  const shape = { project: projectId !== null, search: search !== null, cursor: cursor !== null };
  if (view === 'needs-you') {
    const filters = { project: projectId !== null, search: search === null ? null : SEARCH_SQL };
    return needsYouPage(ctx, params, filters, { cursor, limit: q.limit, now });
  }
  const run = (sql: string, more: Record<string, unknown> = {}) => {
    const all = { ...params, ...more };
    if (sql.includes('@view')) all.view = view;
    return ctx.prep(sql).all(all) as ListRow[];
  };
  const byIndex = () =>
    run(listPageSql(view, { ...shape, indexedSearch: true }), { match: ftsPhrase(needle as string) });

  let rows: ListRow[];
  if (plan === 'index') {
    rows = byIndex();
  } else if (plan === 'walk') {
    const floor = (
      ctx.prep(walkFloorSql(shape)).get({ ...params, walkRows: searchWalkRows(q.limit) }) as
        { id: string } | undefined
    )?.id;
    rows = run(
      listPageSql(view, { ...shape, floor: floor !== undefined }),
      floor === undefined ? {} : { floor },
    );
    // The window held less than a page and older runs exist: the newest matches may be older still.
    if (rows.length <= q.limit && floor !== undefined) rows = byIndex();
  } else {
    rows = run(listPageSql(view, shape));
  }
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((row) => listItem(ctx, row, now)),
    nextCursor: rows.length > q.limit && last !== undefined ? last.id : null,
  };
}

/** A page row as the list shows it: the run, its display status and what orders it in Needs you. */
function listItem(ctx: ReadableDB, row: ListRow, now: number): FullRunListItem {
  const snapshot = listRowSnapshot(row);
  return {
    run: snapshot.run,
    queue: snapshot.queue,
    lease: snapshot.lease,
    display: displayStatus(snapshot, now, ctx.displayOptions, ownerLiveness(ctx, snapshot)),
    openInteractions: row.open_interactions,
    ambiguousEffects: row.ambiguous_effects,
    nextDeadlineAt: soonestOpenDeadline(snapshot.interactions),
    askedAt: snapshot.interactions[0]?.createdAt ?? null,
  };
}

/**
 * A page of Needs you, the store's triage queue (needs-you-queue.ts): its keys in queue order, then their
 * rows in one statement; the first page carries the group counts of the whole queue.
 */
function needsYouPage(
  ctx: ReadableDB,
  params: Record<string, unknown>,
  filters: TriageFilters,
  opts: { cursor: string | null; limit: number; now: number },
): RunListPage {
  const keys = triagePage(ctx, filters, params, opts.cursor);
  const page = keys.slice(0, opts.limit);
  const rows = ctx
    .prep(listRowsSql(RUN_FROM, 'r.id IN (SELECT value FROM json_each(@ids))', { sorted: false }))
    .all({ ids: JSON.stringify(page.map((k) => k.id)), limit: page.length }) as ListRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const items: FullRunListItem[] = [];
  for (const key of page) {
    const row = byId.get(key.id);
    if (row !== undefined)
      items.push({ ...listItem(ctx, row, opts.now), triageGroup: triageGroupAt(key.grp) });
  }
  const last = page[page.length - 1];
  return {
    items,
    nextCursor:
      keys.length > opts.limit && last !== undefined
        ? encodeTriageCursor({ group: last.grp, deadline: last.dl, id: last.id })
        : null,
    ...(opts.cursor === null && { groups: triageCounts(ctx, filters, params) }),
  };
}
