/**
 * A person's commands (docs/ARCHITECTURE.md#run-model-and-state-machine): each is compare-and-set on the
 * revision the person looked at, refuses a run a live owner holds (a live run is only ever asked, through
 * the request flags), and records the actor and surface. Each runs inside the caller's write transaction.
 */
import {
  OPEN_INTERACTION_STATUSES,
  type Actor,
  type Effect,
  type EffectResolution,
  type Interaction,
  type Run,
  isTerminalRunStatus,
} from '../../shared/domain';
import { responseIssues } from '../../shared/answer-rules';
import {
  displayStatus,
  hasLiveOwner,
  isAgentSessionRun,
  isLeaseStale,
  isOrphaned,
} from '../../shared/display-status';
import { RunwardenError } from '../../shared/errors';
import { interruptActiveAttempts } from './attempt-rows';
import { applyCancel, cascadePreview } from './cancel-cascade';
import { loadEffectRow } from './effect-rows';
import { requirePayloadWithin, requireReason, requireText } from './input-checks';
import { loadInteractionRow } from './interaction-rows';
import { resolveEffectNotifications, resolveQuestionNotifications } from './notification-subjects';
import { nobodyWaitingRefusal, OUTSIDE_EVERY_RUN, checkCaller, type CallerIdentity } from './question-askers';
import { takeLease } from './lease-rows';
import { setQueueEntry } from './queue-rows';
import { toEffect, toInteraction, toJson, toLease, toRun, type InteractionRow } from './row-mapping';
import { listRetries, unresolvedInLineage } from './run-lineage';
import { requestCancelOfChildren } from './nested-runs';
import { insertRun } from './run-reservation';
import { tellParkedSiblings } from './parked-siblings';
import { setPaused, setRequestFlag, setRunStatus } from './run-rows';
import {
  actorOf,
  checkRevision,
  commitRun,
  conflict,
  loadDisplaySnapshot,
  loadLeaseRow,
  loadQueueRow,
  loadRunRow,
  loadSnapshot,
  refuseLiveOwner,
  refuseTerminal,
  type EventActor,
} from './run-state';
import type { AnswerResult, CancelCascade, CancelOutcome, PersonCommand } from './store-types';
import type { ReadableDB, WritableDB } from './store-context';

export interface CancelInput {
  expectedRevision?: number;
  reason: string;
  actor: Actor;
}

/**
 * Cancels a run nobody holds (ownerless or expired lease) with the cancel cascade. A control claim first
 * (generation+1) fences any late write of the expired owner; the cascade clears it again.
 */
export function cancelRun(ctx: WritableDB, runId: string, input: CancelInput, now: number): CancelOutcome {
  const reason = requireReason(input.reason);
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  refuseTerminal(ctx, row, 'cancel');
  refuseLiveOwner(ctx, row, now, 'cancel');
  const stale = displayStatus(loadDisplaySnapshot(ctx, row), now, ctx.displayOptions).status === 'stale';
  const control = takeLease(
    ctx,
    { runId },
    // No pid of ours to judge: a control claim is taken and released in this one transaction.
    {
      ownerType: 'control',
      ownerId: input.actor.id,
      startId: null,
      bootId: null,
      pidNs: null,
      ...ctx.identity,
    },
    ctx.controlLeaseMs,
    now,
  );
  const { cascade, questions } = applyCancel(ctx, runId, reason, now);
  commitRun(ctx, runId, now, {
    type: 'run.cancelled',
    actor: actorOf(input.actor),
    leaseGeneration: control.generation,
    payload: { stale, reason, cascade, ...questions },
  });
  requestCancelOfChildren(ctx, runId, reason, input.actor, now);
  return { run: toRun(loadRunRow(ctx, runId)), cascade };
}

export function previewCancel(
  ctx: ReadableDB,
  runId: string,
  now: number,
): { liveOwner: boolean; cascade: CancelCascade } {
  loadRunRow(ctx, runId);
  const lease = toLease(loadLeaseRow(ctx, runId));
  return {
    liveOwner: hasLiveOwner(lease, now, ctx.liveness.judge(lease)),
    cascade: cascadePreview(ctx, runId),
  };
}

