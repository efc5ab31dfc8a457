/**
 * Schema v1 (docs/ARCHITECTURE.md#run-model-and-state-machine). STRICT tables, snake_case, NOT NULL wherever a value always exists.
 * Denormalised columns on `runs` (display_base, needs_you_static, owner_expires_at, unattended_since,
 * open_interactions, ambiguous_effects) are rewritten by `refreshRun` in the same transaction as every
 * change, so the list views are indexed SQL that agrees with `displayStatus()` (docs/ARCHITECTURE.md#display-status-and-views).
 */
import type { Migration } from './migration';

const RUN_STATUS = `'queued','running','waiting','completed','failed','timed_out','cancelled'`;
const QUEUE_STATUS = `'queued','starting','running','parked','done','failed','cancelled'`;
const QUEUE_ERROR = `'sourceChanged','effectAmbiguous','paused','runnerExited','interactionExpired','cancelled','failed','timedOut'`;
const DISPLAY = `'needs-answer','stale','ambiguous','parked','paused','running','waiting','queued','failed','timed_out','cancelled','completed'`;
const ACTOR = `'runner','host','control','human','policy','system'`;
const SURFACE = `'app','tray','cli','browser','sweeper','sdk'`;
const BOOL = (column: string): string => `${column} INTEGER NOT NULL DEFAULT 0 CHECK (${column} IN (0, 1))`;

