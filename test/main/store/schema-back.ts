/**
 * Takes a store made by this version back to the schema of an older one, for the migration tests that
 * start from a store made now and then undo their own migration: each migration after it is undone first,
 * newest first, so the whole chain runs again on open. A migration that changes the schema adds its undo
 * here.
 */
import type Database from 'better-sqlite3';
import { SUPPORTED_SCHEMA_VERSION } from '../../../main/store/migrations';

const UNDO: Readonly<Record<number, string>> = {
  17: `DROP TABLE notification_effects; DROP INDEX notifications_interaction;
    ALTER TABLE notifications DROP COLUMN resolution; ALTER TABLE notifications DROP COLUMN resolved_at;
    ALTER TABLE notifications DROP COLUMN interaction_id;`,
  16: `CREATE TABLE agent_sessions_v10 (
      agent TEXT NOT NULL CHECK (agent IN ('claude-code', 'codex', 'pi')),
      session_id TEXT NOT NULL CHECK (length(session_id) BETWEEN 1 AND 300),
      run_id TEXT NOT NULL UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
      generation INTEGER NOT NULL CHECK (generation >= 0),
      claim_token TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (agent, session_id)
    ) STRICT;
    INSERT INTO agent_sessions_v10 SELECT * FROM agent_sessions WHERE agent IN ('claude-code', 'codex', 'pi');
    DROP TABLE agent_sessions;
    ALTER TABLE agent_sessions_v10 RENAME TO agent_sessions;`,
  15: `DROP INDEX runs_enclosing; ALTER TABLE runs DROP COLUMN enclosing_run_id;`,
  14: `ALTER TABLE effects DROP COLUMN performer;`,
  13: `UPDATE runs SET request_key = project_request_key WHERE project_request_key IS NOT NULL;
    DROP INDEX runs_project_request_key;
    ALTER TABLE runs DROP COLUMN project_request_key;`,
};

/** The schema as migration `version` left it (its own undo is the caller's), user_version set to it. */
export function schemaBackTo(db: Database.Database, version: number): void {
  for (let v = SUPPORTED_SCHEMA_VERSION; v > version; v -= 1) {
    const undo = UNDO[v];
    if (undo === undefined) throw new Error(`no undo for migration ${v}: add it to schema-back.ts`);
    db.exec(undo);
  }
  db.pragma(`user_version = ${version}`);
}
