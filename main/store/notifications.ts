/** Notifications the app shows (docs/ARCHITECTURE.md#change-feed). A notification does not change its run: no revision bump. */
import type { Actor, Notification, NotificationLevel } from '../../shared/domain';
import { NOTIFICATION_LEVELS } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { toNotification, type NotificationRow } from './row-mapping';
import { actorOf, appendEvent, loadRunRow } from './run-state';
import { optionalTextWithin, requireText } from './input-checks';
import type { ReadableDB, WritableDB } from './store-context';
import { linkNotification } from './notification-subjects';

export interface NotifyInput {
  level: NotificationLevel;
  title: string;
  body?: string;
  /** The question it announces (of the same run): it is resolved when the question closes. */
  interactionId?: string;
  /** The effects of unknown outcome it announces (of the same run): resolved when all are resolved. */
  effectIds?: readonly number[];
}

export function notify(
  ctx: WritableDB,
  runId: string | null,
  input: NotifyInput,
  actor: Actor,
  now: number,
): Notification {
  if (!NOTIFICATION_LEVELS.includes(input.level)) {
    throw new RunwardenError('VALIDATION', `level must be one of ${NOTIFICATION_LEVELS.join(', ')}.`);
  }
  requireText(input.title, 'title', 'title');
  optionalTextWithin(input.body, 'body', 'body');
  if (runId !== null) loadRunRow(ctx, runId);
  checkSubjects(ctx, runId, input);
  const result = ctx
    .prep(`INSERT INTO notifications (run_id, level, title, body, at) VALUES (?, ?, ?, ?, ?)`)
    .run(runId, input.level, input.title, input.body ?? '', now);
  const id = Number(result.lastInsertRowid);
  linkNotification(ctx, id, input, now);
  appendEvent(ctx, now, runId, null, {
    type: 'notification',
    actor: actorOf(actor),
    payload: { notificationId: id, level: input.level, title: input.title },
  });
  return toNotification(ctx.prep(`SELECT * FROM notifications WHERE id = ?`).get(id) as NotificationRow);
}

/** A notification's question and effects must be its run's: a clear error, nothing written, otherwise. */
function checkSubjects(ctx: WritableDB, runId: string | null, input: NotifyInput): void {
  const effects = input.effectIds ?? [];
  if (input.interactionId === undefined && effects.length === 0) return;
  if (runId === null) {
    throw new RunwardenError('VALIDATION', 'A notification about a question or an effect needs its run.');
  }
  if (input.interactionId !== undefined) {
    const found = ctx
      .prep(`SELECT 1 FROM interactions WHERE id = ? AND run_id = ?`)
      .get(input.interactionId, runId);
    if (found === undefined) {
      throw new RunwardenError('NOT_FOUND', `No interaction ${input.interactionId} in run ${runId}.`);
    }
  }
  if (!effects.every((id) => Number.isSafeInteger(id) && id > 0)) {
    throw new RunwardenError('VALIDATION', 'effect ids must be positive integers.');
  }
  const mine = ctx
    .prep(`SELECT count(*) FROM effects WHERE run_id = ? AND id IN (SELECT value FROM json_each(?))`)
    .pluck()
    .get(runId, JSON.stringify([...new Set(effects)])) as number;
  if (mine !== new Set(effects).size) {
    throw new RunwardenError('NOT_FOUND', `Not every effect of ${effects.join(', ')} is in run ${runId}.`);
  }
}

export function listNotifications(
  ctx: ReadableDB,
  q: { unreadOnly?: boolean; limit: number; before?: number },
): Notification[] {
  const before = q.before ?? Number.MAX_SAFE_INTEGER;
  const sql =
    q.unreadOnly === true
      ? `SELECT * FROM notifications WHERE read_at IS NULL AND id < ? ORDER BY id DESC LIMIT ?`
      : `SELECT * FROM notifications WHERE id < ? ORDER BY id DESC LIMIT ?`;
  return (ctx.prep(sql).all(before, q.limit) as NotificationRow[]).map(toNotification);
}

export function markRunNotificationsRead(ctx: WritableDB, runId: string, now: number): number {
  return ctx.prep(`UPDATE notifications SET read_at = ? WHERE read_at IS NULL AND run_id = ?`).run(now, runId)
    .changes;
}

export function markNotificationsRead(ctx: WritableDB, ids: number[] | 'all', now: number): number {
  if (ids === 'all') {
    return ctx.prep(`UPDATE notifications SET read_at = ? WHERE read_at IS NULL`).run(now).changes;
  }
  return ctx
    .prep(
      `UPDATE notifications SET read_at = ? WHERE read_at IS NULL AND id IN (SELECT value FROM json_each(?))`,
    )
    .run(now, JSON.stringify(ids)).changes;
}
