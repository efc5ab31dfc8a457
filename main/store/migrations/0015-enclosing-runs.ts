/**
 * Schema v15: nested runs (docs/LIVENESS.md#nested-runs). `enclosing_run_id` is the run a run was started
 * inside — an `exec` whose environment or process ancestry names a live run — apart from the retry and
 * continuation link (`parent_run_id` + `lineage`), so a run can be both a retry of one run and a child of
 * another. Idempotency keys are shared by the whole family: the root of the retry lineage and every run
 * descending from it through either link. Runs made before have no enclosing run.
 */
import type { Migration } from './migration';

export const migration0015: Migration = {
  version: 15,
  name: '0015-enclosing-runs',
  sql: `
ALTER TABLE runs ADD COLUMN enclosing_run_id TEXT REFERENCES runs(id) ON DELETE SET NULL;
CREATE INDEX runs_enclosing ON runs(enclosing_run_id) WHERE enclosing_run_id IS NOT NULL;
`,
};
