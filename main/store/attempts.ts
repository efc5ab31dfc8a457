/** Attempt (step) transitions of a runner; the row helpers are in attempt-rows.ts. */
import { ACTIVE_ATTEMPT_STATUSES, type Attempt } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { activeAttempt, getAttempt } from './attempt-rows';
import { toAttempt } from './row-mapping';
import { commitRun, conflict, fence, runnerActor, type ClaimRef } from './run-state';
import { requireText } from './input-checks';
import type { WritableDB } from './store-context';

const FINISH_STATUSES = ['completed', 'failed', 'timed_out', 'cancelled'] as const;
export type AttemptEnding = (typeof FINISH_STATUSES)[number];

export function startAttempt(
  ctx: WritableDB,
  claim: ClaimRef,
  step: string,
  opts: { deadlineAt?: number },
  now: number,
): Attempt {
  requireText(step, 'step', 'name');
  const lease = fence(ctx, claim, now);
  const active = activeAttempt(ctx, claim.runId);
  if (active !== undefined) {
    throw conflict(
      ctx,
      claim.runId,
      `Run ${claim.runId} already has an active attempt (${active.step} #${active.number}); finish it first.`,
    );
  }
  const last = ctx
    .prep(`SELECT COALESCE(MAX(number), 0) AS n FROM attempts WHERE run_id = ? AND step = ?`)
    .get(claim.runId, step) as { n: number };
  const result = ctx
    .prep(
      `INSERT INTO attempts (run_id, step, number, status, deadline_at, started_at) VALUES (?, ?, ?, 'running', ?, ?)`,
    )
    .run(claim.runId, step, last.n + 1, opts.deadlineAt ?? null, now);
  const id = Number(result.lastInsertRowid);
  ctx.prep(`UPDATE runs SET current_step = ? WHERE id = ?`).run(step, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'attempt.started',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { attemptId: id, step, number: last.n + 1 },
  });
  return toAttempt(getAttempt(ctx, id));
}

export function finishAttempt(
  ctx: WritableDB,
  claim: ClaimRef,
  attemptId: number,
  status: AttemptEnding,
  error: string | undefined,
  now: number,
): Attempt {
  if (!FINISH_STATUSES.includes(status)) {
    throw new RunwardenError('VALIDATION', `An attempt finishes as one of ${FINISH_STATUSES.join(', ')}.`);
  }
  const lease = fence(ctx, claim, now);
  const attempt = getAttempt(ctx, attemptId);
  if (attempt.run_id !== claim.runId) {
    throw new RunwardenError('NOT_FOUND', `Attempt ${attemptId} does not belong to run ${claim.runId}.`);
  }
  if (!ACTIVE_ATTEMPT_STATUSES.includes(attempt.status)) {
    throw conflict(ctx, claim.runId, `Attempt ${attemptId} is already ${attempt.status}.`);
  }
  ctx
    .prep(`UPDATE attempts SET status = ?, finished_at = ?, error = ? WHERE id = ?`)
    .run(status, now, error ?? null, attemptId);
  commitRun(ctx, claim.runId, now, {
    type: 'attempt.finished',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { attemptId, status, error: error ?? null },
  });
  return toAttempt(getAttempt(ctx, attemptId));
}