export const migration0001: Migration = {
  version: 1,
  name: '0001-initial',
  sql: `
CREATE TABLE projects (
  id INTEGER PRIMARY KEY,
  canonical_path TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE runs (
  id TEXT NOT NULL PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  workflow TEXT NOT NULL,
  title TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN (${RUN_STATUS})),
  ${BOOL('paused')},
  status_detail TEXT,
  execution_mode TEXT NOT NULL CHECK (execution_mode IN ('interactive', 'headless')),
  origin_session TEXT,
  parent_run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
  lineage TEXT CHECK (lineage IN ('retry', 'continuation')),
  input_json TEXT NOT NULL,
  output_json TEXT NOT NULL,
  error TEXT,
  command_json TEXT,
  request_key TEXT UNIQUE,
  ${BOOL('cancel_requested')},
  ${BOOL('pause_requested')},
  current_step TEXT,
  revision INTEGER NOT NULL CHECK (revision >= 0),
  open_interactions INTEGER NOT NULL DEFAULT 0 CHECK (open_interactions >= 0),
  ambiguous_effects INTEGER NOT NULL DEFAULT 0 CHECK (ambiguous_effects >= 0),
  display_base TEXT NOT NULL CHECK (display_base IN (${DISPLAY})),
  ${BOOL('needs_you_static')},
  owner_expires_at INTEGER,
  unattended_since INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
) STRICT;
CREATE INDEX runs_project ON runs(project_id, id);
CREATE INDEX runs_display ON runs(display_base, id);
CREATE INDEX runs_project_display ON runs(project_id, display_base, owner_expires_at);
CREATE INDEX runs_project_display_id ON runs(project_id, display_base, id);
CREATE INDEX runs_needs_you ON runs(id) WHERE needs_you_static = 1;
CREATE INDEX runs_project_needs_you ON runs(project_id, id) WHERE needs_you_static = 1;
CREATE INDEX runs_project_owned ON runs(project_id, id) WHERE owner_expires_at IS NOT NULL;
CREATE INDEX runs_project_unattended ON runs(project_id, id) WHERE unattended_since IS NOT NULL;
CREATE INDEX runs_owner_expiry ON runs(owner_expires_at) WHERE owner_expires_at IS NOT NULL;
CREATE INDEX runs_owned ON runs(id) WHERE owner_expires_at IS NOT NULL;
CREATE INDEX runs_unattended ON runs(unattended_since) WHERE unattended_since IS NOT NULL;
CREATE INDEX runs_unattended_id ON runs(id) WHERE unattended_since IS NOT NULL;
CREATE INDEX runs_finished ON runs(finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX runs_parent ON runs(parent_run_id) WHERE parent_run_id IS NOT NULL;

CREATE TABLE queue_entries (
  run_id TEXT NOT NULL PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN (${QUEUE_STATUS})),
  available_at INTEGER NOT NULL,
  error_code TEXT CHECK (error_code IN (${QUEUE_ERROR})),
  error_detail TEXT,
  consecutive_errors INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_errors >= 0),
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX queue_claimable ON queue_entries(available_at, run_id) WHERE status IN ('queued', 'parked');

-- One lease per run (name 'run:<id>') plus the host lease (name 'host', run_id NULL).
-- The owner columns are all NULL (ownerless) or all set (owner_start_id may be NULL: not every platform has one).
CREATE TABLE leases (
  name TEXT NOT NULL PRIMARY KEY,
  run_id TEXT UNIQUE REFERENCES runs(id) ON DELETE CASCADE,
  generation INTEGER NOT NULL DEFAULT 0 CHECK (generation >= 0),
  owner_type TEXT CHECK (owner_type IN ('runner', 'host', 'control')),
  owner_id TEXT,
  token_hash TEXT,
  owner_pid INTEGER,
  owner_hostname TEXT,
  owner_start_id TEXT,
  acquired_at INTEGER,
  heartbeat_at INTEGER,
  expires_at INTEGER,
  -- The generation whose loss the sweeper already recorded (run.runner_lost once per generation).
  lost_generation INTEGER,
  CHECK (
    (owner_type IS NULL AND owner_id IS NULL AND token_hash IS NULL AND owner_pid IS NULL AND owner_hostname IS NULL
      AND owner_start_id IS NULL AND acquired_at IS NULL AND heartbeat_at IS NULL AND expires_at IS NULL)
    OR
    (owner_type IS NOT NULL AND owner_id IS NOT NULL AND token_hash IS NOT NULL AND owner_pid IS NOT NULL
      AND owner_hostname IS NOT NULL AND acquired_at IS NOT NULL AND heartbeat_at IS NOT NULL AND expires_at IS NOT NULL)
  ),
  CHECK ((name = 'host') = (run_id IS NULL))
) STRICT;
CREATE INDEX leases_expiry ON leases(expires_at) WHERE owner_type IS NOT NULL AND run_id IS NOT NULL;
CREATE INDEX leases_unnoticed_expiry ON leases(expires_at)
  WHERE owner_type IS NOT NULL AND run_id IS NOT NULL AND (lost_generation IS NULL OR lost_generation != generation);
CREATE INDEX leases_host ON leases(owner_hostname, expires_at) WHERE owner_type IS NOT NULL AND run_id IS NOT NULL;
INSERT INTO leases (name, run_id, generation) VALUES ('host', NULL, 0);

-- Append-only (trigger below). AUTOINCREMENT: a pruned tail never lets a sequence number be reused,
-- so change-feed cursors stay valid.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT,
  run_revision INTEGER,
  type TEXT NOT NULL,
  actor_type TEXT NOT NULL CHECK (actor_type IN (${ACTOR})),
  actor_id TEXT,
  surface TEXT CHECK (surface IN (${SURFACE})),
  lease_generation INTEGER,
  payload_json TEXT NOT NULL,
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX events_run ON events(run_id, seq) WHERE run_id IS NOT NULL;
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
BEGIN
  SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TABLE attempts (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  number INTEGER NOT NULL CHECK (number >= 1),
  status TEXT NOT NULL CHECK (status IN ('pending','running','waiting','interrupted','completed','failed','timed_out','cancelled')),
  deadline_at INTEGER,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  error TEXT,
  UNIQUE (run_id, step, number)
) STRICT;
CREATE INDEX attempts_run ON attempts(run_id, id);
-- At most one active attempt per run, enforced by the schema itself.
CREATE UNIQUE INDEX attempts_one_active ON attempts(run_id) WHERE status IN ('pending', 'running', 'waiting');

CREATE TABLE interactions (
  id TEXT NOT NULL PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  attempt_id INTEGER REFERENCES attempts(id) ON DELETE SET NULL,
  kind TEXT NOT NULL CHECK (kind IN ('decision', 'input')),
  title TEXT NOT NULL,
  prompt TEXT NOT NULL,
  choices_json TEXT,
  fields_json TEXT,
  default_json TEXT NOT NULL,
  ${BOOL('has_default')},
  deadline_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('pending', 'presenting', 'settled', 'cancelled', 'expired')),
  revision INTEGER NOT NULL CHECK (revision >= 1),
  presenter_id TEXT,
  presenter_expires_at INTEGER,
  response_json TEXT NOT NULL,
  provenance TEXT CHECK (provenance IN ('human', 'timeout_policy', 'explicit_cancel', 'expired_no_default')),
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  CHECK ((presenter_id IS NULL) = (presenter_expires_at IS NULL))
) STRICT;
CREATE INDEX interactions_run ON interactions(run_id, created_at);
CREATE INDEX interactions_open ON interactions(run_id) WHERE status IN ('pending', 'presenting');
CREATE INDEX interactions_deadline ON interactions(deadline_at)
  WHERE status IN ('pending', 'presenting') AND deadline_at IS NOT NULL;
CREATE INDEX interactions_presenter ON interactions(presenter_expires_at) WHERE status = 'presenting';

CREATE TABLE submissions (
  id INTEGER PRIMARY KEY,
  interaction_id TEXT NOT NULL REFERENCES interactions(id) ON DELETE CASCADE,
  idempotency_key TEXT NOT NULL,
  interaction_revision INTEGER NOT NULL,
  payload_json TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'rejected', 'adopted')),
  reason TEXT,
  actor_id TEXT,
  surface TEXT NOT NULL CHECK (surface IN (${SURFACE})),
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX submissions_key ON submissions(interaction_id, idempotency_key);

CREATE TABLE effects (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  attempt_id INTEGER REFERENCES attempts(id) ON DELETE SET NULL,
  type TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  summary TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'applying', 'applied', 'rejected', 'ambiguous', 'cancelled')),
  attempt_count INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  resolution TEXT CHECK (resolution IN ('applied', 'not_applied')),
  resolution_note TEXT,
  resolved_by TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (run_id, idempotency_key)
) STRICT;
CREATE INDEX effects_run_status ON effects(run_id, status);

CREATE TABLE notifications (
  id INTEGER PRIMARY KEY,
  run_id TEXT REFERENCES runs(id) ON DELETE SET NULL,
  level TEXT NOT NULL CHECK (level IN ('info', 'attention', 'success', 'failure')),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  at INTEGER NOT NULL,
  read_at INTEGER
) STRICT;
CREATE INDEX notifications_unread ON notifications(id) WHERE read_at IS NULL;
CREATE INDEX notifications_run ON notifications(run_id) WHERE run_id IS NOT NULL;

CREATE TABLE settings (
  key TEXT NOT NULL PRIMARY KEY,
  value_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
`,
};
