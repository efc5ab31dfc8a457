/**
 * Schema v2: what the 100k-run bench showed missing (docs/PERFORMANCE.md).
 * - `run_counts`: runs per (project, display_base), kept by triggers in the writing transaction, so the
 *   project list and the attention counts read ~2,000 counter rows instead of scanning every run.
 *   Time-dependent staleness is applied on top from the (small) set of runs whose owner's lease expired.
 * - Covering indexes for those time-dependent parts (expired owners, needs-you, unattended queue).
 * - Indexes on `attempt_id` in effects and interactions: deleting an attempt (retention pruning, cascades)
 *   sets them NULL through the foreign key, which scanned both tables once per attempt without them.
 * - `runs_project_display` dropped: unused by any plan, and rewritten by every heartbeat (owner_expires_at).
 */
import type { Migration } from './migration';

export const migration0002: Migration = {
  version: 2,
  name: '0002-view-counts',
  sql: `
CREATE TABLE run_counts (
  project_id INTEGER NOT NULL,
  display_base TEXT NOT NULL,
  n INTEGER NOT NULL CHECK (n >= 0),
  PRIMARY KEY (project_id, display_base)
) STRICT, WITHOUT ROWID;
INSERT INTO run_counts (project_id, display_base, n)
  SELECT project_id, display_base, count(*) FROM runs GROUP BY project_id, display_base;

CREATE TRIGGER run_counts_insert AFTER INSERT ON runs
BEGIN
  INSERT INTO run_counts (project_id, display_base, n) VALUES (NEW.project_id, NEW.display_base, 1)
    ON CONFLICT (project_id, display_base) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER run_counts_delete AFTER DELETE ON runs
BEGIN
  UPDATE run_counts SET n = n - 1 WHERE project_id = OLD.project_id AND display_base = OLD.display_base;
END;
CREATE TRIGGER run_counts_update AFTER UPDATE OF project_id, display_base ON runs
  WHEN OLD.project_id != NEW.project_id OR OLD.display_base != NEW.display_base
BEGIN
  UPDATE run_counts SET n = n - 1 WHERE project_id = OLD.project_id AND display_base = OLD.display_base;
  INSERT INTO run_counts (project_id, display_base, n) VALUES (NEW.project_id, NEW.display_base, 1)
    ON CONFLICT (project_id, display_base) DO UPDATE SET n = n + 1;
END;

DROP INDEX runs_owner_expiry;
CREATE INDEX runs_owner_expiry_cover ON runs(owner_expires_at, project_id, display_base)
  WHERE owner_expires_at IS NOT NULL;
DROP INDEX runs_unattended;
CREATE INDEX runs_unattended_cover ON runs(unattended_since, project_id) WHERE unattended_since IS NOT NULL;
CREATE INDEX runs_needs_you_project ON runs(project_id, owner_expires_at) WHERE needs_you_static = 1;
DROP INDEX runs_project_display;

CREATE INDEX effects_attempt ON effects(attempt_id) WHERE attempt_id IS NOT NULL;
CREATE INDEX interactions_attempt ON interactions(attempt_id) WHERE attempt_id IS NOT NULL;
`,
};
