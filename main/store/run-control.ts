/**
 * Person-side commands (SPEC §3, §4): every one is compare-and-set on the run revision, refuses a live
 * owner, and records the actor and surface. Plus the stale-cancel cascade, which a runner answering a
 * cancel request also uses.
 */
import os from 'node:os';
import type { Actor, Run } from '../../shared/domain';
import { displayStatus, hasLiveOwner } from '../../shared/display-status';
import { RunwardenError } from '../../shared/errors';
import { hashToken, newToken } from './ids';
import { toLease, toRun } from './rows';
import {
  actorOf,
  checkRevision,
  commitRun,
  conflict,
  fence,
  loadDisplaySnapshot,
  loadLeaseRow,
  loadQueueRow,
  loadRunRow,
  refuseLiveOwner,
  refuseTerminal,
  releaseLease,
  runnerActor,
  type ClaimRef,
  type EventActor,
} from './run-state';
import { insertRun } from './runs';
import type { CancelCascade, CancelOutcome, PersonCommand } from './store-types';
import type { StoreContext } from './store-context';

const ACTIVE = `('pending', 'running', 'waiting')`;

function countOf(ctx: StoreContext, sql: string, runId: string): number {
  return (ctx.prep(sql).get(runId, runId) as { n: number }).n;
}

const INTERRUPTED_ATTEMPTS_WHERE = `run_id = ? AND status IN ${ACTIVE}
  AND id IN (SELECT attempt_id FROM effects WHERE run_id = ? AND status = 'applying' AND attempt_id IS NOT NULL)`;

/** What the cancel cascade would do now (SPEC §3), without writing. */
export function cascadePreview(ctx: StoreContext, runId: string): CancelCascade {
  const interrupted = countOf(
    ctx,
    `SELECT count(*) AS n FROM attempts WHERE ${INTERRUPTED_ATTEMPTS_WHERE}`,
    runId,
  );
  const active = (
    ctx.prep(`SELECT count(*) AS n FROM attempts WHERE run_id = ? AND status IN ${ACTIVE}`).get(runId) as {
      n: number;
    }
  ).n;
  const effects = ctx
    .prep(
      `SELECT COALESCE(SUM(status = 'pending'), 0) AS pending, COALESCE(SUM(status = 'applying'), 0) AS applying
       FROM effects WHERE run_id = ?`,
    )
    .get(runId) as { pending: number; applying: number };
  const interactions = (
    ctx
      .prep(`SELECT count(*) AS n FROM interactions WHERE run_id = ? AND status IN ('pending', 'presenting')`)
      .get(runId) as { n: number }
  ).n;
  return {
    attemptsCancelled: active - interrupted,
    attemptsInterrupted: interrupted,
    effectsCancelled: effects.pending,
    effectsAmbiguous: effects.applying,
    interactionsCancelled: interactions,
  };
}

/**
 * The cascade of SPEC §3: applying effects → ambiguous and their open attempt → interrupted; other active
 * attempts → cancelled; pending effects → cancelled; open interactions → cancelled (revision+1), undecided
 * decisions with provenance explicit_cancel. Then run and queue → cancelled, lease released.
 */
function applyCancel(ctx: StoreContext, runId: string, reason: string, now: number): CancelCascade {
  const attemptsInterrupted = ctx
    .prep(`UPDATE attempts SET status = 'interrupted', finished_at = ? WHERE ${INTERRUPTED_ATTEMPTS_WHERE}`)
    .run(now, runId, runId).changes;
  const attemptsCancelled = ctx
    .prep(
      `UPDATE attempts SET status = 'cancelled', finished_at = ? WHERE run_id = ? AND status IN ${ACTIVE}`,
    )
    .run(now, runId).changes;
  const effectsAmbiguous = ctx
    .prep(`UPDATE effects SET status = 'ambiguous', updated_at = ? WHERE run_id = ? AND status = 'applying'`)
    .run(now, runId).changes;
  const effectsCancelled = ctx
    .prep(`UPDATE effects SET status = 'cancelled', updated_at = ? WHERE run_id = ? AND status = 'pending'`)
    .run(now, runId).changes;
  const interactionsCancelled = ctx
    .prep(
      `UPDATE interactions SET status = 'cancelled', revision = revision + 1, settled_at = ?, presenter_id = NULL,
         presenter_expires_at = NULL, provenance = CASE WHEN kind = 'decision' THEN 'explicit_cancel' ELSE provenance END
       WHERE run_id = ? AND status IN ('pending', 'presenting')`,
    )
    .run(now, runId).changes;
  ctx
    .prep(
      `UPDATE runs SET status = 'cancelled', paused = 0, cancel_requested = 0, pause_requested = 0, status_detail = ?,
         finished_at = ? WHERE id = ?`,
    )
    .run(reason === '' ? null : reason, now, runId);
  ctx
    .prep(
      `UPDATE queue_entries SET status = 'cancelled', error_code = 'cancelled', error_detail = ?, updated_at = ?
       WHERE run_id = ?`,
    )
    .run(reason === '' ? null : reason, now, runId);
  releaseLease(ctx, runId);
  return {
    attemptsCancelled,
    attemptsInterrupted,
    effectsCancelled,
    effectsAmbiguous,
    interactionsCancelled,
  };
}

