/** Runner-side run lifecycle (SPEC §4): reserve, claim, running, progress, park, finish, release. */
import type { Actor, CommandSpec, ParkCode, Run } from '../../shared/domain';
import { isTerminal } from '../../shared/display-status';
import { RunwardenError } from '../../shared/errors';
import { hashToken, newRunId, newToken } from './ids';
import { canonicalProjectPath, filterPath, upsertProject } from './projects';
import { toRun, toJson, type LeaseRow } from './rows';
import {
  actorOf,
  commitRun,
  conflict,
  fence,
  loadLeaseRow,
  loadQueueRow,
  loadRunRow,
  loadSnapshot,
  releaseLease,
  runnerActor,
  type ClaimRef,
  type EventActor,
} from './run-state';
import type {
  ClaimNextOptions,
  ClaimResult,
  ClaimRunOptions,
  OwnerInfo,
  ReserveRunInput,
} from './store-types';
import type { StoreContext } from './store-context';

const PARK_CODES: readonly ParkCode[] = ['sourceChanged', 'effectAmbiguous', 'paused', 'runnerExited'];

export function requireText(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RunwardenError('VALIDATION', `${what} must be a non-empty string.`);
  }
  return value;
}

function requireLeaseMs(leaseMs: unknown): number {
  if (typeof leaseMs !== 'number' || !Number.isInteger(leaseMs) || leaseMs <= 0) {
    throw new RunwardenError('VALIDATION', 'leaseMs must be a positive integer (milliseconds).');
  }
  return leaseMs;
}

function checkCommand(command: CommandSpec | null | undefined): CommandSpec | null {
  if (command === undefined || command === null) return null;
  if (
    !Array.isArray(command.argv) ||
    command.argv.length === 0 ||
    !command.argv.every((a) => typeof a === 'string') ||
    typeof command.cwd !== 'string'
  ) {
    throw new RunwardenError('VALIDATION', 'command must be { argv: string[] (non-empty), cwd: string }.');
  }
  return { argv: [...command.argv], cwd: command.cwd };
}

/** Inserts a new run, its queue entry and its ownerless lease; runs inside the caller's transaction. */
export function insertRun(
  ctx: StoreContext,
  now: number,
  canonicalPath: string,
  input: ReserveRunInput,
  actor: EventActor,
  payload: Record<string, unknown> = {},
): string {
  const projectId = upsertProject(ctx, canonicalPath, now);
  if (input.parentRunId !== undefined && input.parentRunId !== null) loadRunRow(ctx, input.parentRunId);
  const id = newRunId(now);
  const mode = input.executionMode ?? 'interactive';
  ctx
    .prep(
      `INSERT INTO runs (id, project_id, workflow, title, status, execution_mode, origin_session, parent_run_id, lineage,
         input_json, output_json, command_json, request_key, revision, display_base, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, 'null', ?, ?, 0, 'queued', ?, ?)`,
    )
    .run(
      id,
      projectId,
      input.workflow,
      input.title,
      mode,
      mode === 'headless' ? null : (input.originSession ?? null),
      input.parentRunId ?? null,
      input.lineage ?? null,
      toJson(input.input),
      input.command ? toJson(input.command) : null,
      input.requestKey ?? null,
      now,
      now,
    );
  ctx
    .prep(`INSERT INTO queue_entries (run_id, status, available_at, updated_at) VALUES (?, 'queued', ?, ?)`)
    .run(id, input.availableAt ?? now, now);
  ctx.prep(`INSERT INTO leases (name, run_id, generation) VALUES (?, ?, 0)`).run(`run:${id}`, id);
  commitRun(ctx, id, now, {
    type: 'run.reserved',
    actor,
    payload: {
      workflow: input.workflow,
      title: input.title,
      requestKey: input.requestKey ?? null,
      ...payload,
    },
  });
  return id;
}

