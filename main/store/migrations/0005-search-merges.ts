/**
 * Schema v5: the search index merges only when asked (docs/PERFORMANCE.md, round 4).
 * FTS5's automerge merges segments inside the write that tips a level — or, since the index is
 * `contentless_delete`, inside the delete that leaves a segment more than 10% deleted: ~25 ms inside one
 * retention batch at 100k runs, on whichever connection deleted. With automerge off, the host's hygiene
 * worker (main/store/hygiene-worker.ts) runs bounded `merge` rounds on its own thread instead; without a
 * worker, the sweeper does the same rounds, and FTS5's crisis merge (16 segments on one level) still bounds
 * the index whatever happens.
 */
import type { Migration } from './migration';

export const migration0005: Migration = {
  version: 5,
  name: '0005-search-merges',
  sql: `INSERT INTO run_search(run_search, rank) VALUES ('automerge', 0);`,
};
