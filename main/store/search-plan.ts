/**
 * How a run search is answered (docs/PERFORMANCE.md has the measurements behind each threshold): the exact
 * substring test every plan applies, the trigram index's candidates, and the newest-first walk, with the
 * chosen plan remembered per needle for a while (WritableDB.searchPlans).
 */
import type { ListView } from './store-types';
import type { ReadableDB } from './store-context';

/**
 * The exact search test (title, workflow, run id and project): a case-insensitive substring of the
 * title, the workflow or the project's canonical path, or the start of the run id (a range over the id
 * index, @idFrom ≤ id < @idTo: see runIdRange). The path test is a list of project ids, @projectIds
 * (a JSON array: `matchingProjectIds`), read once per call and shared by the plan, the candidates and this
 * test; so a scan tests only columns of `runs` per row and joins the project of the rows it keeps — not of
 * every row it walks past.
 */
export const SEARCH_SQL = `(instr(lower(r.title), @search) > 0 OR instr(lower(r.workflow), @search) > 0
  OR r.project_id IN (SELECT value FROM json_each(@projectIds))
  OR (r.id >= @idFrom AND r.id < @idTo))`;

/**
 * The ids of the projects whose canonical path holds the (lower-cased) needle, as the JSON array SEARCH_SQL's
 * @projectIds takes. Every project's path is tested (a few hundred rows): done once per list page or count,
 * where the plan, the candidates and the exact test each read the project table before.
 */
export function matchingProjectIds(ctx: ReadableDB, needle: string): string {
  const ids = ctx
    .prep(`SELECT id FROM projects WHERE instr(lower(canonical_path), ?) > 0`)
    .pluck()
    .all(needle) as number[];
  return JSON.stringify(ids);
}

/** Characters of an id after `run_` a needle must give before it is taken as the start of run ids. */
export const MIN_RUN_ID_PREFIX = 4;

/**
 * The run ids a needle names: every id that starts with it, with or without the `run_` a person may leave
 * off when pasting part of one (ids are `run_` + Crockford base32, lower case). A needle that cannot start an
 * id, or gives fewer than MIN_RUN_ID_PREFIX characters after `run_`, names none (an empty range).
 */
export function runIdRange(needle: string): { idFrom: string; idTo: string } {
  const lower = needle.toLowerCase();
  const prefix = lower.startsWith('run_') ? lower : `run_${lower}`;
  if (!/^run_[0-9a-z]+$/.test(prefix) || prefix.length < 'run_'.length + MIN_RUN_ID_PREFIX)
    return { idFrom: '', idTo: '' };
  // Ids use only [0-9a-z_], all below '~': [prefix, prefix + '~') is exactly the ids that start with it.
  return { idFrom: prefix, idTo: `${prefix}~` };
}

/**
 * Candidates from the trigram index (migration 0003), plus the runs whose id starts with the needle (a range
 * over the id index), plus the runs of projects whose path matches (a few hundred project rows, read
 * directly): a superset of SEARCH_SQL's rows, since the index folds case per
 * character the way `lower()` does for ASCII (and more), and a trigram phrase is a substring.
 * One list of ids: written as `id IN (…) OR project_id IN (…)`, SQLite coded the trigram query twice (once
 * per OR branch's lookup, once for the re-check) and ran it twice, and sorted the rows it found.
 */
export const SEARCH_CANDIDATES_SQL = `r.id IN (SELECT k.run_id FROM run_search_keys k
  WHERE k.key IN (SELECT rowid FROM run_search WHERE run_search MATCH @match)
  UNION ALL SELECT id FROM runs WHERE id >= @idFrom AND id < @idTo
  UNION ALL SELECT id FROM runs WHERE project_id IN (SELECT value FROM json_each(@projectIds)))`;

/** The trigram tokenizer matches only 3+ characters: shorter needles use the scan (SEARCH_SQL alone). */
export const MIN_INDEXED_SEARCH = 3;