function requestFlag(
  ctx: WritableDB,
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
  const lease = toLease(loadLeaseRow(ctx, runId));
  // Nobody holds it, so nobody would read the flag before starting it: a request to cancel cancels
  // (docs/LIVENESS.md#requests-and-claims).
  if (flag === 'cancel_requested' && lease.ownerType === null) {
    return cancelRun(ctx, runId, { reason: input.reason, actor: input.actor }, now).run;
  }
  setRequestFlag(ctx, runId, flag);
  const live = hasLiveOwner(lease, now, ctx.liveness.judge(lease));
  commitRun(ctx, runId, now, {
    type: flag === 'cancel_requested' ? 'run.cancel_requested' : 'run.pause_requested',
    actor: actorOf(input.actor),
    payload: { reason, liveOwner: live },
  });
  if (flag === 'cancel_requested') requestCancelOfChildren(ctx, runId, reason, input.actor, now);
  return toRun(loadRunRow(ctx, runId));
}

/**
 * Asks the live runner to cancel: the flag rides on its next heartbeat answer. On a run nobody holds it
 * cancels at once.
 */
export function requestCancel(ctx: WritableDB, runId: string, input: PersonCommand, now: number): Run {
  return requestFlag(ctx, runId, 'cancel_requested', input, now);
}

export function requestPause(ctx: WritableDB, runId: string, input: PersonCommand, now: number): Run {
  return requestFlag(ctx, runId, 'pause_requested', input, now);
}

