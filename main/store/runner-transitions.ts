/**
 * The runner's transitions (docs/ARCHITECTURE.md#run-model-and-state-machine): claim, running, progress,
 * questions, park, the endings and release. Each is a short sequence of row helpers ending in `commitRun`,
 * inside the caller's one write transaction; every one but the claim is fenced first.
 */
import {
  TERMINAL_QUEUE_STATUSES,
  type Interaction,
  type ParkCode,
  type Run,
  isTerminalRunStatus,
} from '../../shared/domain';
import { isOrphaned } from '../../shared/display-status';
import { RunwardenError } from '../../shared/errors';
import { checkDeclaredChoices, checkDeclaredFields, responseIssues } from '../../shared/answer-rules';
import {
  activeAttempt,
  endActiveAttempts,
  getAttempt,
  holdActiveAttempts,
  interruptActiveAttempts,
  interruptAttemptsWithApplyingEffects,
  resumeWaitingAttempts,
} from './attempt-rows';
import { applyCancel } from './cancel-cascade';
import { ambiguateApplying, ambiguousPayload, markApplyingAmbiguous } from './effect-rows';
import { newInteractionId } from './ids';
import { adoptIntoEnclosingRun } from './nested-runs';
import { checkAsker } from './question-askers';
import {
  optionalTextWithin,
  requireLeaseMs,
  requirePayloadWithin,
  requireReason,
  requireText,
} from './input-checks';
import {
  cancelledQuestionsPayload,
  cancelOpenInteractions,
  loadInteractionRow,
  waitingDetail,
} from './interaction-rows';
import { clearLease, isHeldByLiveOther, takeLease } from './lease-rows';
import { filterPath } from './projects';
import { setQueueEntry } from './queue-rows';
import { toInteraction, toJson, toLease, toRun, type LeaseRow } from './row-mapping';
import { endRunRow, setPaused, setRunStatus, setStatusDetail, type RunEnding } from './run-rows';
import {
  commitRun,
  conflict,
  fence,
  loadLeaseRow,
  orphanCommandWords,
  loadQueueRow,
  loadRunRow,
  loadSnapshot,
  runnerActor,
  runnerSurface,
  type ClaimRef,
} from './run-state';
import type {
  CancelOutcome,
  ClaimNextOptions,
  ClaimResult,
  ClaimRunOptions,
  RequestInteractionInput,
} from './store-types';
import type { WritableDB } from './store-context';

const PARK_CODES: readonly ParkCode[] = ['sourceChanged', 'effectAmbiguous', 'paused', 'runnerExited'];

/** Why a run that is otherwise claimable may not be claimed by a runner (a control claim skips these). */
function refuseRunnerClaim(ctx: WritableDB, runId: string): void {
  const row = loadRunRow(ctx, runId);
  const queue = loadQueueRow(ctx, runId);
  if (row.open_interactions > 0) {
    throw conflict(
      ctx,
      runId,
      `Run ${runId} is waiting for an answer; it cannot be claimed until it is answered.`,
    );
  }
  if (row.paused === 1) throw conflict(ctx, runId, `Run ${runId} is paused; resume it first.`);
  // A person asked for it to stop: no runner starts it (again) (docs/LIVENESS.md#requests-and-claims).
  if (row.cancel_requested === 1) {
    throw conflict(ctx, runId, `Run ${runId} has a cancel request; it is not started again.`);
  }
  // Only a person's resume lets these run again (with "anyway", or after resolving every effect).
  if (queue.status === 'parked' && queue.error_code === 'sourceChanged') {
    throw new RunwardenError(
      'CONFLICT',
      `Run ${runId} is parked because its workflow source changed; a person must resume it anyway first.`,
      { fresh: loadSnapshot(ctx, runId), recovery: { kind: 'resumeAnyway', runId } },
    );
  }
  if (row.ambiguous_effects > 0 || (queue.status === 'parked' && queue.error_code === 'effectAmbiguous')) {
    throw new RunwardenError(
      'CONFLICT',
      `Run ${runId} has a side effect with an unknown outcome; a person must resolve it and resume the run first.`,
      { fresh: loadSnapshot(ctx, runId), recovery: { kind: 'resolveEffects', runId } },
    );
  }
}

