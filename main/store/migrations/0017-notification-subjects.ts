/**
 * Schema v17: a notification lives as long as what it announces (docs/ARCHITECTURE.md#change-feed).
 * - `interaction_id`: the question a "Needs an answer" notification announces.
 * - `notification_effects`: the effects of unknown outcome a notification announces (a run that ended, was
 *   parked or lost its runner with an effect still applying).
 * - `resolved_at` / `resolution`: set in the transaction that answers, withdraws, expires or cancels the
 *   question (answered, withdrawn, expired, cancelled), or that resolves the last of its effects (resolved);
 *   a resolved notification is read too.
 * Notifications made before are linked where their words say which question: a "Needs an answer" one to the
 * latest question of its run asked before it (the one of the same title first); those whose question is no
 * longer open are resolved as it ended.
 */
import type { Migration } from './migration';

/** The notification's question: the latest of its run asked before it, the one its title names first. */
const QUESTION_OF = `(SELECT i.id FROM interactions i
    WHERE i.run_id = notifications.run_id AND i.created_at <= notifications.at
    ORDER BY ('Needs an answer: ' || i.title = notifications.title) DESC, i.created_at DESC, i.id DESC LIMIT 1)`;

export const migration0017: Migration = {
  version: 17,
  name: '0017-notification-subjects',
  changes: {
    sql: `SELECT count(*) FROM notifications n JOIN interactions i ON i.run_id = n.run_id
      WHERE n.level = 'attention' AND n.title LIKE 'Needs an answer%' AND n.read_at IS NULL
        AND i.status NOT IN ('pending', 'presenting') AND i.created_at <= n.at
        AND i.id = (SELECT j.id FROM interactions j WHERE j.run_id = n.run_id AND j.created_at <= n.at
          ORDER BY ('Needs an answer: ' || j.title = n.title) DESC, j.created_at DESC, j.id DESC LIMIT 1)`,
    says: 'unread notification(s) of questions no longer open marked resolved',
  },
  sql: `
ALTER TABLE notifications ADD COLUMN interaction_id TEXT REFERENCES interactions(id) ON DELETE SET NULL;
ALTER TABLE notifications ADD COLUMN resolved_at INTEGER;
ALTER TABLE notifications ADD COLUMN resolution TEXT
  CHECK (resolution IS NULL OR resolution IN ('answered', 'withdrawn', 'expired', 'cancelled', 'resolved'));
CREATE INDEX notifications_interaction ON notifications(interaction_id) WHERE interaction_id IS NOT NULL;

CREATE TABLE notification_effects (
  notification_id INTEGER NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
  effect_id INTEGER NOT NULL REFERENCES effects(id) ON DELETE CASCADE,
  PRIMARY KEY (notification_id, effect_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX notification_effects_effect ON notification_effects(effect_id);

UPDATE notifications SET interaction_id = ${QUESTION_OF}
  WHERE run_id IS NOT NULL AND level = 'attention' AND title LIKE 'Needs an answer%';

UPDATE notifications SET
    resolution = (SELECT CASE
        WHEN i.status = 'settled' AND i.provenance = 'human' THEN 'answered'
        WHEN i.status IN ('settled', 'expired') THEN 'expired'
        WHEN i.withdrawal IS NOT NULL THEN 'withdrawn'
        ELSE 'cancelled' END
      FROM interactions i WHERE i.id = notifications.interaction_id),
    resolved_at = (SELECT coalesce(i.settled_at, i.created_at) FROM interactions i
      WHERE i.id = notifications.interaction_id)
  WHERE interaction_id IN (SELECT id FROM interactions WHERE status NOT IN ('pending', 'presenting'));
UPDATE notifications SET read_at = resolved_at WHERE resolved_at IS NOT NULL AND read_at IS NULL;
`,
};
