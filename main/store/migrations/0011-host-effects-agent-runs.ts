/**
 * Schema v11:
 * - The sweeper's look at applying effects on this host (docs/LIVENESS.md#unknown-outcomes) is a seek, not
 *   a walk. Its query names the host and resumes after the last effect it looked at; the partial index of
 *   migration 0008 is keyed by run, so each tick read every applying effect's row to find this host's,
 *   including the many an older runner recorded with no process.
 * - A coding agent's session run is marked as such (`origin_session` 'agent:<agent>',
 *   docs/AGENTS.md#sessions-as-runs), so the window offers it no retry or cancel request; runs recorded
 *   before are marked from `agent_sessions`.
 */
import type { Migration } from './migration';

export const migration0011: Migration = {
  version: 11,
  name: '0011-host-effects-agent-runs',
  sql: `
CREATE INDEX effects_applying_on_host ON effects(process_hostname, id)
  WHERE status = 'applying' AND process_pid IS NOT NULL;
UPDATE runs SET origin_session = 'agent:' || a.agent FROM agent_sessions a WHERE runs.id = a.run_id;
`,
};
