/**
 * What a search matches, counted per display status and "needs you", so the window's tab counts follow the
 * active search (docs/WINDOW.md#search). The same match as the list's (SEARCH_SQL), the same status
 * mapping as the unfiltered counts (run-counts.ts: an expired owner counts as stale). Bounded: past
 * SEARCH_COUNT_CAP matching runs the counts stop growing and say so (figures in docs/WINDOW.md#search).
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
  /** True when more runs matched than were counted. */
  capped: boolean;
}

export function searchCounts(
  ctx: StoreContext,
  q: { search: string; projectPath?: string },
  now: number,
): SearchCounts {
  const search = q.search.trim();
  const params: Record<string, unknown> = {
    ...timeParams(ctx, now),
    search: search.toLowerCase(),
    ...runIdRange(search),
    cap: SEARCH_COUNT_CAP + 1,
  };
  // A needle of 3+ characters reads only the trigram index's candidates (and the id range, and the runs of
  // matching projects), then applies the exact test: a rare word costs its few rows, not a scan of every run.
  const indexed = searchMode(params.search as string) === 'index';
  if (indexed) params.match = ftsPhrase(params.search as string);
  const where = indexed ? [SEARCH_CANDIDATES_SQL, SEARCH_SQL] : [SEARCH_SQL];
  if (q.projectPath !== undefined) {
    const project = findProjectByPath(ctx, filterPath(q.projectPath));
    if (project === null) return { counts: {}, needsYou: 0, capped: false };
    params.projectId = project.id;
    where.push('r.project_id = @projectId');
  }
  const rows = ctx
    .prep(
      `SELECT r.display_base AS ds, coalesce(r.owner_expires_at <= @now, 0) AS expired,
         coalesce(${NEEDS_YOU_SQL}, 0) AS ny
       FROM runs r WHERE ${where.join(' AND ')} LIMIT @cap`,
    )
    .all(params) as Array<{ ds: DisplayStatus; expired: number; ny: number }>;
  const counted = rows.slice(0, SEARCH_COUNT_CAP);
  const counts: StatusCounts = {};
  let needsYou = 0;
  for (const row of counted) {
    const ds: DisplayStatus = row.expired === 1 ? 'stale' : row.ds;
    counts[ds] = (counts[ds] ?? 0) + 1;
    if (row.ny === 1) needsYou += 1;
  }
  return { counts, needsYou, capped: rows.length > SEARCH_COUNT_CAP };
}