/** How a search is answered: the index when the (lower-cased) needle has 3+ characters, else a scan. */
export function searchMode(needle: string): 'index' | 'scan' {
  return [...needle].length >= MIN_INDEXED_SEARCH ? 'index' : 'scan';
}

/**
 * The share of runs above which a needle counts as common. The index path materialises and sorts every
 * candidate before taking the newest page, so it slows with the number of matches; walking runs newest first
 * and testing the substring stops after about (page / share) rows.
 */
export const COMMON_SEARCH_SHARE = 0.02;

/**
 * How a search in the All view is answered:
 * - `scan`: the newest-first walk, unbounded — for 1–2 character needles (the index cannot answer them) and
 *   for needles whose matching project paths alone hold COMMON_SEARCH_SHARE of the runs;
 * - `index`: the trigram index's candidates, sorted — when they are at most `indexedMatchesMax` (counted only
 *   up to that plus one, so a rare word costs a few index entries);
 * - `walk`: the newest-first walk over the newest `searchWalkRows(limit)` runs of the filter, falling back to
 *   the index when that window holds less than a page (a word rarer than COMMON_SEARCH_SHARE).
 * Other views keep the index: their rows are a subset, so a newest-first walk would not stop early. Every
 * plan applies SEARCH_SQL, so the rows are the same whichever is taken.
 */
export type SearchPlan = 'scan' | 'index' | 'walk';

export function searchPlan(
  ctx: ReadableDB,
  view: ListView,
  needle: string,
  limit: number,
  projectIds: string = matchingProjectIds(ctx, needle),
): SearchPlan {
  if (searchMode(needle) === 'scan') return 'scan';
  if (view !== 'all') return 'index';
  // No project matches (the usual case): no runs to count in them, and no share of all runs to compare.
  const inProjects =
    projectIds === '[]'
      ? 0
      : (
          ctx
            .prep(
              `SELECT coalesce(sum(c.n), 0) AS n FROM run_counts c
               WHERE c.project_id IN (SELECT value FROM json_each(?))`,
            )
            .get(projectIds) as { n: number }
        ).n;
  if (inProjects > 0) {
    const keys = (ctx.prep(`SELECT max(key) AS n FROM run_search_keys`).get() as { n: number | null }).n ?? 0;
    if (inProjects >= Math.max(1, Math.ceil(keys * COMMON_SEARCH_SHARE))) return 'scan';
  }
  if (inProjects > limit) return 'walk';
  // Counting a common word's candidates costs about the same however few are counted (FTS5 reads its
  // trigrams' doclists): the list asks again for every refresh and page, so the
  // answer is kept a while.
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

/**
 * Index entries per walked run at which the two plans cost the same. The index reads and sorts every match;
 * the walk tests each run it passes (a few times cheaper per run) and passes about `limit × runs / matches` of
 * them. So the index is cheaper below √(k · limit · runs) matches, k being the ratio of the two costs.
 */
export const WALK_TO_INDEX_COST = 0.15;

/** The most matches a needle may have for its page to come from the index: a page at least, more in a big store. */
export function indexedMatchesMax(limit: number, runs: number): number {
  return Math.max(limit, Math.ceil(Math.sqrt(WALK_TO_INDEX_COST * limit * runs)));
}

function countedPlan(ctx: ReadableDB, needle: string, limit: number, inProjects: number): 'index' | 'walk' {
  const runs = (ctx.prep(`SELECT max(key) AS n FROM run_search_keys`).get() as { n: number | null }).n ?? 0;
  const max = indexedMatchesMax(limit, runs);
  const matches = (
    ctx
      .prep(`SELECT count(*) AS n FROM (SELECT 1 FROM run_search WHERE run_search MATCH ? LIMIT ?)`)
      .get(ftsPhrase(needle), Math.max(0, max + 1 - inProjects)) as { n: number }
  ).n;
  return inProjects + matches > max ? 'walk' : 'index';
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
