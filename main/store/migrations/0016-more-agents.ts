/**
 * Schema v16: sessions of Qwen Code, Gemini CLI and OpenCode are recorded as Claude Code's, Codex's and pi's
 * are (docs/AGENTS.md#sessions-as-runs). SQLite cannot widen a CHECK in place, so `agent_sessions` is made
 * again with the wider list and its rows copied over unchanged; nothing references it.
 */
import type { Migration } from './migration';

export const migration0016: Migration = {
  version: 16,
  name: '0016-more-agents',
  sql: `
CREATE TABLE agent_sessions_v16 (
  agent TEXT NOT NULL CHECK (agent IN ('claude-code', 'codex', 'pi', 'qwen-code', 'gemini', 'opencode')),
  session_id TEXT NOT NULL CHECK (length(session_id) BETWEEN 1 AND 300),
  run_id TEXT NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
  generation INTEGER NOT NULL CHECK (generation >= 0),
  claim_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (agent, session_id)
) STRICT;
INSERT INTO agent_sessions_v16 (agent, session_id, run_id, generation, claim_token, created_at)
  SELECT agent, session_id, run_id, generation, claim_token, created_at FROM agent_sessions;
DROP TABLE agent_sessions;
ALTER TABLE agent_sessions_v16 RENAME TO agent_sessions;
`,
};
