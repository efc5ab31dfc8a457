/**
 * Schema v9: a question lives only while someone waits for it (docs/LIVENESS.md#questions-and-their-askers).
 * - The asking process: pid, start identity and the machine it ran on (host, boot id, pid namespace), so
 *   the sweeper and `answer` can tell that nobody waits any more. NULL (older rows, a runner that parks
 *   and exits instead of waiting) means nobody is recorded: the question lives until the run ends.
 * - `withdrawal`: why a cancelled question was withdrawn — its asker was interrupted, or is verifiably
 *   gone. The interaction's provenance reads it (the provenance column's CHECK cannot grow in place).
 */
import type { Migration } from './migration';

export const migration0009: Migration = {
  version: 9,
  name: '0009-question-askers',
  sql: `
ALTER TABLE interactions ADD COLUMN asker_pid INTEGER CHECK (asker_pid IS NULL OR asker_pid > 0);
ALTER TABLE interactions ADD COLUMN asker_start_id TEXT;
ALTER TABLE interactions ADD COLUMN asker_hostname TEXT;
ALTER TABLE interactions ADD COLUMN asker_boot_id TEXT;
ALTER TABLE interactions ADD COLUMN asker_pid_ns TEXT;
ALTER TABLE interactions ADD COLUMN withdrawal TEXT CHECK (withdrawal IN ('asker_interrupted', 'asker_gone'));
CREATE INDEX interactions_asked ON interactions(created_at)
  WHERE asker_pid IS NOT NULL AND status IN ('pending', 'presenting');
`,
};
