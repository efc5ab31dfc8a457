/**
 * Schema v12: a run's move between display statuses is counted by the code that writes it
 * (`moveRunCounts`, run-state.ts), not by the `run_counts_update` trigger.
 *
 * Any UPDATE trigger that names a column a statement sets makes SQLite run that UPDATE in two passes
 * (rowids first, then the rows), and such an UPDATE that also moves a run in or out of the partial
 * "needs you" indexes took about four times as long as the same UPDATE without the trigger — most of the
 * cost of a question deadline that parks its run (docs/PERFORMANCE.md#deadlines-passing-in-bulk). The insert
 * and delete triggers stay: they do not touch an UPDATE's plan. The counters are rebuilt from the runs.
 */
import type { Migration } from './migration';

export const migration0012: Migration = {
  version: 12,
  name: '0012-run-counts-in-code',
  sql: `
DROP TRIGGER IF EXISTS run_counts_update;
DELETE FROM run_counts;
INSERT INTO run_counts (project_id, display_base, n)
  SELECT project_id, display_base, count(*) FROM runs GROUP BY project_id, display_base;
`,
};