export function validateReserveInput(input: ReserveRunInput): void {
  requireText(input.workflow, 'workflow');
  requireText(input.title, 'title');
  checkCommand(input.command);
  if (
    input.executionMode !== undefined &&
    input.executionMode !== 'interactive' &&
    input.executionMode !== 'headless'
  ) {
    throw new RunwardenError('VALIDATION', 'executionMode must be interactive or headless.');
  }
  if (input.availableAt !== undefined && !Number.isFinite(input.availableAt)) {
    throw new RunwardenError('VALIDATION', 'availableAt must be epoch milliseconds.');
  }
  if (
    input.lineage !== undefined &&
    input.lineage !== null &&
    input.lineage !== 'retry' &&
    input.lineage !== 'continuation'
  ) {
    throw new RunwardenError('VALIDATION', 'lineage must be retry or continuation.');
  }
}

/** Reserves a run (idempotent by requestKey: the same key returns the same run). */
export function reserveRun(ctx: StoreContext, input: ReserveRunInput, actor: Actor, now: number): Run {
  validateReserveInput(input);
  const canonical = canonicalProjectPath(input.projectPath);
  if (input.requestKey !== undefined && input.requestKey !== null) {
    const existing = ctx.prep(`SELECT id FROM runs WHERE request_key = ?`).get(input.requestKey) as
      { id: string } | undefined;
    if (existing !== undefined) return toRun(loadRunRow(ctx, existing.id));
  }
  const id = insertRun(ctx, now, canonical, input, actorOf(actor));
  return toRun(loadRunRow(ctx, id));
}

function takeLease(ctx: StoreContext, runId: string, owner: OwnerInfo, leaseMs: number, now: number) {
  const token = newToken();
  const expiresAt = now + leaseMs;
  const row = ctx
    .prep(
      `UPDATE leases SET generation = generation + 1, owner_type = ?, owner_id = ?, token_hash = ?, owner_pid = ?,
         owner_hostname = ?, owner_start_id = ?, acquired_at = ?, heartbeat_at = ?, expires_at = ?
       WHERE run_id = ? RETURNING generation`,
    )
    .get(
      owner.ownerType,
      requireText(owner.ownerId, 'ownerId'),
      hashToken(token),
      owner.pid,
      requireText(owner.hostname, 'hostname'),
      owner.startId ?? null,
      now,
      now,
      expiresAt,
      runId,
    ) as { generation: number };
  return { generation: row.generation, token, expiresAt };
}

function isLiveForOther(lease: LeaseRow, owner: OwnerInfo, now: number): boolean {
  if (lease.owner_type === null || lease.expires_at === null || lease.expires_at <= now) return false;
  return !(lease.owner_type === owner.ownerType && lease.owner_id === owner.ownerId);
}

