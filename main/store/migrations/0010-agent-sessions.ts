/**
 * Schema v10: coding-agent sessions as
 * runs (docs/AGENTS.md#sessions-as-runs). One row per agent session: the run it is shown as, and the claim
 * that run is held under. An agent session has no supervisor process to keep its claim in memory between
 * hook calls, so the claim's token is kept here; every hook call is first checked against the agent's
 * process identity recorded on the lease (docs/AGENTS.md#the-claim-of-a-session).
 */
import type { Migration } from './migration';

export const migration0010: Migration = {
  version: 10,
  name: '0010-agent-sessions',
  sql: `
CREATE TABLE agent_sessions (
  agent TEXT NOT NULL CHECK (agent IN ('claude-code', 'codex', 'pi')),
  session_id TEXT NOT NULL CHECK (length(session_id) BETWEEN 1 AND 300),
  run_id TEXT NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
  generation INTEGER NOT NULL CHECK (generation >= 0),
  claim_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (agent, session_id)
) STRICT;
`,
};
