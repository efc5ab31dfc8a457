/** Row helpers for `interactions` (docs/ARCHITECTURE.md#where-each-behaviour-lives). */
import type { InteractionKind } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { resolveQuestionNotifications } from './notification-subjects';
import { OPEN_INTERACTION_SQL, type InteractionRow } from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';

export function findInteractionRow(ctx: ReadableDB, id: string): InteractionRow | undefined {
  return ctx.prep(`SELECT * FROM interactions WHERE id = ?`).get(id) as InteractionRow | undefined;
}

export function loadInteractionRow(ctx: ReadableDB, id: string): InteractionRow {
  const row = findInteractionRow(ctx, id);
  if (row === undefined) throw new RunwardenError('NOT_FOUND', `No interaction ${id} in this store.`);
  return row;
}

/** The status line `requestInteraction` gives a run while it waits; cleared when the question closes. */
export function waitingDetail(title: string): string {
  return `Waiting for an answer: ${title}`;
}

export function countOpenInteractions(ctx: ReadableDB, runId: string): number {
  return (
    ctx
      .prep(`SELECT count(*) AS n FROM interactions WHERE run_id = ? AND status IN ${OPEN_INTERACTION_SQL}`)
      .get(runId) as { n: number }
  ).n;
}

/** A question a run's ending cancelled, as its event tells it. */
export interface CancelledQuestion {
  id: string;
  kind: InteractionKind;
}

/**
 * Cancels the run's open questions (revision+1, presenter claim dropped). An undecided decision records
 * provenance `explicit_cancel`; an input keeps none (nobody decided anything). Every ending of a run — a
 * person's cancel, a runner's own cancel, complete, fail, time out — goes through here, in creation order.
 */
export function cancelOpenInteractions(ctx: WritableDB, runId: string, now: number): CancelledQuestion[] {
  // A question whose asker is verifiably gone was not cancelled by anybody: it says so (asker_gone).
  const gone = goneAskerQuestions(ctx, runId);
  const cancelled = ctx
    .prep(
      `UPDATE interactions SET status = 'cancelled', revision = revision + 1, settled_at = ?, presenter_id = NULL,
         presenter_expires_at = NULL,
         withdrawal = CASE WHEN id IN (SELECT value FROM json_each(?)) THEN 'asker_gone' ELSE withdrawal END,
         provenance = CASE WHEN kind = 'decision' AND id NOT IN (SELECT value FROM json_each(?)) THEN 'explicit_cancel'
           ELSE provenance END
       WHERE run_id = ? AND status IN ${OPEN_INTERACTION_SQL}
       RETURNING id, kind, title, created_at`,
    )
    .all(now, JSON.stringify(gone), JSON.stringify(gone), runId)
    .map((row) => row as CancelledQuestion & { title: string; created_at: number })
    .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  resolveQuestionNotifications(
    ctx,
    cancelled.map((q) => q.id),
    now,
  );
  // A finished run must not read "Waiting for an answer: …" (docs/LIVENESS.md#questions-and-their-askers).
  if (cancelled.length > 0) {
    ctx
      .prep(
        `UPDATE runs SET status_detail = NULL WHERE id = ? AND status_detail IN (SELECT value FROM json_each(?))`,
      )
      .run(runId, JSON.stringify(cancelled.map((q) => waitingDetail(q.title))));
  }
  return cancelled.map(({ id, kind }) => ({ id, kind }));
}

/** The run's open questions whose recorded asker is verifiably gone (docs/LIVENESS.md#questions-and-their-askers). */
export function goneAskerQuestions(ctx: ReadableDB, runId: string): string[] {
  const rows = ctx
    .prep(
      `SELECT id, asker_pid, asker_start_id, asker_hostname, asker_boot_id, asker_pid_ns FROM interactions
       WHERE run_id = ? AND asker_pid IS NOT NULL AND status IN ${OPEN_INTERACTION_SQL}`,
    )
    .all(runId) as Array<{
    id: string;
    asker_pid: number;
    asker_start_id: string | null;
    asker_hostname: string | null;
    asker_boot_id: string | null;
    asker_pid_ns: string | null;
  }>;
  return rows
    .filter(
      (row) =>
        ctx.liveness.judgeProcess({
          pid: row.asker_pid,
          startId: row.asker_start_id,
          hostname: row.asker_hostname,
          bootId: row.asker_boot_id,
          pidNs: row.asker_pid_ns,
        }) === 'gone',
    )
    .map((row) => row.id);
}

/**
 * What the ending's event says about the questions it cancelled: their ids, in order, under
 * `cancelledInteractions` (left out when there were none). The run's one event tells it; a question's
 * own row carries its cancelled status and provenance.
 */
export function cancelledQuestionsPayload(questions: readonly CancelledQuestion[]): {
  cancelledInteractions?: string[];
} {
  return questions.length === 0 ? {} : { cancelledInteractions: questions.map((q) => q.id) };
}