/** The claim of SPEC §3, inside the caller's transaction. */
export function claimInTx(
  ctx: StoreContext,
  runId: string,
  options: ClaimRunOptions,
  now: number,
): ClaimResult {
  const leaseMs = requireLeaseMs(options.leaseMs);
  const row = loadRunRow(ctx, runId);
  if (isTerminal(row))
    throw conflict(ctx, runId, `Run ${runId} is already ${row.status}; it cannot be claimed.`);
  const queue = loadQueueRow(ctx, runId);
  if (queue.status === 'done' || queue.status === 'failed' || queue.status === 'cancelled') {
    throw conflict(ctx, runId, `Run ${runId} has a finished queue entry (${queue.status}).`);
  }
  const lease = loadLeaseRow(ctx, runId);
  if (isLiveForOther(lease, options, now)) {
    throw new RunwardenError(
      'LIVE_OWNER',
      `Run ${runId} is held by ${lease.owner_type} ${lease.owner_id} until ${new Date(lease.expires_at ?? 0).toISOString()}.`,
      { recovery: { kind: 'requestCancel', runId } },
    );
  }
  if (options.control !== true) {
    if (row.open_interactions > 0) {
      throw conflict(
        ctx,
        runId,
        `Run ${runId} is waiting for an answer; it cannot be claimed until it is answered.`,
      );
    }
    if (row.paused === 1) throw conflict(ctx, runId, `Run ${runId} is paused; resume it first.`);
    // SPEC §4: only a person's resume lets these run again (with "anyway", or after resolving every effect).
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
  // The previous owner's in-flight attempts are over: the new owner starts fresh.
  ctx
    .prep(
      `UPDATE attempts SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status IN ('pending','running','waiting')`,
    )
    .run(now, runId);
  // Effects it left applying may or may not have happened: a person decides (as in the cancel cascade).
  ctx
    .prep(`UPDATE effects SET status = 'ambiguous', updated_at = ? WHERE run_id = ? AND status = 'applying'`)
    .run(now, runId);
  const taken = takeLease(ctx, runId, options, leaseMs, now);
  if (options.keepQueueStatus !== true) {
    ctx
      .prep(
        `UPDATE queue_entries SET status = 'starting', error_code = NULL, error_detail = NULL, updated_at = ? WHERE run_id = ?`,
      )
      .run(now, runId);
    ctx.prep(`UPDATE runs SET status = 'running', status_detail = NULL WHERE id = ?`).run(runId);
  }
  commitRun(ctx, runId, now, {
    type: 'run.claimed',
    actor: { type: options.ownerType, id: options.ownerId, surface: 'sdk' },
    leaseGeneration: taken.generation,
    payload: {
      ownerType: options.ownerType,
      ownerId: options.ownerId,
      pid: options.pid,
      hostname: options.hostname,
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

/** Oldest claimable first; skips paused, parked for a decision, open questions, held leases (SPEC §4). */
export const CLAIM_NEXT_SQL = `SELECT q.run_id AS id FROM queue_entries q
         JOIN runs r ON r.id = q.run_id
         JOIN leases l ON l.run_id = q.run_id
       WHERE q.status IN ('queued', 'parked') AND q.available_at <= @now
         AND (q.status = 'queued' OR q.error_code IN ('runnerExited', 'interactionExpired'))
         AND r.paused = 0 AND r.open_interactions = 0 AND l.owner_type IS NULL
         AND (@projects IS NULL OR r.project_id IN
               (SELECT id FROM projects WHERE canonical_path IN (SELECT value FROM json_each(@projects))))
         AND (@exclude IS NULL OR r.id NOT IN (SELECT value FROM json_each(@exclude)))
         AND (@requireCommand = 0 OR r.command_json IS NOT NULL)
       ORDER BY q.available_at, q.run_id
       LIMIT 1`;

/** Oldest claimable run first (SPEC §4), or null. */
export function claimNextInTx(ctx: StoreContext, options: ClaimNextOptions, now: number): ClaimResult | null {
  const projects =
    options.projectPaths === undefined ? null : JSON.stringify(options.projectPaths.map(filterPath));
  const exclude = options.excludeIds === undefined ? null : JSON.stringify(options.excludeIds);
  const row = ctx
    .prep(CLAIM_NEXT_SQL)
    .get({ now, projects, exclude, requireCommand: options.requireCommand === true ? 1 : 0 }) as
    { id: string } | undefined;
  if (row === undefined) return null;
  return claimInTx(ctx, row.id, options, now);
}

export function markRunning(ctx: StoreContext, claim: ClaimRef, now: number): Run {
  const lease = fence(ctx, claim, now);
  ctx.prep(`UPDATE runs SET status = 'running' WHERE id = ?`).run(claim.runId);
  ctx
    .prep(`UPDATE queue_entries SET status = 'running', error_code = NULL, updated_at = ? WHERE run_id = ?`)
    .run(now, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.running',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

export function setProgress(ctx: StoreContext, claim: ClaimRef, detail: string, now: number): Run {
  if (typeof detail !== 'string') throw new RunwardenError('VALIDATION', 'Progress detail must be a string.');
  const lease = fence(ctx, claim, now);
  ctx.prep(`UPDATE runs SET status_detail = ? WHERE id = ?`).run(detail, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.progress',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: { detail },
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

/** park(code) of SPEC §4; the lease is released in the same transaction. */
export function park(
  ctx: StoreContext,
  claim: ClaimRef,
  code: ParkCode,
  detail: string | undefined,
  now: number,
): Run {
  if (!PARK_CODES.includes(code)) {
    throw new RunwardenError('VALIDATION', `Park code must be one of ${PARK_CODES.join(', ')}.`);
  }
  const lease = fence(ctx, claim, now);
  const run = loadRunRow(ctx, claim.runId);
  if (code === 'effectAmbiguous') {
    ctx
      .prep(`UPDATE attempts SET status = 'waiting' WHERE run_id = ? AND status IN ('pending', 'running')`)
      .run(claim.runId);
    ctx.prep(`UPDATE runs SET status = 'waiting' WHERE id = ?`).run(claim.runId);
  } else {
    ctx
      .prep(
        `UPDATE attempts SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status IN ('pending','running','waiting')`,
      )
      .run(now, claim.runId);
    if (run.status === 'queued') ctx.prep(`UPDATE runs SET status = 'running' WHERE id = ?`).run(claim.runId);
  }
  if (code === 'paused')
    ctx.prep(`UPDATE runs SET paused = 1, pause_requested = 0 WHERE id = ?`).run(claim.runId);
  ctx
    .prep(
      `UPDATE queue_entries SET status = 'parked', error_code = ?, error_detail = ?,
         consecutive_errors = consecutive_errors + ?, updated_at = ? WHERE run_id = ?`,
    )
    .run(code, detail ?? null, code === 'runnerExited' ? 1 : 0, now, claim.runId);
  releaseLease(ctx, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.parked',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: { code, detail: detail ?? null },
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

type Ending = 'completed' | 'failed' | 'timed_out';

/** complete / fail / time out: the run ends, the lease is released, leftovers are closed. */
export function finishRun(
  ctx: StoreContext,
  claim: ClaimRef,
  ending: Ending,
  details: { output?: unknown; error?: string },
  now: number,
): Run {
  const lease = fence(ctx, claim, now);
  const attemptStatus = ending;
  ctx
    .prep(
      `UPDATE attempts SET status = ?, finished_at = ? WHERE run_id = ? AND status IN ('pending','running','waiting')`,
    )
    .run(attemptStatus, now, claim.runId);
  ctx
    .prep(
      `UPDATE interactions SET status = 'cancelled', revision = revision + 1, settled_at = ?, presenter_id = NULL,
         presenter_expires_at = NULL, provenance = 'explicit_cancel'
       WHERE run_id = ? AND status IN ('pending', 'presenting')`,
    )
    .run(now, claim.runId);
  ctx
    .prep(
      `UPDATE runs SET status = ?, output_json = ?, error = ?, finished_at = ?, paused = 0, cancel_requested = 0,
         pause_requested = 0 WHERE id = ?`,
    )
    .run(ending, toJson(details.output), details.error ?? null, now, claim.runId);
  const queueStatus = ending === 'completed' ? 'done' : 'failed';
  const errorCode = ending === 'completed' ? null : ending === 'failed' ? 'failed' : 'timedOut';
  ctx
    .prep(
      `UPDATE queue_entries SET status = ?, error_code = ?, error_detail = ?, updated_at = ? WHERE run_id = ?`,
    )
    .run(queueStatus, errorCode, details.error ?? null, now, claim.runId);
  releaseLease(ctx, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: `run.${ending}`,
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: ending === 'failed' ? { error: details.error ?? null } : {},
  });
  return toRun(loadRunRow(ctx, claim.runId));
}

/** Gives the run back to the queue (queued, available now), lease ownerless. */
export function releaseRun(ctx: StoreContext, claim: ClaimRef, now: number): Run {
  const lease = fence(ctx, claim, now);
  const run = loadRunRow(ctx, claim.runId);
  if (run.status === 'waiting' || run.open_interactions > 0) {
    throw conflict(
      ctx,
      claim.runId,
      `Run ${claim.runId} is waiting (answer or effect); park it instead of releasing.`,
    );
  }
  ctx
    .prep(
      `UPDATE attempts SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status IN ('pending','running','waiting')`,
    )
    .run(now, claim.runId);
  ctx.prep(`UPDATE runs SET status = 'queued', status_detail = NULL WHERE id = ?`).run(claim.runId);
  ctx
    .prep(
      `UPDATE queue_entries SET status = 'queued', available_at = ?, error_code = NULL, error_detail = NULL, updated_at = ?
       WHERE run_id = ?`,
    )
    .run(now, now, claim.runId);
  releaseLease(ctx, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.released',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
  });
  return toRun(loadRunRow(ctx, claim.runId));
}
