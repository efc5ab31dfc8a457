/**
 * A runner's side-effect transitions: reserve → applying → applied | rejected | ambiguous. A person resolves
 * an ambiguous one (person-commands.ts, resolveEffect).
 */
import type { Actor, Effect } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { activeAttempt } from './attempt-rows';
import { ambiguousPayload, loadEffectRow } from './effect-rows';
import { toEffect, type EffectRow, type LeaseRow } from './row-mapping';
import { actorOf, commitRun, conflict, fence, runnerActor, type ClaimRef } from './run-state';
import { requireText } from './input-checks';
import { lineageEffect } from './run-lineage';
import { outsideRun } from './run-membership';
import { tellParkedSiblings } from './parked-siblings';
import type { AncestorProcess } from './process-identity';
import type { EffectPerformer, EffectProcess, ReserveEffectInput } from './store-types';
import type { ReadableDB, WritableDB } from './store-context';

function ownEffect(ctx: WritableDB, claim: ClaimRef, effectId: number): EffectRow {
  const row = loadEffectRow(ctx, effectId);
  if (row.run_id !== claim.runId) {
    throw new RunwardenError('NOT_FOUND', `Effect ${effectId} does not belong to run ${claim.runId}.`);
  }
  return row;
}

/**
 * Reserves an effect; the same (run, idempotency key) returns the existing one without a write, and a key
 * another run of the lineage applied comes back already applied. A key whose outcome another run of the
 * lineage does not know yet (applying or ambiguous there) returns that run's effect, without a write: the
 * caller must not perform it, and parks (docs/LIVENESS.md#unknown-outcomes).
 */
