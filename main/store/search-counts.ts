/**
 * What a search matches, counted per display status and "needs you", so the window's tab counts follow the
 * active search (docs/WINDOW.md#search). The same match as the list's (SEARCH_SQL), the same status
 * mapping as the unfiltered counts (run-counts.ts: an expired owner counts as stale). Bounded: past
 * SEARCH_COUNT_CAP matching runs the counts stop growing and say so (figures in docs/WINDOW.md#search).
 *
 * The count is one self-contained statement with its parameters (`searchCountsStatement`), so the host can
 * run it on the search-count worker's connection (search-count-worker.ts) and tally the answer here.
 */
import type { DisplayStatus } from '../../shared/display-status';
import type { StatusCounts } from '../../shared/views';
import { filterPath, findProjectByPath } from './projects';
import { NEEDS_YOU_SQL, timeParams } from './run-views';
import { ftsPhrase, runIdRange, SEARCH_CANDIDATES_SQL, SEARCH_SQL, searchMode } from './search-plan';
import type { StoreContext } from './store-context';

/** At most this many matching runs are counted: a search this broad is not narrowing anything. */
export const SEARCH_COUNT_CAP = 20_000;

export interface SearchCounts {
  counts: StatusCounts;
  needsYou: number;
  /** True when more runs matched than were counted: every count is a lower bound. */
  capped: boolean;
}

/** A read statement and its named parameters, runnable on any connection to the store. */
export interface ReadStatement {
  sql: string;
  params: Record<string, string | number>;
}

/** One group of the count: a stored status, whether the owner's lease expired, whether it needs you. */
export interface SearchCountRow {
  ds: DisplayStatus | null;
  expired: number | null;
  ny: number | null;
  n: number;
}

/**
 * The statement that counts a search's matches, or null when the project filter names no project (nothing
 * matches). The matches are read up to the cap plus one and grouped in SQL: the answer is a few rows, and the
 * last row (`ds` null) is how many were read, which says whether the cap was passed.
 */
export function searchCountsStatement(
  ctx: StoreContext,
  q: { search: string; projectPath?: string },
  now: number,
  cap = SEARCH_COUNT_CAP,
): ReadStatement | null {
  const search = q.search.trim();
  const needle = search.toLowerCase();
  const params: Record<string, string | number> = {
    ...timeParams(ctx, now),
    search: needle,
    ...runIdRange(search),
    cap: cap + 1,
    counted: cap,
  };
  // A needle of 3+ characters reads only the trigram index's candidates (and the id range, and the runs of
  // matching projects), then applies the exact test: a rare word costs its few rows, not a scan of every run.
  const indexed = searchMode(needle) === 'index';
  if (indexed) params.match = ftsPhrase(needle);
  const where = indexed ? [SEARCH_CANDIDATES_SQL, SEARCH_SQL] : [SEARCH_SQL];
  if (q.projectPath !== undefined) {
    const project = findProjectByPath(ctx, filterPath(q.projectPath));
    if (project === null) return null;
    params.projectId = project.id;
    where.push('r.project_id = @projectId');
  }
  // MATERIALIZED: the matches are read once, for the groups and for the total.
  const sql = `WITH hits AS MATERIALIZED (
      SELECT r.display_base AS ds, coalesce(r.owner_expires_at <= @now, 0) AS expired,
        coalesce(${NEEDS_YOU_SQL}, 0) AS ny
      FROM runs r WHERE ${where.join(' AND ')} LIMIT @cap)
    SELECT ds, expired, ny, count(*) AS n FROM (SELECT * FROM hits LIMIT @counted) GROUP BY ds, expired, ny
    UNION ALL SELECT NULL, NULL, NULL, count(*) FROM hits`;
  return { sql, params };
}

/** The counts from the statement's rows (`cap`: the one the statement was made with). */
export function tallySearchCounts(rows: readonly SearchCountRow[], cap = SEARCH_COUNT_CAP): SearchCounts {
  const counts: StatusCounts = {};
  let needsYou = 0;
  let read = 0;
  for (const row of rows) {
    if (row.ds === null) {
      read = row.n;
      continue;
    }
    const ds: DisplayStatus = row.expired === 1 ? 'stale' : row.ds;
    counts[ds] = (counts[ds] ?? 0) + row.n;
    if (row.ny === 1) needsYou += row.n;
  }
  return { counts, needsYou, capped: read > cap };
}

/** Counts a search on the store's own connection. */
export function searchCounts(
  ctx: StoreContext,
  q: { search: string; projectPath?: string },
  now: number,
): SearchCounts {
  const statement = searchCountsStatement(ctx, q, now);
  if (statement === null) return { counts: {}, needsYou: 0, capped: false };
  return tallySearchCounts(ctx.prep(statement.sql).all(statement.params) as SearchCountRow[]);
}