/**
 * Why a claim finds its run held, as it is, with the one next step: a live runner is doing this work (wait
 * for it); a gone runner left its command running (stop it: `cancel --stop-command`).
 */
function heldElsewhere(ctx: WritableDB, runId: string, row: LeaseRow, now: number): RunwardenError {
  const lease = toLease(row);
  const liveness = ctx.liveness.judge(lease);
  if (liveness.supervisor !== 'alive' && (isOrphaned(lease, liveness) || liveness.command === 'alive')) {
    return new RunwardenError(
      'LIVE_OWNER',
      `Run ${runId} is orphaned: its runner ${lease.ownerId ?? ''} is gone but ${orphanCommandWords(lease)}. Stop that and cancel the run, then retry it.`,
      { recovery: { kind: 'stopCommand', runId } },
    );
  }
  const pid = lease.ownerPid === null ? '' : `, started by pid ${lease.ownerPid}`;
  const clock =
    liveness.supervisor === 'alive'
      ? ''
      : ` (its lease runs until ${new Date(lease.expiresAt ?? now).toISOString()})`;
  return new RunwardenError(
    'LIVE_OWNER',
    `Run ${runId} is already running (held by ${lease.ownerType ?? 'runner'} ${lease.ownerId ?? ''}${pid})${clock}: wait for it to finish ("runwarden show ${runId}" follows it).`,
  );
}

/**
 * The claim (docs/ARCHITECTURE.md#leases-and-fencing): refused for a terminal run or queue entry and for a
 * lease someone else holds live; the previous owner's attempt is interrupted and its applying effects become
 * ambiguous; the lease is taken (generation+1) and the run moves to running / starting.
 */
export function claimRun(ctx: WritableDB, runId: string, options: ClaimRunOptions, now: number): ClaimResult {
  const leaseMs = requireLeaseMs(options.leaseMs);
  const row = loadRunRow(ctx, runId);
  if (isTerminalRunStatus(row.status))
    throw conflict(ctx, runId, `Run ${runId} is already ${row.status}; it cannot be claimed.`);
  const queue = loadQueueRow(ctx, runId);
  if (TERMINAL_QUEUE_STATUSES.includes(queue.status)) {
    throw conflict(ctx, runId, `Run ${runId} has a finished queue entry (${queue.status}).`);
  }
  const lease = loadLeaseRow(ctx, runId);
  if (isHeldByLiveOther(ctx, lease, options, now)) throw heldElsewhere(ctx, runId, lease, now);
  if (options.control !== true) refuseRunnerClaim(ctx, runId);
  interruptActiveAttempts(ctx, runId, now);
  markApplyingAmbiguous(ctx, runId, now);
  const taken = takeLease(
    ctx,
    { runId },
    {
      ownerType: options.ownerType,
      ownerId: requireText(options.ownerId, 'ownerId'),
      pid: options.pid,
      hostname: requireText(options.hostname, 'hostname'),
      startId: options.startId ?? null,
      bootId: options.bootId ?? null,
      pidNs: options.pidNs ?? null,
    },
    leaseMs,
    now,
  );
  if (options.keepQueueStatus !== true) {
    setQueueEntry(ctx, runId, { status: 'starting', errorCode: null, errorDetail: null }, now);
    setRunStatus(ctx, runId, 'running', null);
  }
  const adopted = adoptIntoEnclosingRun(ctx, runId, options.enclosingRunId);
  commitRun(ctx, runId, now, {
    type: 'run.claimed',
    actor: { type: options.ownerType, id: options.ownerId, surface: runnerSurface(options.surface) },
    leaseGeneration: taken.generation,
    payload: {
      ownerType: options.ownerType,
      ownerId: options.ownerId,
      pid: options.pid,
      hostname: options.hostname,
      ...(adopted && { enclosingRunId: options.enclosingRunId }),
    },
  });
  return {
    claim: {
      runId,
      generation: taken.generation,
      token: taken.token,
      expiresAt: taken.expiresAt,
      ownerType: options.ownerType,
      ownerId: options.ownerId,
    },
    run: toRun(loadRunRow(ctx, runId)),
  };
}

