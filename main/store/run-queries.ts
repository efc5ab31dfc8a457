/**
 * The read side of the window, tray and CLI: run lists by view (keyset, newest first), attention counts,
 * project counts and run detail. The view filters are indexed SQL over the denormalised run columns and
 * agree with `displayStatus()` (tested): `display_base` is the reducer's answer ignoring time, and the two
 * time-dependent parts — an owner's lease expiring (→ stale) and a queued run going unattended (→ needs
 * you) — are the columns `owner_expires_at` and `unattended_since` compared with `now`.
 */
import { DISPLAY_STATUSES, displayStatus, type DisplayStatus } from '../../shared/display-status';
import { RunwardenError } from '../../shared/errors';
import { VIEW_STATUSES } from '../../shared/views';
import { listAttempts } from './attempts';
import { runEvents } from './events';
import { allProjects, filterPath, findProjectByPath } from './projects';
import {
  RUN_COLUMNS,
  RUN_FROM,
  RUN_FROM_SEARCH_WALK,
  toSubmission,
  type RunRow,
  type SubmissionRow,
} from './rows';
import { loadDisplaySnapshot, loadDisplaySnapshots, loadRunRow, loadSnapshot } from './run-state';
import type {
  AttentionSummary,
  ListRunsQuery,
  ProjectSummary,
  RunDetail,
  RunListItem,
  RunListPage,
  RunView,
} from './store-types';
import type { StoreContext } from './store-context';

const TERMINAL_VIEWS = new Set<string>(['completed', 'failed', 'timed_out', 'cancelled']);
const NOT_EXPIRED = `(r.owner_expires_at IS NULL OR r.owner_expires_at > @now)`;

/** SQL for "needs you" (SPEC §6), with @now and @unattendedBefore. */
export const NEEDS_YOU_SQL = `((r.needs_you_static = 1 AND ${NOT_EXPIRED}) OR r.owner_expires_at <= @now
  OR r.unattended_since <= @unattendedBefore)`;

/** The display status at @now, as SQL over the denormalised columns. */
export const DISPLAY_AT_NOW_SQL = `CASE WHEN r.owner_expires_at <= @now THEN 'stale' ELSE r.display_base END`;

function isView(view: string): view is RunView {
  return (
    view === 'all' ||
    view === 'needs-you' ||
    view === 'parked-any' ||
    (DISPLAY_STATUSES as readonly string[]).includes(view)
  );
}

/**
 * The display statuses a view lists. The window's views (shared VIEW_STATUSES: Running = running + waiting,
 * Parked = parked + paused + ambiguous, Failed = failed + timed_out) take their names' place; every other
 * display status is a view of its own. `parked-any` is the older name of Parked.
 */
export function viewStatuses(view: Exclude<RunView, 'all' | 'needs-you'>): readonly string[] {
  if (view === 'parked-any') return VIEW_STATUSES.parked;
  if (Object.hasOwn(VIEW_STATUSES, view)) return VIEW_STATUSES[view as keyof typeof VIEW_STATUSES];
  return [view];
}

