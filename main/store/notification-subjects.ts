/**
 * A notification lives exactly as long as what it announces (docs/ARCHITECTURE.md#change-feed): every
 * transaction that closes a question (answer, withdrawal, deadline, a run's ending) or resolves an effect of
 * unknown outcome marks the notifications announcing it resolved, and read, in the same commit.
 */
import { OPEN_INTERACTION_SQL } from './row-mapping';
import type { WritableDB } from './store-context';

/** How the question `i` ended, in a notification's words (NotificationResolution). */
const RESOLUTION_OF_QUESTION = `CASE
  WHEN i.status = 'settled' AND i.provenance = 'human' THEN 'answered'
  WHEN i.status IN ('settled', 'expired') THEN 'expired'
  WHEN i.withdrawal IS NOT NULL THEN 'withdrawn'
  ELSE 'cancelled' END`;

/**
 * Resolves the unresolved notifications of these questions that are no longer open, with the words of how
 * each ended. Returns how many.
 */
export function resolveQuestionNotifications(
  ctx: WritableDB,
  interactionIds: readonly string[],
  now: number,
): number {
  if (interactionIds.length === 0) return 0;
  return ctx
    .prep(
      `UPDATE notifications SET resolved_at = @now, read_at = coalesce(read_at, @now),
         resolution = (SELECT ${RESOLUTION_OF_QUESTION} FROM interactions i WHERE i.id = notifications.interaction_id)
       WHERE interaction_id IN (SELECT value FROM json_each(@ids)) AND resolved_at IS NULL
         AND interaction_id IN (SELECT id FROM interactions WHERE id IN (SELECT value FROM json_each(@ids))
           AND status NOT IN ${OPEN_INTERACTION_SQL})`,
    )
    .run({ ids: JSON.stringify(interactionIds), now }).changes;
}

/** None of the notification's effects is still of unknown outcome. */
const NO_EFFECT_LEFT = `NOT EXISTS (SELECT 1 FROM notification_effects ne JOIN effects e ON e.id = ne.effect_id
  WHERE ne.notification_id = notifications.id AND e.status = 'ambiguous')`;

/** Resolves the notifications announcing this effect whose effects are all resolved now. Returns how many. */
export function resolveEffectNotifications(ctx: WritableDB, effectId: number, now: number): number {
  return ctx
    .prep(
      `UPDATE notifications SET resolved_at = @now, read_at = coalesce(read_at, @now), resolution = 'resolved'
       WHERE resolved_at IS NULL
         AND id IN (SELECT notification_id FROM notification_effects WHERE effect_id = @effectId)
         AND ${NO_EFFECT_LEFT}`,
    )
    .run({ effectId, now }).changes;
}

/**
 * Links a new notification to what it announces; one whose question or effects already ended (answered
 * before the host got to announce it) is resolved at once.
 */
export function linkNotification(
  ctx: WritableDB,
  notificationId: number,
  subjects: { interactionId?: string; effectIds?: readonly number[] },
  now: number,
): void {
  if (subjects.interactionId !== undefined) {
    ctx
      .prep(`UPDATE notifications SET interaction_id = ? WHERE id = ?`)
      .run(subjects.interactionId, notificationId);
    resolveQuestionNotifications(ctx, [subjects.interactionId], now);
  }
  const effects = subjects.effectIds ?? [];
  if (effects.length === 0) return;
  ctx
    .prep(
      `INSERT OR IGNORE INTO notification_effects (notification_id, effect_id)
       SELECT ?, value FROM json_each(?)`,
    )
    .run(notificationId, JSON.stringify(effects));
  ctx
    .prep(
      `UPDATE notifications SET resolved_at = @now, read_at = coalesce(read_at, @now), resolution = 'resolved'
       WHERE id = @id AND resolved_at IS NULL AND ${NO_EFFECT_LEFT}`,
    )
    .run({ id: notificationId, now });
}