/**
 * Oldest claimable first; skips paused runs, runs parked for a person, runs with a cancel request, open
 * questions, effects with an unknown outcome (refuseRunnerClaim refuses them), held leases.
 */
export const CLAIM_NEXT_SQL = `SELECT q.run_id AS id FROM queue_entries q
         JOIN runs r ON r.id = q.run_id
         JOIN leases l ON l.run_id = q.run_id
       WHERE q.status IN ('queued', 'parked') AND q.available_at <= @now
         AND (q.status = 'queued' OR q.error_code IN ('runnerExited', 'interactionExpired'))
         AND r.paused = 0 AND r.cancel_requested = 0 AND r.open_interactions = 0 AND r.ambiguous_effects = 0
         AND l.owner_type IS NULL
         AND (@projects IS NULL OR r.project_id IN
               (SELECT id FROM projects WHERE canonical_path IN (SELECT value FROM json_each(@projects))))
         AND (@exclude IS NULL OR r.id NOT IN (SELECT value FROM json_each(@exclude)))
         AND (@requireCommand = 0 OR r.command_json IS NOT NULL)
       ORDER BY q.available_at, q.run_id
       LIMIT 1`;

/** Claims the oldest claimable run, or returns null. */
export function claimNextRun(ctx: WritableDB, options: ClaimNextOptions, now: number): ClaimResult | null {
  const projects =
    options.projectPaths === undefined ? null : JSON.stringify(options.projectPaths.map(filterPath));
  const exclude = options.excludeIds === undefined ? null : JSON.stringify(options.excludeIds);
  const row = ctx
    .prep(CLAIM_NEXT_SQL)
    .get({ now, projects, exclude, requireCommand: options.requireCommand === true ? 1 : 0 }) as
    { id: string } | undefined;
  if (row === undefined) return null;
  return claimRun(ctx, row.id, options, now);
}

