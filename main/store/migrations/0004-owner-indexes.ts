/**
 * Schema v4: the owner-expiry indexes, for heartbeats and the needs-you page (docs/PERFORMANCE.md).
 * - A heartbeat rewrites `runs.owner_expires_at`, and SQLite rewrites every index whose key *or partial-index
 *   WHERE* names a column in the UPDATE's SET, even when the key itself is unchanged. `runs_owned(id)` and
 *   `runs_project_owned(project_id, id)`, both `WHERE owner_expires_at IS NOT NULL`, were two such indexes
 *   per heartbeat that no plan needs (query-plans.test.ts).
 * - The expired-owner and unattended branches of the needs-you / stale views read the newest ids of their
 *   runs: with `id` in the index they no longer look up the table row of every expired owner.
 */
import type { Migration } from './migration';

export const migration0004: Migration = {
  version: 4,
  name: '0004-owner-indexes',
  sql: `
DROP INDEX runs_owned;
DROP INDEX runs_project_owned;
DROP INDEX runs_owner_expiry_cover;
CREATE INDEX runs_owner_expiry_cover ON runs(owner_expires_at, project_id, display_base, id)
  WHERE owner_expires_at IS NOT NULL;
DROP INDEX runs_unattended_cover;
CREATE INDEX runs_unattended_cover ON runs(unattended_since, project_id, id) WHERE unattended_since IS NOT NULL;
`,
};
