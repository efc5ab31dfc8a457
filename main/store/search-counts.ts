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
import { ftsPhrase, matchingProjectIds, runIdRange, SEARCH_SQL, searchMode } from './search-plan';
import type { ReadableDB } from './store-context';

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
 * last row (`ds` null) is how many were read and (`ny`) whether a candidate list was cut at the cap — either
 * says the counts are a lower bound.
 */
export function searchCountsStatement(
  ctx: ReadableDB,
  q: { search: string; projectPath?: string },
  now: number,
  cap = SEARCH_COUNT_CAP,
): ReadStatement | null {
  const search = q.search.trim();
  const needle = search.toLowerCase();
  const params: Record<string, string | number> = {
    ...timeParams(ctx, now),
    search: needle,
    projectIds: matchingProjectIds(ctx, needle),
    ...runIdRange(search),
    cap: cap + 1,
    counted: cap,
  };
  const project = q.projectPath === undefined ? null : findProjectByPath(ctx, filterPath(q.projectPath));
  if (q.projectPath !== undefined && project === null) return null;
  if (project !== null) params.projectId = project.id;
  const inProject = project === null ? '' : ' AND r.project_id = @projectId';
  const groups = `SELECT ds, expired, ny, count(*) AS n FROM (SELECT * FROM hits LIMIT @counted)
    GROUP BY ds, expired, ny`;
  const hit = `SELECT r.display_base AS ds, coalesce(r.owner_expires_at <= @now, 0) AS expired,
      coalesce(${NEEDS_YOU_SQL}, 0) AS ny FROM runs r`;
  // MATERIALIZED: the matches are read once, for the groups and for the total.
  if (searchMode(needle) === 'scan') {
    // 1–2 characters: a walk over the runs, which stops at the cap (most runs match so short a needle).
    const sql = `WITH hits AS MATERIALIZED (${hit} WHERE ${SEARCH_SQL}${inProject} LIMIT @cap)
      ${groups} UNION ALL SELECT NULL, NULL, 0, count(*) FROM hits`;
    return { sql, params };
  }
  // 3+ characters: the trigram index's candidates (SEARCH_CANDIDATES_SQL's three lists), then the exact test.
  // Each list is read only up to the cap: FTS5 streams a phrase's matches, so a common word costs its newest
  // cap-plus-one keys, not all of them (at a million runs "agent" has 100,000: reading and sorting every one
  // was most of the count's time). A list cut there marks the counts as a lower bound even when fewer
  // of its candidates pass the exact test. With a project filter the index's list is read whole (it is not
  // by project), and cut only by the outer LIMIT.
  params.match = ftsPhrase(needle);
  params.candidates = project === null ? cap + 1 : -1;
  const sql = `WITH
    fts AS MATERIALIZED (SELECT rowid AS key FROM run_search WHERE run_search MATCH @match
      ORDER BY rowid DESC LIMIT @candidates),
    by_id AS MATERIALIZED (SELECT id FROM runs WHERE id >= @idFrom AND id < @idTo LIMIT @cap),
    by_path AS MATERIALIZED (SELECT id FROM runs r
      WHERE r.project_id IN (SELECT value FROM json_each(@projectIds))${inProject} LIMIT @cap),
    hits AS MATERIALIZED (${hit}
      WHERE r.id IN (SELECT k.run_id FROM run_search_keys k WHERE k.key IN (SELECT key FROM fts)
        UNION ALL SELECT id FROM by_id UNION ALL SELECT id FROM by_path)
      AND ${SEARCH_SQL}${inProject} LIMIT @cap)
    ${groups}
    UNION ALL SELECT NULL, NULL,
      (SELECT count(*) FROM fts) >= @cap OR (SELECT count(*) FROM by_id) >= @cap
        OR (SELECT count(*) FROM by_path) >= @cap,
      count(*) FROM hits`;
  return { sql, params };
}

/** The counts from the statement's rows (`cap`: the one the statement was made with). */
export function tallySearchCounts(rows: readonly SearchCountRow[], cap = SEARCH_COUNT_CAP): SearchCounts {
  const counts: StatusCounts = {};
  let needsYou = 0;
  let read = 0;
  let cut = false;
  for (const row of rows) {
    if (row.ds === null) {
      read = row.n;
      cut = row.ny === 1;
      continue;
    }
    const ds: DisplayStatus = row.expired === 1 ? 'stale' : row.ds;
    counts[ds] = (counts[ds] ?? 0) + row.n;
    if (row.ny === 1) needsYou += row.n;
  }
  return { counts, needsYou, capped: read > cap || cut };
}

/** Counts a search on the store's own connection. */
export function searchCounts(
  ctx: ReadableDB,
  q: { search: string; projectPath?: string },
  now: number,
): SearchCounts {
  const statement = searchCountsStatement(ctx, q, now);
  if (statement === null) return { counts: {}, needsYou: 0, capped: false };
  return tallySearchCounts(ctx.prep(statement.sql).all(statement.params) as SearchCountRow[]);
}