/** The runner is working: run and queue → running. */
export function markRunning(ctx: WritableDB, claim: ClaimRef, now: number): Run {
  const lease = fence(ctx, claim, now);
  setRunStatus(ctx, claim.runId, 'running');
  setQueueEntry(ctx, claim.runId, { status: 'running', errorCode: null }, now);
  commitRun(ctx, claim.runId, now, {
    type: 'run.running',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

export function setProgress(ctx: WritableDB, claim: ClaimRef, detail: string, now: number): Run {
  if (typeof detail !== 'string') throw new RunwardenError('VALIDATION', 'Progress detail must be a string.');
  optionalTextWithin(detail, 'Progress detail', 'progress');
  const lease = fence(ctx, claim, now);
  setStatusDetail(ctx, claim.runId, detail);
  commitRun(ctx, claim.runId, now, {
    type: 'run.progress',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { detail },
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

/**
 * Asks a person a question: the run and its attempt wait, the runner keeps its lease (and waits, or parks
 * and exits). The declared choices / fields and the default are checked by shared/answer-rules.ts.
 */
export function requestInteraction(
  ctx: WritableDB,
  claim: ClaimRef,
  input: RequestInteractionInput,
  now: number,
): Interaction {
  requireText(input.title, 'title', 'title');
  optionalTextWithin(input.prompt, 'prompt', 'prompt');
  for (const choice of Array.isArray(input.choices) ? input.choices : []) {
    if (typeof choice === 'string') optionalTextWithin(choice, 'A choice', 'title');
  }
  if (input.kind !== 'decision' && input.kind !== 'input') {
    throw new RunwardenError('VALIDATION', 'kind must be decision or input.');
  }
  const choices = input.kind === 'decision' ? asDeclared(checkDeclaredChoices(input.choices)) : null;
  const fields = input.kind === 'input' ? asDeclared(checkDeclaredFields(input.fields)) : null;
  const hasDefault = input.hasDefault ?? input.defaultResponse !== undefined;
  if (hasDefault) requirePayloadWithin(input.defaultResponse, 'The default answer');
  if (hasDefault) {
    const issues = responseIssues({ kind: input.kind, choices, fields }, input.defaultResponse);
    if (issues.length > 0) {
      throw new RunwardenError('VALIDATION', `The default answer does not fit: ${issues[0]}`, { issues });
    }
  }
  if (input.deadlineAt !== undefined && input.deadlineAt !== null && !Number.isFinite(input.deadlineAt)) {
    throw new RunwardenError('VALIDATION', 'deadlineAt must be epoch milliseconds or null.');
  }
  const asker = input.asker === undefined || input.asker === null ? null : checkAsker(input.asker);
  const lease = fence(ctx, claim, now);
  let attemptId: number | null = input.attemptId ?? null;
  if (attemptId !== null) {
    if (getAttempt(ctx, attemptId).run_id !== claim.runId) {
      throw new RunwardenError('VALIDATION', `Attempt ${attemptId} is not part of run ${claim.runId}.`);
    }
  } else {
    attemptId = activeAttempt(ctx, claim.runId)?.id ?? null;
  }
  const id = newInteractionId(now);
  ctx
    .prep(
      `INSERT INTO interactions (id, run_id, attempt_id, kind, title, prompt, choices_json, fields_json, default_json,
         has_default, deadline_at, status, revision, response_json, created_at,
         asker_pid, asker_start_id, asker_hostname, asker_boot_id, asker_pid_ns)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 1, 'null', ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      claim.runId,
      attemptId,
      input.kind,
      input.title,
      input.prompt ?? '',
      choices === null ? null : toJson(choices),
      fields === null ? null : toJson(fields),
      toJson(hasDefault ? input.defaultResponse : null),
      hasDefault ? 1 : 0,
      input.deadlineAt ?? null,
      now,
      asker?.pid ?? null,
      asker?.startId ?? null,
      asker?.hostname ?? null,
      asker?.bootId ?? null,
      asker?.pidNs ?? null,
    );
  holdActiveAttempts(ctx, claim.runId);
  setRunStatus(ctx, claim.runId, 'waiting', waitingDetail(input.title));
  setQueueEntry(ctx, claim.runId, { status: 'running', onlyFrom: 'starting' }, now);
  commitRun(ctx, claim.runId, now, {
    type: 'interaction.requested',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: {
      interactionId: id,
      kind: input.kind,
      title: input.title,
      deadlineAt: input.deadlineAt ?? null,
    },
  });
  return toInteraction(loadInteractionRow(ctx, id));
}

/** A checked declaration, or the VALIDATION error naming what is wrong with it. */
function asDeclared<T>(checked: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!checked.ok) throw new RunwardenError('VALIDATION', checked.message);
  return checked.value;
}

/** The runner continues once no question is open: attempt, run and queue → running. */
export function resumeAfterInteraction(ctx: WritableDB, claim: ClaimRef, now: number): void {
  const lease = fence(ctx, claim, now);
  const run = loadRunRow(ctx, claim.runId);
  if (run.open_interactions > 0) {
    throw conflict(
      ctx,
      claim.runId,
      `Run ${claim.runId} still has ${run.open_interactions} open question(s).`,
    );
  }
  resumeWaitingAttempts(ctx, claim.runId);
  setRunStatus(ctx, claim.runId, 'running', null);
  setQueueEntry(ctx, claim.runId, { status: 'running', errorCode: null }, now);
  commitRun(ctx, claim.runId, now, {
    type: 'run.running',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
  });
}

/** park(code): the runner stops and gives its lease back; the queue entry says why. */
export function park(
  ctx: WritableDB,
  claim: ClaimRef,
  code: ParkCode,
  detail: string | undefined,
  now: number,
): Run {
  if (!PARK_CODES.includes(code)) {
    throw new RunwardenError('VALIDATION', `Park code must be one of ${PARK_CODES.join(', ')}.`);
  }
  optionalTextWithin(detail, 'Park detail', 'detail');
  const lease = fence(ctx, claim, now);
  const run = loadRunRow(ctx, claim.runId);
  // The lease is cleared below: an effect still applying has nobody left to settle it
  // (docs/LIVENESS.md#unknown-outcomes).
  const ambiguous = ambiguateApplying(ctx, claim.runId, now);
  if (code === 'effectAmbiguous') {
    // The attempt waits for a person to say what the effect did; so does the run.
    holdActiveAttempts(ctx, claim.runId);
    setRunStatus(ctx, claim.runId, 'waiting');
  } else {
    interruptActiveAttempts(ctx, claim.runId, now);
    if (run.status === 'queued') setRunStatus(ctx, claim.runId, 'running');
  }
  if (code === 'paused') setPaused(ctx, claim.runId, true);
  setQueueEntry(
    ctx,
    claim.runId,
    {
      status: 'parked',
      errorCode: code,
      errorDetail: detail ?? null,
      consecutiveErrors: code === 'runnerExited' ? 'increment' : undefined,
    },
    now,
  );
  clearLease(ctx, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.parked',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: {
      code,
      detail: detail ?? null,
      ...ambiguousPayload(ambiguous, 'when the run was parked'),
    },
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

type Ending = Exclude<RunEnding, { status: 'cancelled' }>;

const ENDING_WORDS: Readonly<Record<Ending['status'], string>> = {
  completed: 'completed',
  failed: 'failed',
  timed_out: 'timed out',
};

/**
 * complete / fail / time out: the active attempt ends the same way, open questions are cancelled (the
 * ending's event names them), run and queue end, the lease is cleared.
 */
export function finishRun(ctx: WritableDB, claim: ClaimRef, ending: Ending, now: number): Run {
  const lease = fence(ctx, claim, now);
  // An effect still applying when its run ends may or may not have happened (its process was killed, or
  // never said): ambiguous, never left applying on a finished run (docs/LIVENESS.md#unknown-outcomes).
  interruptAttemptsWithApplyingEffects(ctx, claim.runId, now);
  const ambiguous = ambiguateApplying(ctx, claim.runId, now);
  endActiveAttempts(ctx, claim.runId, ending.status, now);
  const questions = cancelOpenInteractions(ctx, claim.runId, now);
  endRunRow(ctx, claim.runId, ending, now);
  const error = ending.status === 'failed' ? ending.error : null;
  setQueueEntry(
    ctx,
    claim.runId,
    ending.status === 'completed'
      ? { status: 'done', errorCode: null, errorDetail: null }
      : {
          status: 'failed',
          errorCode: ending.status === 'failed' ? 'failed' : 'timedOut',
          errorDetail: error,
        },
    now,
  );
  clearLease(ctx, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: `run.${ending.status}`,
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: {
      ...(ending.status === 'failed' ? { error } : {}),
      ...cancelledQuestionsPayload(questions),
      ...ambiguousPayload(ambiguous, `when the run ended (${ENDING_WORDS[ending.status]})`),
    },
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

/** Gives the run back to the queue (queued, available now), lease ownerless. */
export function releaseRun(ctx: WritableDB, claim: ClaimRef, now: number): Run {
  const lease = fence(ctx, claim, now);
  const run = loadRunRow(ctx, claim.runId);
  if (run.status === 'waiting' || run.open_interactions > 0) {
    throw conflict(
      ctx,
      claim.runId,
      `Run ${claim.runId} is waiting (answer or effect); park it instead of releasing.`,
    );
  }
  const ambiguous = ambiguateApplying(ctx, claim.runId, now);
  interruptActiveAttempts(ctx, claim.runId, now);
  setRunStatus(ctx, claim.runId, 'queued', null);
  setQueueEntry(
    ctx,
    claim.runId,
    { status: 'queued', availableAt: now, errorCode: null, errorDetail: null },
    now,
  );
  clearLease(ctx, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.released',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: ambiguousPayload(ambiguous, 'when the run was released'),
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

/** A runner answering a cancel request ends its own run with the cancel cascade (fenced, `stale: false`). */
export function cancelOwnRun(ctx: WritableDB, claim: ClaimRef, reason: string, now: number): CancelOutcome {
  const lease = fence(ctx, claim, now);
  const { cascade, questions } = applyCancel(ctx, claim.runId, requireReason(reason), now);
  commitRun(ctx, claim.runId, now, {
    type: 'run.cancelled',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { stale: false, reason, cascade, byRunner: true, ...questions },
  });
  return { run: toRun(loadRunRow(ctx, claim.runId)), cascade };
}