function refuseStaleOwner(ctx: WritableDB, runId: string, what: string): void {
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
export function pauseRun(ctx: WritableDB, runId: string, input: PersonCommand, now: number): Run {
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
  setPaused(ctx, runId, true);
  commitRun(ctx, runId, now, { type: 'run.paused', actor: actorOf(input.actor), payload: { reason } });
  return toRun(loadRunRow(ctx, runId));
}

export interface ResumeInput {
  expectedRevision: number;
  anyway?: boolean;
  reason?: string;
  actor: Actor;
}

/** Resume a paused or parked run: sourceChanged needs `anyway`; effectAmbiguous needs every effect resolved. */
export function resumeRun(ctx: WritableDB, runId: string, input: ResumeInput, now: number): Run {
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
  setPaused(ctx, runId, false);
  if (queue.status === 'parked') {
    interruptActiveAttempts(ctx, runId, now);
    setRunStatus(ctx, runId, 'queued', null);
    setQueueEntry(
      ctx,
      runId,
      { status: 'queued', availableAt: now, errorCode: null, errorDetail: null, consecutiveErrors: 'reset' },
      now,
    );
  }
  commitRun(ctx, runId, now, {
    type: 'run.resumed',
    actor: actorOf(input.actor),
    payload: { anyway: input.anyway === true, reason: input.reason ?? null, parkCode: queue.error_code },
  });
  return toRun(loadRunRow(ctx, runId));
}

/**
 * A retry could apply again an effect whose outcome nobody knows: refused, naming the effect, until a person
 * resolves each one — in the run itself or anywhere in its lineage (a retry of a retry, an earlier sibling
 * made by `retry --again`): an effect still applying there counts too (docs/LIVENESS.md#unknown-outcomes).
 */
export function refuseUnresolved(ctx: WritableDB, runId: string, what: string): void {
  const unresolved = unresolvedInLineage(ctx, runId);
  const first = unresolved.find((e) => e.run_id === runId) ?? unresolved[0];
  if (first === undefined) return;
  const more = unresolved.length > 1 ? ` (and ${unresolved.length - 1} more)` : '';
  const where = first.run_id === runId ? 'its' : `run ${first.run_id}'s`;
  const state = first.status === 'applying' ? ', still applying,' : '';
  throw new RunwardenError(
    'CONFLICT',
    `Cannot ${what} run ${runId}: nobody knows whether ${where} ${first.type} "${first.summary}" (${first.idempotency_key})${state} happened${more}. Resolve ${more === '' ? 'it' : 'each'} first: a ${what} could do ${more === '' ? 'it' : 'them'} again.`,
    { recovery: { kind: 'resolveEffects', runId: first.run_id }, fresh: loadSnapshot(ctx, runId) },
  );
}

/** A new run with lineage retry: same project, workflow, title, input and command. */
export function retryRun(
  ctx: WritableDB,
  runId: string,
  input: { expectedRevision?: number; again?: boolean; actor: Actor },
  now: number,
): Run {
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  if (!isTerminalRunStatus(row.status)) {
    throw conflict(ctx, runId, `Run ${runId} is ${row.status}; only a finished run can be retried.`);
  }
  // Two copies of the same work would run at once; only `again` (the CLI's --again) asks for that.
  const open =
    input.again === true
      ? undefined
      : listRetries(ctx, runId).find((retry) => !isTerminalRunStatus(retry.status));
  if (open !== undefined) {
    throw conflict(
      ctx,
      runId,
      `Run ${runId} was already retried as ${open.id}, which is ${open.status}; another retry would run the same work twice at once.`,
    );
  }
  const old = toRun(row);
  if (isAgentSessionRun(old)) {
    throw conflict(
      ctx,
      runId,
      `Run ${runId} is a ${old.workflow} session: nothing here can run it again. Start or resume the session in its terminal; it shows as a new run.`,
    );
  }
  refuseUnresolved(ctx, runId, 'retry');
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

export interface ResolveEffectInput {
  resolution: EffectResolution;
  note: string;
  expectedRevision: number;
  actor: Actor;
}

/** A person says what happened to an ambiguous effect: applied, or not applied (→ rejected). */
export function resolveEffect(
  ctx: WritableDB,
  effectId: number,
  input: ResolveEffectInput,
  now: number,
): Effect {
  if (input.resolution !== 'applied' && input.resolution !== 'not_applied') {
    throw new RunwardenError('VALIDATION', 'resolution must be applied or not_applied.');
  }
  requireText(input.note, 'A note saying how you know', 'note');
  const row = loadEffectRow(ctx, effectId);
  const run = loadRunRow(ctx, row.run_id);
  checkRevision(ctx, run, input.expectedRevision);
  refuseLiveOwner(ctx, run, now, 'resolve an effect of');
  if (row.status !== 'ambiguous') {
    throw conflict(
      ctx,
      row.run_id,
      `Effect ${effectId} is ${row.status}, not ambiguous; nothing to resolve.`,
    );
  }
  ctx
    .prep(
      `UPDATE effects SET status = ?, resolution = ?, resolution_note = ?, resolved_by = ?, updated_at = ? WHERE id = ?`,
    )
    .run(
      input.resolution === 'applied' ? 'applied' : 'rejected',
      input.resolution,
      input.note,
      input.actor.id,
      now,
      effectId,
    );
  resolveEffectNotifications(ctx, effectId, now);
  commitRun(ctx, row.run_id, now, {
    type: 'effect.resolved',
    actor: actorOf(input.actor),
    payload: { effectId, resolution: input.resolution, note: input.note },
  });
  tellParkedSiblings(
    ctx,
    row.run_id,
    row.idempotency_key,
    input.resolution === 'applied',
    actorOf(input.actor),
    now,
  );
  return toEffect(loadEffectRow(ctx, effectId));
}

export interface AnswerInput {
  interactionRevision: number;
  idempotencyKey: string;
  payload: unknown;
  actor: Actor;
  /**
   * Who answers: an answer from inside the run that asked is refused (SELF_ANSWER). Left out: a caller
   * known to be outside every run (the desktop host, the browser server).
   */
  caller?: CallerIdentity;
}

/** The answer's own fields, checked before its transaction (a bad one writes nothing, not even a rejection). */
export function checkAnswerInput(input: AnswerInput): void {
  requireText(input.idempotencyKey, 'idempotencyKey', 'key');
  requirePayloadWithin(input.payload, 'The answer');
  if (!Number.isInteger(input.interactionRevision)) {
    throw new RunwardenError('VALIDATION', 'interactionRevision must be an integer.');
  }
}

function recordSubmission(
  ctx: WritableDB,
  row: InteractionRow,
  input: AnswerInput,
  outcome: 'accepted' | 'rejected' | 'adopted',
  reason: string | null,
  now: number,
): void {
  ctx
    .prep(
      `INSERT INTO submissions (interaction_id, idempotency_key, interaction_revision, payload_json, outcome, reason,
         actor_id, surface, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.id,
      input.idempotencyKey,
      input.interactionRevision,
      toJson(input.payload),
      outcome,
      reason,
      input.actor.id,
      input.actor.surface,
      now,
    );
}

function refusal(
  ctx: WritableDB,
  row: InteractionRow,
  input: AnswerInput,
  now: number,
): RunwardenError | null {
  const fresh = toInteraction(row);
  if (!OPEN_INTERACTION_STATUSES.includes(row.status)) {
    return new RunwardenError('CONFLICT', `This question is no longer open (it is ${row.status}).`, {
      fresh,
    });
  }
  if (row.revision !== input.interactionRevision) {
    return new RunwardenError(
      'STALE_VIEW',
      'This question changed since you looked at it; review it and answer again.',
      {
        fresh,
        recovery: { kind: 'refresh' },
      },
    );
  }
  const run = loadRunRow(ctx, row.run_id);
  if (isTerminalRunStatus(run.status))
    return new RunwardenError('CONFLICT', `Run ${run.id} is already ${run.status}.`, { fresh });
  if (run.paused === 1) {
    return new RunwardenError('CONFLICT', `Run ${run.id} is paused; resume it before answering.`, { fresh });
  }
  const unheld = nothingWouldAct(ctx, run.id, now);
  if (unheld !== null) return unheld;
  const issues = responseIssues(fresh, input.payload);
  if (issues.length > 0) {
    return new RunwardenError('VALIDATION', `The answer does not fit the question: ${issues.join(' ')}`, {
      issues,
    });
  }
  return null;
}

/**
 * An answer goes to something that will act on it (docs/LIVENESS.md#an-answer-goes-to-something-that-acts-on-it):
 * a run whose supervisor is gone — orphaned or stale, exactly when the window offers no Answer — has
 * nothing that would read it and carry the run on, so the answer is refused with the next step. A run
 * nobody holds (parked, queued) is answered: the runner that takes it next reads the answer.
 */
function nothingWouldAct(ctx: WritableDB, runId: string, now: number): RunwardenError | null {
  const lease = toLease(loadLeaseRow(ctx, runId));
  const liveness = ctx.liveness.judge(lease);
  const run = toRun(loadRunRow(ctx, runId));
  const runner = `its runner ${lease.ownerId ?? ''}`.trimEnd();
  if (isOrphaned(lease, liveness)) {
    return new RunwardenError(
      'CONFLICT',
      `Nothing would act on this answer: run ${runId} is orphaned (${runner} is gone, so the run cannot go on; what its command left running would not read it either). Your answer was not recorded. Stop what is left and cancel the run: runwarden cancel --stop-command ${runId}`,
      { recovery: { kind: 'stopCommand', runId } },
    );
  }
  if (isLeaseStale(run, lease, now, liveness)) {
    const how = liveness.supervisor === 'gone' ? 'is gone' : 'stopped heartbeating';
    return new RunwardenError(
      'CONFLICT',
      `Nothing would act on this answer: run ${runId} is stale (${runner} ${how}, so nothing is left to read it). Your answer was not recorded. Cancel the run, then retry it: runwarden cancel ${runId}`,
    );
  }
  return null;
}

/**
 * A person's answer, inside the caller's write transaction: adopted when the same submission was already
 * accepted; otherwise checked and compare-and-set on the interaction revision. A refusal is returned, not
 * thrown, so its transaction commits the rejected submission and nothing else.
 */
export function answerInteraction(
  ctx: WritableDB,
  interactionId: string,
  input: AnswerInput,
  now: number,
): AnswerResult | RunwardenError {
  const row = loadInteractionRow(ctx, interactionId);
  // Only a person outside the run answers; refused before anything is written (docs/LIVENESS.md#only-a-person-outside-the-run-answers).
  const caller = checkCaller(ctx, row, input.caller ?? OUTSIDE_EVERY_RUN);
  if (caller.refusal !== null) return caller.refusal;
  const prior = ctx
    .prep(
      `SELECT payload_json FROM submissions WHERE interaction_id = ? AND idempotency_key = ? AND outcome = 'accepted' LIMIT 1`,
    )
    .get(row.id, input.idempotencyKey) as { payload_json: string | null } | undefined;
  if (prior !== undefined) {
    // The same submission again (a retry after a lost reply) is adopted; the same key with another answer
    // is not the same submission, and must not be reported as recorded.
    if (prior.payload_json !== toJson(input.payload)) {
      const mismatch = new RunwardenError(
        'CONFLICT',
        'This question was already answered with a different answer under the same submission key.',
        { fresh: toInteraction(row) },
      );
      recordSubmission(ctx, row, input, 'rejected', `${mismatch.code}: ${mismatch.message}`, now);
      return mismatch;
    }
    recordSubmission(ctx, row, input, 'adopted', null, now);
    return { outcome: 'adopted', interaction: toInteraction(row) };
  }
  const refused = nobodyWaitingRefusal(ctx, row, input.actor, now) ?? refusal(ctx, row, input, now);
  if (refused !== null) {
    recordSubmission(ctx, row, input, 'rejected', `${refused.code}: ${refused.message}`, now);
    return refused;
  }
  ctx
    .prep(
      `UPDATE interactions SET status = 'settled', response_json = ?, provenance = 'human', revision = revision + 1,
         settled_at = ?, presenter_id = NULL, presenter_expires_at = NULL WHERE id = ?`,
    )
    .run(toJson(input.payload), now, row.id);
  resolveQuestionNotifications(ctx, [row.id], now);
  recordSubmission(ctx, row, input, 'accepted', null, now);
  ctx
    .prep(`UPDATE runs SET status_detail = ? WHERE id = ? AND status = 'waiting'`)
    .run(`Answered: ${row.title}`, row.run_id);
  commitRun(ctx, row.run_id, now, {
    type: 'interaction.answered',
    actor: actorOf(input.actor),
    payload: {
      interactionId: row.id,
      idempotencyKey: input.idempotencyKey,
      // Given by a process the self-answer check could not place (docs/LIVENESS.md#what-cannot-be-told).
      ...(caller.unchecked !== null && { callerUnchecked: caller.unchecked }),
    },
  });
  return {
    outcome: 'accepted',
    interaction: toInteraction(loadInteractionRow(ctx, row.id)),
    ...(caller.unchecked !== null && { callerUnchecked: caller.unchecked }),
  };
}

/** Claims a question for one presenter (a dialog showing it) for `ttlMs`; no run revision change. */
export function presentInteraction(
  ctx: WritableDB,
  interactionId: string,
  presenterId: string,
  ttlMs: number,
  now: number,
): Interaction {
  requireText(presenterId, 'presenterId');
  const row = loadInteractionRow(ctx, interactionId);
  const free =
    row.status === 'pending' ||
    (row.status === 'presenting' &&
      (row.presenter_id === presenterId ||
        (row.presenter_expires_at !== null && row.presenter_expires_at <= now)));
  if (!free) {
    throw new RunwardenError(
      'CONFLICT',
      `This question is ${row.status === 'presenting' ? 'being answered elsewhere' : row.status}.`,
      { fresh: toInteraction(row) },
    );
  }
  ctx
    .prep(
      `UPDATE interactions SET status = 'presenting', presenter_id = ?, presenter_expires_at = ? WHERE id = ?`,
    )
    .run(presenterId, now + ttlMs, interactionId);
  return toInteraction(loadInteractionRow(ctx, interactionId));
}
