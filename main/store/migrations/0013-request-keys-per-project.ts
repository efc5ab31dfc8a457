/**
 * Schema v13: a request key belongs to its project (docs/CLI.md#the-same-line-again). Until now
 * `runs.request_key` was unique across the whole store, so `exec --key K` from another project reached
 * the other project's run of K. The key moves to `project_request_key`, unique per project; a run's
 * `request_key` is NULL from here on. (SQLite cannot drop a UNIQUE column or its index without rebuilding
 * the runs table, which every other table refers to; the old column stays, empty.)
 */
import type { Migration } from './migration';

export const migration0013: Migration = {
  version: 13,
  name: '0013-request-keys-per-project',
  sql: `
ALTER TABLE runs ADD COLUMN project_request_key TEXT;
UPDATE runs SET project_request_key = request_key, request_key = NULL WHERE request_key IS NOT NULL;
CREATE UNIQUE INDEX runs_project_request_key ON runs(project_id, project_request_key)
  WHERE project_request_key IS NOT NULL;
`,
};
