/**
 * Schema v7: where each run's output log is (docs/RUN-OUTPUT.md). The output itself stays in files beside
 * the store; a row says only which file, how big it was when last recorded, whether output was skipped
 * (truncated), and whether the file was deleted to keep logs within their total budget. One row per claim
 * (lease generation): a resumed run is re-run under a new generation and gets its own log.
 */
import type { Migration } from './migration';

export const migration0007: Migration = {
  version: 7,
  name: '0007-run-logs',
  sql: `
CREATE TABLE run_logs (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  generation INTEGER NOT NULL CHECK (generation >= 0),
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL DEFAULT 0 CHECK (bytes >= 0),
  truncated INTEGER NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
  started_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  removed_at INTEGER,
  PRIMARY KEY (run_id, generation)
) STRICT;
`,
};
