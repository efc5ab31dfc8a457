/**
 * Schema v5: search upkeep off the hot path.
 * - The search index merges only when asked. FTS5's automerge merges segments inside the write that tips a
 *   level — or, since the index is `contentless_delete`, inside the delete that leaves a segment more than
 *   10% deleted: inside one retention batch, on whichever connection deleted. With
 *   automerge off, the host's hygiene worker (main/store/hygiene-worker.ts) runs bounded `merge` rounds on
 *   its own thread; without a worker, the sweeper does the same rounds, and FTS5's crisis merge (16 segments
 *   on one level) still bounds the index whatever happens.
 * - `runs_search_walk`: the newest-first walk a common word takes (search-plan.ts, searchPlan) tests title,
 *   workflow and project from this index and reads the table row only of the runs it keeps.
 *   Written only when a run is inserted, renamed or deleted.
 */
import type { Migration } from './migration';

export const migration0005: Migration = {
  version: 5,
  name: '0005-search-upkeep',
  sql: `
INSERT INTO run_search(run_search, rank) VALUES ('automerge', 0);
CREATE INDEX runs_search_walk ON runs(id, project_id, title, workflow);
`,
};
