/**
 * Row helpers for `attempts`: every statement a transition runs on a run's attempts, once
 * (docs/ARCHITECTURE.md#where-each-behaviour-lives). At most one attempt per run is active; a unique partial
 * index over ACTIVE_ATTEMPT_SQL enforces it as well.
 */
import type { Attempt, AttemptStatus } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { ACTIVE_ATTEMPT_SQL, toAttempt, type AttemptRow } from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';

export function activeAttempt(ctx: WritableDB, runId: string): AttemptRow | undefined {
  return ctx
    .prep(`SELECT * FROM attempts WHERE run_id = ? AND status IN ${ACTIVE_ATTEMPT_SQL}`)
    .get(runId) as AttemptRow | undefined;
}

export function getAttempt(ctx: WritableDB, attemptId: number): AttemptRow {
  const row = ctx.prep(`SELECT * FROM attempts WHERE id = ?`).get(attemptId) as AttemptRow | undefined;
  if (row === undefined) throw new RunwardenError('NOT_FOUND', `No attempt ${attemptId} in this store.`);
  return row;
}

export function listAttempts(ctx: ReadableDB, runId: string): Attempt[] {
  return (ctx.prep(`SELECT * FROM attempts WHERE run_id = ? ORDER BY id`).all(runId) as AttemptRow[]).map(
    toAttempt,
  );
}

/** Ends the run's active attempt (if any) as `status`; the owner that ran it is gone or done. */
export function endActiveAttempts(
  ctx: WritableDB,
  runId: string,
  status: Exclude<AttemptStatus, 'pending' | 'running' | 'waiting'>,
  now: number,
): number {
  return ctx
    .prep(
      `UPDATE attempts SET status = ?, finished_at = ? WHERE run_id = ? AND status IN ${ACTIVE_ATTEMPT_SQL}`,
    )
    .run(status, now, runId).changes;
}

/** The run's active attempt stops mid-way (a new owner, a park, a release): it is interrupted, not failed. */
export function interruptActiveAttempts(ctx: WritableDB, runId: string, now: number): number {
  return endActiveAttempts(ctx, runId, 'interrupted', now);
}

/**
 * The cancel cascade's first step: an active attempt with an effect still applying is interrupted (what it
 * did is unknown), not cancelled. Returns how many.
 */
export function interruptAttemptsWithApplyingEffects(ctx: WritableDB, runId: string, now: number): number {
  return ctx
    .prep(`UPDATE attempts SET status = 'interrupted', finished_at = ? WHERE ${APPLYING_ATTEMPTS_WHERE}`)
    .run(now, runId, runId).changes;
}

/** How many attempts `interruptAttemptsWithApplyingEffects` would interrupt now (the cancel preview). */
export function countAttemptsWithApplyingEffects(ctx: ReadableDB, runId: string): number {
  return (
    ctx.prep(`SELECT count(*) AS n FROM attempts WHERE ${APPLYING_ATTEMPTS_WHERE}`).get(runId, runId) as {
      n: number;
    }
  ).n;
}

export function countActiveAttempts(ctx: ReadableDB, runId: string): number {
  return (
    ctx
      .prep(`SELECT count(*) AS n FROM attempts WHERE run_id = ? AND status IN ${ACTIVE_ATTEMPT_SQL}`)
      .get(runId) as { n: number }
  ).n;
}

const APPLYING_ATTEMPTS_WHERE = `run_id = ? AND status IN ${ACTIVE_ATTEMPT_SQL}
  AND id IN (SELECT attempt_id FROM effects WHERE run_id = ? AND status = 'applying' AND attempt_id IS NOT NULL)`;

/** The running attempt waits (for an answer, or for a person to resolve an effect). */
export function holdActiveAttempts(ctx: WritableDB, runId: string): void {
  ctx
    .prep(`UPDATE attempts SET status = 'waiting' WHERE run_id = ? AND status IN ('pending', 'running')`)
    .run(runId);
}

/** The waiting attempt carries on (its questions are answered). */
export function resumeWaitingAttempts(ctx: WritableDB, runId: string): void {
  ctx.prep(`UPDATE attempts SET status = 'running' WHERE run_id = ? AND status = 'waiting'`).run(runId);
}