/** The WHERE fragment for a view. */
export function viewCondition(view: RunView): string {
  if (view === 'all') return '1';
  if (view === 'needs-you') return NEEDS_YOU_SQL;
  if (view === 'stale') return `(r.display_base = 'stale' OR r.owner_expires_at <= @now)`;
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
const MULTI_STATUS_VIEWS = ['running', 'parked', 'failed', 'parked-any'] as const;

const VIEW_BRANCHES: Partial<Record<RunView, string[]>> = {
  'needs-you': [
    `x.needs_you_static = 1`,
    `x.owner_expires_at IS NOT NULL AND x.owner_expires_at <= @now`,
    `x.unattended_since IS NOT NULL AND x.unattended_since <= @unattendedBefore`,
  ],
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

/** Views whose branches select only rows of the view (each branch condition implies the view's condition). */
const BRANCHES_WITHIN_VIEW = new Set<RunView>(['needs-you', 'stale', ...MULTI_STATUS_VIEWS]);

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

/**
 * The exact search test (SPEC §7: title, workflow, run id and project): a case-insensitive substring of the
 * title, the workflow or the project's canonical path, or the run id itself. The path test reads the few
 * project rows once (a list subquery), so a scan tests only columns of `runs` per row and joins the
 * project of the rows it keeps — not of every row it walks past.
 */
export const SEARCH_SQL = `(instr(lower(r.title), @search) > 0 OR instr(lower(r.workflow), @search) > 0
  OR r.project_id IN (SELECT id FROM projects WHERE instr(lower(canonical_path), @search) > 0)
  OR r.id = @searchRaw)`;

/**
 * Candidates from the trigram index (migration 0003), plus the runs of projects whose path matches (a few
 * hundred project rows, read directly): a superset of SEARCH_SQL's rows, since the index folds case per
 * character the way `lower()` does for ASCII (and more), and a trigram phrase is a substring.
 */
export const SEARCH_CANDIDATES_SQL = `(r.id IN (SELECT k.run_id FROM run_search_keys k
  WHERE k.key IN (SELECT rowid FROM run_search WHERE run_search MATCH @match) UNION ALL SELECT @searchRaw)
  OR r.project_id IN (SELECT id FROM projects WHERE instr(lower(canonical_path), @search) > 0))`;

/** The trigram tokenizer matches only 3+ characters: shorter needles use the scan (SEARCH_SQL alone). */
export const MIN_INDEXED_SEARCH = 3;

/** How a search is answered: the index when the (lower-cased) needle has 3+ characters, else a scan. */
export function searchMode(needle: string): 'index' | 'scan' {
  return [...needle].length >= MIN_INDEXED_SEARCH ? 'index' : 'scan';
}

/**
 * The share of runs above which a needle counts as common (docs/PERFORMANCE.md, rounds 3 and 4). The index
 * path materialises and sorts every candidate before taking the newest page (~3,300 for a word in 3% of 100k
 * runs: ~18 ms with the project-path branch, ~4.5 ms without); walking runs newest first and testing the
 * substring stops after a page, ~(page / share) rows: ~6,700 index entries, ~1 ms, at 3%.
 */
export const COMMON_SEARCH_SHARE = 0.02;

/**
 * How a search in the All view is answered:
 * - `scan`: the newest-first walk, unbounded — for 1–2 character needles (the index cannot answer them) and
 *   for needles whose matching project paths alone hold COMMON_SEARCH_SHARE of the runs;
 * - `index`: the trigram index's candidates, sorted — when they are at most a page (counted only up to a
 *   page plus one, so a rare word costs a few index entries);
 * - `walk`: the newest-first walk over the newest `searchWalkRows(limit)` runs of the filter, falling back to
 *   the index when that window holds less than a page (a word rarer than COMMON_SEARCH_SHARE).
 * Other views keep the index: their rows are a subset, so a newest-first walk would not stop early. Every
 * plan applies SEARCH_SQL, so the rows are the same whichever is taken.
 */
export type SearchPlan = 'scan' | 'index' | 'walk';

export function searchPlan(ctx: StoreContext, view: RunView, needle: string, limit: number): SearchPlan {
  if (searchMode(needle) === 'scan') return 'scan';
  if (view !== 'all') return 'index';
  const keys = (ctx.prep(`SELECT max(key) AS n FROM run_search_keys`).get() as { n: number | null }).n ?? 0;
  const inProjects = (
    ctx
      .prep(
        `SELECT coalesce(sum(c.n), 0) AS n FROM run_counts c
         WHERE c.project_id IN (SELECT id FROM projects WHERE instr(lower(canonical_path), ?) > 0)`,
      )
      .get(needle) as { n: number }
  ).n;
  if (inProjects >= Math.max(1, Math.ceil(keys * COMMON_SEARCH_SHARE))) return 'scan';
  if (inProjects > limit) return 'walk';
  // Counting a common word's candidates costs ~1 ms at 100k runs however few are counted (FTS5 reads its
  // trigrams' doclists): the list asks again for every refresh and page, so the answer is kept a while.
  // A plan that went stale costs time, never rows: the walk falls back, the index sorts what it finds.
  const now = ctx.clock();
  const key = `${limit}\u0000${needle}`;
  const cached = ctx.searchPlans.get(key);
  if (cached !== undefined && now - cached.at >= 0 && now - cached.at < SEARCH_PLAN_TTL_MS) {
    return cached.plan;
  }
  const plan = countedPlan(ctx, needle, limit, inProjects);
  ctx.searchPlans.delete(key);
  if (ctx.searchPlans.size >= SEARCH_PLANS_KEPT) {
    ctx.searchPlans.delete(ctx.searchPlans.keys().next().value as string);
  }
  ctx.searchPlans.set(key, { plan, at: now });
  return plan;
}

/** How long a needle's plan is reused, and how many needles are remembered (oldest forgotten first). */
export const SEARCH_PLAN_TTL_MS = 30_000;
const SEARCH_PLANS_KEPT = 64;

function countedPlan(ctx: StoreContext, needle: string, limit: number, inProjects: number): 'index' | 'walk' {
  const matches = (
    ctx
      .prep(`SELECT count(*) AS n FROM (SELECT 1 FROM run_search WHERE run_search MATCH ? LIMIT ?)`)
      .get(ftsPhrase(needle), limit + 1 - inProjects) as { n: number }
  ).n;
  return inProjects + matches > limit ? 'walk' : 'index';
}

/** Runs a `walk` reads before falling back to the index: a page's worth at COMMON_SEARCH_SHARE. */
export function searchWalkRows(limit: number): number {
  return Math.ceil((limit + 1) / COMMON_SEARCH_SHARE);
}

/**
 * The oldest id a `walk` reads: the `@walkRows`-th newest run of the filter (below the cursor), or none when
 * the filter holds fewer — then the walk is the whole scan. An index-only walk over ids.
 */
export function walkFloorSql(opts: { project: boolean; cursor: boolean }): string {
  const where = [opts.project ? 'project_id = @projectId' : null, opts.cursor ? 'id < @cursor' : null]
    .filter((c) => c !== null)
    .join(' AND ');
  return `SELECT id FROM runs${where === '' ? '' : ` WHERE ${where}`} ORDER BY id DESC LIMIT 1 OFFSET @walkRows - 1`;
}

/** An FTS5 query for the needle as one literal phrase (quotes doubled; nothing else is special inside). */
export function ftsPhrase(needle: string): string {
  return `"${needle.replaceAll('"', '""')}"`;
}

export function listRunsSql(
  view: RunView,
  opts: { project: boolean; search: boolean; cursor: boolean; indexedSearch?: boolean; floor?: boolean },
): string {
  const where = [viewCondition(view)];
  const branches = opts.search ? undefined : VIEW_BRANCHES[view];
  if (branches !== undefined) {
    const union = branches.map((c) =>
      branchSql(c, { project: opts.project, cursor: opts.cursor, limited: true }),
    );
    // When every branch row is in the view, the page is the newest @limit of their union: only those rows
    // are read from runs, not up to @limit per branch. (A parked run with an expired owner is stale, not
    // parked-any: that view keeps the filter on every branch row.)
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
  return `SELECT ${RUN_COLUMNS} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY r.id DESC LIMIT @limit`;
}

function timeParams(ctx: StoreContext, now: number) {
  return { now, unattendedBefore: now - ctx.displayOptions.unattendedQueueMs };
}

export function toListItem(ctx: StoreContext, row: RunRow, now: number): RunListItem {
  const snapshot = loadDisplaySnapshot(ctx, row);
  return {
    run: snapshot.run,
    queue: snapshot.queue,
    lease: snapshot.lease,
    display: displayStatus(snapshot, now, ctx.displayOptions),
    openInteractions: row.open_interactions,
    ambiguousEffects: row.ambiguous_effects,
  };
}

export function listRuns(ctx: StoreContext, q: ListRunsQuery, now: number): RunListPage {
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
  const needle = search?.toLowerCase() ?? null;
  const plan = needle === null ? null : searchPlan(ctx, view, needle, q.limit);
  const params: Record<string, unknown> = { ...timeParams(ctx, now), limit: q.limit + 1 };
  if (projectId !== null) params.projectId = projectId;
  if (search !== null && needle !== null) {
    params.search = needle;
    params.searchRaw = search;
  }
  if (cursor !== null) params.cursor = cursor;
  const shape = { project: projectId !== null, search: search !== null, cursor: cursor !== null };
  const run = (sql: string, more: Record<string, unknown> = {}) => {
    const all = { ...params, ...more };
    if (sql.includes('@view')) all.view = view;
    return ctx.prep(sql).all(all) as RunRow[];
  };
  const byIndex = () =>
    run(listRunsSql(view, { ...shape, indexedSearch: true }), { match: ftsPhrase(needle as string) });

  let rows: RunRow[];
  if (plan === 'index') {
    rows = byIndex();
  } else if (plan === 'walk') {
    const floor = (
      ctx.prep(walkFloorSql(shape)).get({ ...params, walkRows: searchWalkRows(q.limit) }) as
        { id: string } | undefined
    )?.id;
    rows = run(
      listRunsSql(view, { ...shape, floor: floor !== undefined }),
      floor === undefined ? {} : { floor },
    );
    // The window held less than a page and older runs exist: the newest matches may be older still.
    if (rows.length <= q.limit && floor !== undefined) rows = byIndex();
  } else {
    rows = run(listRunsSql(view, shape));
  }
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: loadDisplaySnapshots(ctx, page).map((snapshot, i) => {
      const row = page[i] as RunRow;
      return {
        run: snapshot.run,
        queue: snapshot.queue,
        lease: snapshot.lease,
        display: displayStatus(snapshot, now, ctx.displayOptions),
        openInteractions: row.open_interactions,
        ambiguousEffects: row.ambiguous_effects,
      };
    }),
    nextCursor: rows.length > q.limit && last !== undefined ? last.id : null,
  };
}

function countsFrom(rows: Array<{ ds: DisplayStatus; n: number }>): Partial<Record<DisplayStatus, number>> {
  const counts: Partial<Record<DisplayStatus, number>> = {};
  for (const row of rows) counts[row.ds] = (counts[row.ds] ?? 0) + row.n;
  for (const key of Object.keys(counts) as DisplayStatus[]) if (counts[key] === 0) delete counts[key];
  return counts;
}

/** Runs per (project, display status) at `now`: the trigger-kept counters, with expired owners moved to stale. */
function statusCounts(ctx: StoreContext, now: number): Array<{ pid: number; ds: DisplayStatus; n: number }> {
  const base = ctx
    .prep(`SELECT project_id AS pid, display_base AS ds, n FROM run_counts WHERE n > 0`)
    .all() as Array<{ pid: number; ds: DisplayStatus; n: number }>;
  // Few rows: the covering index over expired owners (SPEC §3 "Stale" is time-dependent, so not counted ahead).
  const expired = ctx
    .prep(
      `SELECT project_id AS pid, display_base AS ds, count(*) AS n FROM runs
       WHERE owner_expires_at IS NOT NULL AND owner_expires_at <= ? GROUP BY project_id, display_base`,
    )
    .all(now) as Array<{ pid: number; ds: DisplayStatus; n: number }>;
  const out = [...base];
  for (const row of expired) {
    if (row.ds === 'stale') continue;
    out.push({ pid: row.pid, ds: row.ds, n: -row.n }, { pid: row.pid, ds: 'stale', n: row.n });
  }
  return out;
}

/**
 * "Needs you" per project: three disjoint, indexed parts (a static flag on an unexpired run; an expired
 * owner; a queued run unattended since before the cutoff) — the same set as NEEDS_YOU_SQL.
 */
function needsYouCounts(ctx: StoreContext, now: number): Map<number, number> {
  const rows = ctx
    .prep(
      `SELECT pid, sum(n) AS n FROM (
         SELECT project_id AS pid, count(*) AS n FROM runs WHERE needs_you_static = 1
           AND (owner_expires_at IS NULL OR owner_expires_at > @now) GROUP BY project_id
         UNION ALL
         SELECT project_id, count(*) FROM runs WHERE owner_expires_at IS NOT NULL AND owner_expires_at <= @now
           GROUP BY project_id
         UNION ALL
         SELECT project_id, count(*) FROM runs WHERE unattended_since IS NOT NULL
           AND unattended_since <= @unattendedBefore GROUP BY project_id
       ) GROUP BY pid`,
    )
    .all(timeParams(ctx, now)) as Array<{ pid: number; n: number }>;
  return new Map(rows.map((row) => [row.pid, row.n]));
}

export function attentionSummary(ctx: StoreContext, limit: number, now: number): AttentionSummary {
  const counts = countsFrom(statusCounts(ctx, now));
  let needsYou = 0;
  for (const n of needsYouCounts(ctx, now).values()) needsYou += n;
  const items = listRuns(ctx, { view: 'needs-you', limit }, now).items;
  return { counts, needsYou, items };
}

export function listProjects(ctx: StoreContext, now: number): ProjectSummary[] {
  const byProject = new Map<number, Array<{ ds: DisplayStatus; n: number }>>();
  for (const row of statusCounts(ctx, now)) {
    const list = byProject.get(row.pid) ?? [];
    list.push(row);
    byProject.set(row.pid, list);
  }
  const needs = needsYouCounts(ctx, now);
  return allProjects(ctx).map((project) => {
    const mine = byProject.get(project.id) ?? [];
    return {
      ...project,
      counts: countsFrom(mine),
      needsYou: needs.get(project.id) ?? 0,
      total: mine.reduce((sum, row) => sum + row.n, 0),
    };
  });
}

export function getRunDetail(
  ctx: StoreContext,
  runId: string,
  opts: { eventsLimit: number; eventsBefore?: number },
  now: number,
): RunDetail {
  const snapshot = loadSnapshot(ctx, runId);
  const events = runEvents(ctx, runId, opts.eventsLimit + 1, opts.eventsBefore);
  const page = events.slice(0, opts.eventsLimit);
  const last = page[page.length - 1];
  const submissions = (
    ctx
      .prep(
        `SELECT s.* FROM submissions s JOIN interactions i ON i.id = s.interaction_id WHERE i.run_id = ? ORDER BY s.id`,
      )
      .all(runId) as SubmissionRow[]
  ).map(toSubmission);
  return {
    snapshot,
    display: displayStatus(snapshot, now, ctx.displayOptions),
    attempts: listAttempts(ctx, runId),
    submissions,
    events: page,
    nextEventsCursor: events.length > opts.eventsLimit && last !== undefined ? last.seq : null,
    projectPath: snapshot.run.projectPath,
  };
}

export function projectPathOfRun(ctx: StoreContext, runId: string): string {
  return loadRunRow(ctx, runId).project_path;
}