export interface CancelInput {
  expectedRevision?: number;
  reason: string;
  actor: Actor;
}

function requireReason(reason: unknown): string {
  if (typeof reason !== 'string') throw new RunwardenError('VALIDATION', 'reason must be a string.');
  return reason;
}

/** Cancel a run nobody holds (ownerless or expired lease): SPEC §3 "Cancel a stale run", in one transaction. */
export function cancelRun(ctx: StoreContext, runId: string, input: CancelInput, now: number): CancelOutcome {
  const reason = requireReason(input.reason);
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  refuseTerminal(ctx, row, 'cancel');
  refuseLiveOwner(ctx, row, now, 'cancel');
  const stale = displayStatus(loadDisplaySnapshot(ctx, row), now, ctx.displayOptions).status === 'stale';
  // Control claim: generation+1 fences any late write from the expired owner, then released below.
  const control = ctx
    .prep(
      `UPDATE leases SET generation = generation + 1, owner_type = 'control', owner_id = ?, token_hash = ?, owner_pid = ?,
         owner_hostname = ?, owner_start_id = NULL, acquired_at = ?, heartbeat_at = ?, expires_at = ?
       WHERE run_id = ? RETURNING generation`,
    )
    .get(
      input.actor.id,
      hashToken(newToken()),
      process.pid,
      os.hostname(),
      now,
      now,
      now + 60_000,
      runId,
    ) as {
    generation: number;
  };
  const cascade = applyCancel(ctx, runId, reason, now);
  commitRun(ctx, runId, now, {
    type: 'run.cancelled',
    actor: actorOf(input.actor),
    leaseGeneration: control.generation,
    payload: { stale, reason, cascade },
  });
  return { run: toRun(loadRunRow(ctx, runId)), cascade };
}

export function previewCancel(
  ctx: StoreContext,
  runId: string,
  now: number,
): { liveOwner: boolean; cascade: CancelCascade } {
  loadRunRow(ctx, runId);
  return {
    liveOwner: hasLiveOwner(toLease(loadLeaseRow(ctx, runId)), now),
    cascade: cascadePreview(ctx, runId),
  };
}

/** A runner answering a cancel request ends its own run with the same cascade (fenced, `stale: false`). */
export function cancelOwnRun(ctx: StoreContext, claim: ClaimRef, reason: string, now: number): CancelOutcome {
  const lease = fence(ctx, claim, now);
  const cascade = applyCancel(ctx, claim.runId, requireReason(reason), now);
  commitRun(ctx, claim.runId, now, {
    type: 'run.cancelled',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: { stale: false, reason, cascade, byRunner: true },
  });
  return { run: toRun(loadRunRow(ctx, claim.runId)), cascade };
}

function setRequestFlag(
  ctx: StoreContext,
  runId: string,
  flag: 'cancel_requested' | 'pause_requested',
  input: PersonCommand,
  now: number,
): Run {
  const reason = requireReason(input.reason);
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  refuseTerminal(ctx, row, flag === 'cancel_requested' ? 'request cancellation of' : 'request a pause of');
  if (flag === 'pause_requested' && row.paused === 1)
    throw conflict(ctx, runId, `Run ${runId} is already paused.`);
  ctx.prep(`UPDATE runs SET ${flag} = 1 WHERE id = ?`).run(runId);
  const live = hasLiveOwner(toLease(loadLeaseRow(ctx, runId)), now);
  commitRun(ctx, runId, now, {
    type: flag === 'cancel_requested' ? 'run.cancel_requested' : 'run.pause_requested',
    actor: actorOf(input.actor),
    payload: { reason, liveOwner: live },
  });
  return toRun(loadRunRow(ctx, runId));
}

export function requestCancel(ctx: StoreContext, runId: string, input: PersonCommand, now: number): Run {
  return setRequestFlag(ctx, runId, 'cancel_requested', input, now);
}

export function requestPause(ctx: StoreContext, runId: string, input: PersonCommand, now: number): Run {
  return setRequestFlag(ctx, runId, 'pause_requested', input, now);
}

function refuseStaleOwner(ctx: StoreContext, runId: string, what: string): void {
  const lease = loadLeaseRow(ctx, runId);
  if (lease.owner_type !== null) {
    throw conflict(
      ctx,
      runId,
      `Cannot ${what} run ${runId}: its runner's lease expired (stale). Cancel it instead.`,
    );
  }
}

