/**
 * Schema v8: effects never left applying (docs/LIVENESS.md#unknown-outcomes).
 * - The process performing an applying effect (`runwarden effect -- CMD`, or the program that called
 *   `effect begin`): pid, start identity, host, boot id and pid namespace, so its supervisor or the sweeper
 *   can tell it died mid-command and make the effect ambiguous at once. NULL for effects begun before.
 * - Every effect a finished run left applying (an older version let a run end so) becomes ambiguous: its
 *   run shows under Needs you, and is not retried, until a person says whether it happened. Each such run
 *   gets one event saying why, and its view columns move as `commitRun` would move them.
 */
import type { Migration } from './migration';

const TERMINAL = `('completed', 'failed', 'timed_out', 'cancelled')`;
const NOW_MS = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;

export const migration0008: Migration = {
  version: 8,
  name: '0008-effect-processes',
  changes: {
    sql: `SELECT count(*) FROM effects e JOIN runs r ON r.id = e.run_id
      WHERE e.status = 'applying' AND r.status IN ${TERMINAL}`,
    says: 'effect(s) that finished runs had left applying made ambiguous (resolve them: runwarden ls --needs-you)',
  },
  sql: `
ALTER TABLE effects ADD COLUMN process_pid INTEGER;
ALTER TABLE effects ADD COLUMN process_start_id TEXT;
ALTER TABLE effects ADD COLUMN process_hostname TEXT;
ALTER TABLE effects ADD COLUMN process_boot_id TEXT;
ALTER TABLE effects ADD COLUMN process_pid_ns TEXT;
CREATE INDEX effects_applying ON effects(run_id) WHERE status = 'applying';

CREATE TEMP TABLE effects_left_applying AS
  SELECT e.run_id, json_group_array(e.id) AS ids, count(*) AS n FROM effects e JOIN runs r ON r.id = e.run_id
  WHERE e.status = 'applying' AND r.status IN ${TERMINAL}
  GROUP BY e.run_id;

UPDATE effects SET status = 'ambiguous', updated_at = ${NOW_MS}
  WHERE status = 'applying' AND run_id IN (SELECT run_id FROM effects_left_applying);

UPDATE runs SET revision = revision + 1, updated_at = ${NOW_MS}, display_base = 'ambiguous',
    needs_you_static = 1, owner_expires_at = NULL, unattended_since = NULL,
    ambiguous_effects = (SELECT count(*) FROM effects e WHERE e.run_id = runs.id AND e.status = 'ambiguous')
  WHERE id IN (SELECT run_id FROM effects_left_applying);

INSERT INTO events (run_id, run_revision, type, actor_type, actor_id, surface, lease_generation, payload_json, at)
  SELECT l.run_id, r.revision, 'effect.ambiguous', 'system', NULL, NULL, NULL,
    json_object('effectId', json_extract(l.ids, '$[0]'), 'ambiguousEffects', json(l.ids),
      'reason', CASE WHEN l.n = 1 THEN 'An effect was' ELSE l.n || ' effects were' END
        || ' still applying when the run ended: nobody knows whether it happened, so a person must say.'),
    ${NOW_MS}
  FROM effects_left_applying l JOIN runs r ON r.id = l.run_id;

DROP TABLE effects_left_applying;
`,
};
