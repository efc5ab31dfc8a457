/**
 * Schema v3: a trigram full-text index for run search (docs/PERFORMANCE.md). Substring search
 * (`instr(lower(title), …)`) walks every run when few match; the FTS5 `trigram` tokenizer
 * answers any substring of 3+ characters from the index. It only narrows the candidates: the list query
 * still applies the exact substring test, so results are those of the scan (run-views.ts).
 * - `run_search` is contentless (the text lives in `runs`) with delete support, keyed by
 *   `run_search_keys.key`: an INTEGER PRIMARY KEY, so VACUUM never renumbers it (the implicit rowid of
 *   `runs` carries no such promise).
 * - Triggers keep both in the writing transaction: insert, delete (pruning), and a title/workflow change.
 *   Heartbeats and status changes touch neither column, so they never fire these triggers.
 */
import type { Migration } from './migration';

export const migration0003: Migration = {
  version: 3,
  name: '0003-run-search',
  sql: `
CREATE TABLE run_search_keys (
  key INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL UNIQUE
) STRICT;
CREATE VIRTUAL TABLE run_search USING fts5(
  title, workflow, content = '', contentless_delete = 1, tokenize = 'trigram'
);
INSERT INTO run_search_keys (run_id) SELECT id FROM runs ORDER BY id;
INSERT INTO run_search (rowid, title, workflow)
  SELECT k.key, r.title, r.workflow FROM run_search_keys k JOIN runs r ON r.id = k.run_id;

CREATE TRIGGER run_search_insert AFTER INSERT ON runs
BEGIN
  INSERT INTO run_search_keys (run_id) VALUES (NEW.id);
  INSERT INTO run_search (rowid, title, workflow)
    VALUES ((SELECT key FROM run_search_keys WHERE run_id = NEW.id), NEW.title, NEW.workflow);
END;
CREATE TRIGGER run_search_delete AFTER DELETE ON runs
BEGIN
  DELETE FROM run_search WHERE rowid = (SELECT key FROM run_search_keys WHERE run_id = OLD.id);
  DELETE FROM run_search_keys WHERE run_id = OLD.id;
END;
CREATE TRIGGER run_search_update AFTER UPDATE OF id, title, workflow ON runs
  WHEN OLD.id != NEW.id OR OLD.title != NEW.title OR OLD.workflow != NEW.workflow
BEGIN
  DELETE FROM run_search WHERE rowid = (SELECT key FROM run_search_keys WHERE run_id = OLD.id);
  UPDATE run_search_keys SET run_id = NEW.id WHERE run_id = OLD.id;
  INSERT INTO run_search (rowid, title, workflow)
    VALUES ((SELECT key FROM run_search_keys WHERE run_id = NEW.id), NEW.title, NEW.workflow);
END;
`,
};