/**
 * Pause a run nobody holds. A parked run keeps its park reason (resuming later still honours it);
 * a queued run stays queued (queued/queued is the only valid pair for a queued run) with paused=1,
 * which the claim queries skip.
 */
export function pauseRun(ctx: StoreContext, runId: string, input: PersonCommand, now: number): Run {
  const reason = requireReason(input.reason);
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  refuseTerminal(ctx, row, 'pause');
  refuseLiveOwner(ctx, row, now, 'pause');
  refuseStaleOwner(ctx, runId, 'pause');
  if (row.paused === 1) throw conflict(ctx, runId, `Run ${runId} is already paused.`);
  const queue = loadQueueRow(ctx, runId);
  if (queue.status !== 'queued' && queue.status !== 'parked') {
    throw conflict(ctx, runId, `Run ${runId} is ${queue.status}; only a queued or parked run can be paused.`);
  }
  ctx.prep(`UPDATE runs SET paused = 1, pause_requested = 0 WHERE id = ?`).run(runId);
  commitRun(ctx, runId, now, { type: 'run.paused', actor: actorOf(input.actor), payload: { reason } });
  return toRun(loadRunRow(ctx, runId));
}

export interface ResumeInput {
  expectedRevision: number;
  anyway?: boolean;
  reason?: string;
  actor: Actor;
}

/** Resume a paused or parked run (SPEC §4): sourceChanged needs `anyway`; effectAmbiguous needs every effect resolved. */
export function resumeRun(ctx: StoreContext, runId: string, input: ResumeInput, now: number): Run {
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  refuseTerminal(ctx, row, 'resume');
  refuseLiveOwner(ctx, row, now, 'resume');
  refuseStaleOwner(ctx, runId, 'resume');
  if (row.ambiguous_effects > 0) {
    throw new RunwardenError(
      'CONFLICT',
      `Run ${runId} has ${row.ambiguous_effects} side effect(s) with an unknown outcome; resolve them before resuming.`,
      { recovery: { kind: 'resolveEffects', runId }, fresh: loadDisplaySnapshot(ctx, row) },
    );
  }
  const queue = loadQueueRow(ctx, runId);
  if (queue.status === 'parked' && queue.error_code === 'sourceChanged' && input.anyway !== true) {
    throw new RunwardenError(
      'CONFLICT',
      `Run ${runId} was parked because its workflow source changed; resuming runs it against the new source. Confirm with "resume anyway".`,
      { recovery: { kind: 'resumeAnyway', runId }, fresh: loadDisplaySnapshot(ctx, row) },
    );
  }
  if (row.paused === 0 && queue.status !== 'parked') {
    throw conflict(ctx, runId, `Run ${runId} is neither paused nor parked; nothing to resume.`);
  }
  ctx.prep(`UPDATE runs SET paused = 0, pause_requested = 0 WHERE id = ?`).run(runId);
  if (queue.status === 'parked') {
    ctx
      .prep(
        `UPDATE attempts SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status IN ${ACTIVE}`,
      )
      .run(now, runId);
    ctx.prep(`UPDATE runs SET status = 'queued', status_detail = NULL WHERE id = ?`).run(runId);
    ctx
      .prep(
        `UPDATE queue_entries SET status = 'queued', available_at = ?, error_code = NULL, error_detail = NULL,
           consecutive_errors = 0, updated_at = ? WHERE run_id = ?`,
      )
      .run(now, now, runId);
  }
  commitRun(ctx, runId, now, {
    type: 'run.resumed',
    actor: actorOf(input.actor),
    payload: { anyway: input.anyway === true, reason: input.reason ?? null, parkCode: queue.error_code },
  });
  return toRun(loadRunRow(ctx, runId));
}

/** A new run with lineage retry: same project, workflow, title, input and command (SPEC §4). */
export function retryRun(
  ctx: StoreContext,
  runId: string,
  input: { expectedRevision?: number; actor: Actor },
  now: number,
): Run {
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  if (
    row.status !== 'completed' &&
    row.status !== 'failed' &&
    row.status !== 'timed_out' &&
    row.status !== 'cancelled'
  ) {
    throw conflict(ctx, runId, `Run ${runId} is ${row.status}; only a finished run can be retried.`);
  }
  const old = toRun(row);
  const actor: EventActor = actorOf(input.actor);
  const id = insertRun(
    ctx,
    now,
    row.project_path,
    {
      projectPath: row.project_path,
      workflow: old.workflow,
      title: old.title,
      input: old.input,
      command: old.command,
      executionMode: old.executionMode,
      originSession: row.origin_session,
      parentRunId: runId,
      lineage: 'retry',
    },
    actor,
    { retryOf: runId },
  );
  commitRun(ctx, runId, now, { type: 'run.retried', actor, payload: { newRunId: id } });
  return toRun(loadRunRow(ctx, id));
}