export function reserveEffect(
  ctx: WritableDB,
  claim: ClaimRef,
  input: ReserveEffectInput,
  now: number,
): Effect {
  requireText(input.type, 'type', 'name');
  requireText(input.idempotencyKey, 'idempotencyKey', 'key');
  requireText(input.summary, 'summary', 'summary');
  const lease = fence(ctx, claim, now);
  const existing = ctx
    .prep(`SELECT * FROM effects WHERE run_id = ? AND idempotency_key = ?`)
    .get(claim.runId, input.idempotencyKey) as EffectRow | undefined;
  if (existing !== undefined) return toEffect(existing);
  const attemptId = input.attemptId ?? activeAttempt(ctx, claim.runId)?.id ?? null;
  const inLineage = lineageEffect(ctx, claim.runId, input.idempotencyKey);
  if (inLineage?.outcome === 'unknown') return toEffect(inLineage.row);
  const carried = inLineage?.row;
  if (carried !== undefined) {
    // docs/LIVENESS.md#unknown-outcomes: a retry never applies again what an earlier run of its lineage applied (or a person said
    // happened): the key carries over, already applied.
    const result = ctx
      .prep(
        `INSERT INTO effects (run_id, attempt_id, type, idempotency_key, summary, status, resolution, resolution_note,
           resolved_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'applied', ?, ?, ?, ?, ?)`,
      )
      .run(
        claim.runId,
        attemptId,
        input.type,
        input.idempotencyKey,
        input.summary,
        carried.resolution,
        `Applied by run ${carried.run_id} of this run's lineage; not applied again.`,
        carried.resolved_by,
        now,
        now,
      );
    const id = Number(result.lastInsertRowid);
    commitRun(ctx, claim.runId, now, {
      type: 'effect.carried',
      actor: runnerActor(lease, claim),
      leaseGeneration: lease.generation,
      payload: {
        effectId: id,
        idempotencyKey: input.idempotencyKey,
        fromRunId: carried.run_id,
        fromEffectId: carried.id,
      },
    });
    return toEffect(loadEffectRow(ctx, id));
  }
  const result = ctx
    .prep(
      `INSERT INTO effects (run_id, attempt_id, type, idempotency_key, summary, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
    )
    .run(claim.runId, attemptId, input.type, input.idempotencyKey, input.summary, now, now);
  const id = Number(result.lastInsertRowid);
  commitRun(ctx, claim.runId, now, {
    type: 'effect.reserved',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { effectId: id, type: input.type, idempotencyKey: input.idempotencyKey },
  });
  return toEffect(loadEffectRow(ctx, id));
}

/**
 * pending → applying, recording who performs it: one process, the run itself (`'run'`: its supervisor as
 * the lease names it now), or nobody (null: only the run's end or a takeover settles it).
 */
export function beginEffect(
  ctx: WritableDB,
  claim: ClaimRef,
  effectId: number,
  performer: EffectPerformer | null,
  now: number,
): Effect {
  if (performer !== null && performer !== 'run' && (!Number.isInteger(performer.pid) || performer.pid <= 0)) {
    throw new RunwardenError('VALIDATION', 'An effect process pid must be a positive integer.');
  }
  const lease = fence(ctx, claim, now);
  const row = ownEffect(ctx, claim, effectId);
  if (row.status !== 'pending') {
    throw conflict(ctx, claim.runId, `Effect ${effectId} is ${row.status}; only a pending effect can begin.`);
  }
  const process = performer === 'run' ? supervisorOf(lease) : performer;
  ctx
    .prep(
      `UPDATE effects SET status = 'applying', attempt_count = attempt_count + 1, updated_at = @now,
         process_pid = @pid, process_start_id = @startId, process_hostname = @hostname,
         process_boot_id = @bootId, process_pid_ns = @pidNs, performer = @performer
       WHERE id = @effectId`,
    )
    .run({
      now,
      effectId,
      pid: process?.pid ?? null,
      startId: process?.startId ?? null,
      hostname: process?.hostname ?? null,
      bootId: process?.bootId ?? null,
      pidNs: process?.pidNs ?? null,
      performer: performer === 'run' ? 'run' : null,
    });
  commitRun(ctx, claim.runId, now, {
    type: 'effect.applying',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: {
      effectId,
      ...(performer === 'run' ? { performer: 'run' } : {}),
      ...(process === null ? {} : { pid: process.pid }),
    },
  });
  return toEffect(loadEffectRow(ctx, effectId));
}

/**
 * The run as an effect's performer: its supervisor, as the claim's lease records it. While the supervisor
 * lives it answers for its command (and ends the run, turning the effect ambiguous, when the command dies);
 * once it is verifiably gone, nobody will say how the effect went. Null when the lease names no process.
 */
function supervisorOf(lease: LeaseRow): EffectProcess | null {
  if (lease.owner_pid === null || lease.owner_hostname === null) return null;
  return {
    pid: lease.owner_pid,
    startId: lease.owner_start_id,
    hostname: lease.owner_hostname,
    bootId: lease.owner_boot_id ?? null,
    pidNs: lease.owner_pid_ns ?? null,
  };
}

export type EffectSettlement = 'applied' | 'rejected' | 'ambiguous';

/**
 * applying → applied | rejected | ambiguous, by whoever holds the run's claim. `caller`, when given (the
 * CLI's `effect end`), is the settling process's ancestry: a process that carries the claim but is not of
 * the run (run-membership.ts) is refused with FORBIDDEN and nothing changes.
 */
export function settleEffect(
  ctx: WritableDB,
  claim: ClaimRef,
  effectId: number,
  status: EffectSettlement,
  now: number,
  caller?: readonly AncestorProcess[],
): Effect {
  if (status !== 'applied' && status !== 'rejected' && status !== 'ambiguous') {
    throw new RunwardenError('VALIDATION', 'An effect settles as applied, rejected or ambiguous.');
  }
  const lease = fence(ctx, claim, now);
  const row = ownEffect(ctx, claim, effectId);
  const outside = caller === undefined ? null : outsideRun(ctx, claim.runId, caller);
  if (outside !== null) {
    throw new RunwardenError(
      'FORBIDDEN',
      `Effect ${effectId} was not settled: ${outside}. Say how it went from a process the run started. Nothing was changed.`,
    );
  }
  if (row.status !== 'applying') {
    throw conflict(
      ctx,
      claim.runId,
      `Effect ${effectId} is ${row.status}; only an applying effect can settle.`,
    );
  }
  ctx.prep(`UPDATE effects SET status = ?, updated_at = ? WHERE id = ?`).run(status, now, effectId);
  commitRun(ctx, claim.runId, now, {
    type: `effect.${status}`,
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { effectId },
  });
  if (status !== 'ambiguous') {
    const known = status === 'applied';
    tellParkedSiblings(ctx, claim.runId, row.idempotency_key, known, runnerActor(lease, claim), now);
  }
  return toEffect(loadEffectRow(ctx, effectId));
}

interface ApplyingProcessRow {
  id: number;
  run_id: string;
  process_pid: number;
  process_start_id: string | null;
  process_hostname: string | null;
  process_boot_id: string | null;
  process_pid_ns: string | null;
  performer: 'run' | null;
}

const APPLYING_PROCESS_COLUMNS = `id, run_id, process_pid, process_start_id, process_hostname, process_boot_id,
  process_pid_ns, performer`;

/** The liveness check's verdict on an effect's recorded process: the same rules as a lease owner's. */
function processGone(ctx: ReadableDB, row: ApplyingProcessRow): boolean {
  return (
    ctx.liveness.judge({
      ownerType: 'runner',
      ownerPid: row.process_pid,
      ownerHostname: row.process_hostname,
      ownerStartId: row.process_start_id,
      ownerBootId: row.process_boot_id,
      ownerPidNs: row.process_pid_ns,
      commandPid: null,
      commandPgid: null,
      commandStartId: null,
    }).supervisor === 'gone'
  );
}

/**
 * Effects of `runId` still applying whose performer is verifiably gone (a process killed mid-command, a
 * program that began it with `--performer-pid` and exited without `effect end`, the run's supervisor). A
 * read: a supervisor asks it often, and writes only when it finds one (indexed by effects_applying).
 */
export function goneApplyingEffects(ctx: ReadableDB, runId: string): number[] {
  return goneRows(ctx, runId).map((row) => row.id);
}

function goneRows(ctx: ReadableDB, runId: string): ApplyingProcessRow[] {
  const rows = ctx
    .prep(
      `SELECT ${APPLYING_PROCESS_COLUMNS} FROM effects
       WHERE run_id = ? AND status = 'applying' AND process_pid IS NOT NULL`,
    )
    .all(runId) as ApplyingProcessRow[];
  return rows.filter((row) => processGone(ctx, row));
}

/** Why effects whose performer is gone are ambiguous, in the words of the run's timeline. */
function goneWhy(rows: readonly ApplyingProcessRow[]): string {
  if (rows.length > 0 && rows.every((row) => row.performer === 'run')) {
    return 'but the run\'s supervisor ended before "effect end" said how it went (killed, or its machine went down)';
  }
  return 'but its process ended without saying how it went (killed, or it exited before "effect end")';
}

/**
 * The run's supervisor saw an effect's performer gone mid-command: the effect becomes ambiguous at once,
 * not only when the run ends (docs/LIVENESS.md#unknown-outcomes). Fenced; re-checked inside the
 * transaction. Returns the ids it changed.
 */
export function ambiguateGoneEffects(ctx: WritableDB, claim: ClaimRef, now: number): number[] {
  const lease = fence(ctx, claim, now);
  const rows = goneRows(ctx, claim.runId);
  const ids = markGone(
    ctx,
    rows.map((row) => row.id),
    now,
  );
  if (ids.length > 0) {
    commitRun(ctx, claim.runId, now, {
      type: 'effect.ambiguous',
      actor: runnerActor(lease, claim),
      leaseGeneration: lease.generation,
      payload: { effectId: ids[0], ...ambiguousPayload(ids, goneWhy(rows)) },
    });
  }
  return ids;
}

/**
 * The sweeper's side of the same check, for every run whose supervisor cannot look (it died too, or is a
 * program that does not ask): the window of applying effects recorded on this host after `afterId`, at most
 * `limit` looked at (`goneEffectsOnHost`). Each run's changes are one commit. Returns how many effects became ambiguous.
 */
export function ambiguateGoneEffectsOnHost(
  ctx: WritableDB,
  actor: Actor,
  limit: number,
  afterId: number,
  now: number,
): number {
  const byRun = new Map<string, ApplyingProcessRow[]>();
  for (const row of goneOnHost(ctx, limit, afterId).gone)
    byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), row]);
  let changed = 0;
  for (const [runId, rows] of byRun) {
    const ids = markGone(
      ctx,
      rows.map((row) => row.id),
      now,
    );
    if (ids.length === 0) continue;
    changed += ids.length;
    commitRun(ctx, runId, now, {
      type: 'effect.ambiguous',
      actor: actorOf(actor),
      payload: { effectId: ids[0], ...ambiguousPayload(ids, goneWhy(rows)) },
    });
  }
  return changed;
}

/**
 * One window of the sweeper's look at applying effects recorded on this host: up to `limit` of them after
 * effect `afterId`, in id order, and which of those the liveness check finds gone. `next` is where the next
 * window starts: after the last effect looked at, or 0 (the start again) once the window came back short, so
 * every applying effect is looked at within a few ticks however many are alive before it.
 */
export interface HostEffectsWindow {
  gone: number;
  next: number;
}

/** How many applying effects in this window `ambiguateGoneEffectsOnHost` would change now, and the next window. */
export function goneEffectsOnHost(ctx: ReadableDB, limit: number, afterId: number): HostEffectsWindow {
  const { gone, next } = goneOnHost(ctx, limit, afterId);
  return { gone: gone.length, next };
}

function goneOnHost(
  ctx: ReadableDB,
  limit: number,
  afterId: number,
): { gone: ApplyingProcessRow[]; next: number } {
  const rows = ctx
    .prep(
      `SELECT ${APPLYING_PROCESS_COLUMNS} FROM effects INDEXED BY effects_applying_on_host
       WHERE status = 'applying' AND process_pid IS NOT NULL AND process_hostname = ? AND id > ?
       ORDER BY id LIMIT ?`,
    )
    .all(ctx.liveness.here.hostname, afterId, limit) as ApplyingProcessRow[];
  const next = rows.length < limit ? 0 : (rows.at(-1)?.id ?? 0);
  return { gone: rows.filter((row) => processGone(ctx, row)), next };
}

function markGone(ctx: WritableDB, ids: readonly number[], now: number): number[] {
  const mark = ctx.prep(
    `UPDATE effects SET status = 'ambiguous', updated_at = ? WHERE id = ? AND status = 'applying' RETURNING id`,
  );
  return ids.filter((id) => mark.get(now, id) !== undefined);
}
