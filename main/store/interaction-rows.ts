/** Row helpers for `interactions` (docs/ARCHITECTURE.md#where-each-behaviour-lives). */
import type { InteractionKind } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { OPEN_INTERACTION_SQL, type InteractionRow } from './row-mapping';
import type { StoreContext } from './store-context';

export function findInteractionRow(ctx: StoreContext, id: string): InteractionRow | undefined {
  return ctx.prep(`SELECT * FROM interactions WHERE id = ?`).get(id) as InteractionRow | undefined;
}

export function loadInteractionRow(ctx: StoreContext, id: string): InteractionRow {
  const row = findInteractionRow(ctx, id);
  if (row === undefined) throw new RunwardenError('NOT_FOUND', `No interaction ${id} in this store.`);
  return row;
}

/** The status line `requestInteraction` gives a run while it waits; cleared when the question closes. */
export function waitingDetail(title: string): string {
  return `Waiting for an answer: ${title}`;
}

export function countOpenInteractions(ctx: StoreContext, runId: string): number {
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
export function cancelOpenInteractions(ctx: StoreContext, runId: string, now: number): CancelledQuestion[] {
  const cancelled = ctx
    .prep(
      `UPDATE interactions SET status = 'cancelled', revision = revision + 1, settled_at = ?, presenter_id = NULL,
         presenter_expires_at = NULL, provenance = CASE WHEN kind = 'decision' THEN 'explicit_cancel' ELSE provenance END
       WHERE run_id = ? AND status IN ${OPEN_INTERACTION_SQL}
       RETURNING id, kind, title, created_at`,
    )
    .all(now, runId)
    .map((row) => row as CancelledQuestion & { title: string; created_at: number })
    .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
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
