/**
 * A runner's side-effect transitions: reserve → applying → applied | rejected | ambiguous. A person resolves
 * an ambiguous one (person-commands.ts, resolveEffect).
 */
import type { Actor, Effect } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { activeAttempt } from './attempt-rows';
import { ambiguousPayload, loadEffectRow } from './effect-rows';
import { toEffect, type EffectRow } from './row-mapping';
import { actorOf, commitRun, conflict, fence, runnerActor, type ClaimRef } from './run-state';
import { requireText } from './input-checks';
import { lineageEffect } from './run-lineage';
import type { EffectProcess, ReserveEffectInput } from './store-types';
import type { StoreContext } from './store-context';

function ownEffect(ctx: StoreContext, claim: ClaimRef, effectId: number): EffectRow {
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
  ctx: StoreContext,
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

export function beginEffect(
  ctx: StoreContext,
  claim: ClaimRef,
  effectId: number,
  process: EffectProcess | null,
  now: number,
): Effect {
  if (process !== null && (!Number.isInteger(process.pid) || process.pid <= 0)) {
    throw new RunwardenError('VALIDATION', 'An effect process pid must be a positive integer.');
  }
  const lease = fence(ctx, claim, now);
  const row = ownEffect(ctx, claim, effectId);
  if (row.status !== 'pending') {
    throw conflict(ctx, claim.runId, `Effect ${effectId} is ${row.status}; only a pending effect can begin.`);
  }
  ctx
    .prep(
      `UPDATE effects SET status = 'applying', attempt_count = attempt_count + 1, updated_at = @now,
         process_pid = @pid, process_start_id = @startId, process_hostname = @hostname,
         process_boot_id = @bootId, process_pid_ns = @pidNs
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
    });
  commitRun(ctx, claim.runId, now, {
    type: 'effect.applying',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { effectId, ...(process === null ? {} : { pid: process.pid }) },
  });
  return toEffect(loadEffectRow(ctx, effectId));
}

export type EffectSettlement = 'applied' | 'rejected' | 'ambiguous';

export function settleEffect(
  ctx: StoreContext,
  claim: ClaimRef,
  effectId: number,
  status: EffectSettlement,
  now: number,
): Effect {
  if (status !== 'applied' && status !== 'rejected' && status !== 'ambiguous') {
    throw new RunwardenError('VALIDATION', 'An effect settles as applied, rejected or ambiguous.');
  }
  const lease = fence(ctx, claim, now);
  const row = ownEffect(ctx, claim, effectId);
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
}

const APPLYING_PROCESS_COLUMNS = `id, run_id, process_pid, process_start_id, process_hostname, process_boot_id,
  process_pid_ns`;

/** The liveness check's verdict on an effect's recorded process: the same rules as a lease owner's. */
function processGone(ctx: StoreContext, row: ApplyingProcessRow): boolean {
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
 * Effects of `runId` still applying whose process is verifiably gone (killed mid-command, or a program
 * that called `effect begin` and exited without `effect end`). A read: a supervisor asks it often, and
 * writes only when it finds one (indexed by effects_applying).
 */
export function goneApplyingEffects(ctx: StoreContext, runId: string): number[] {
  const rows = ctx
    .prep(
      `SELECT ${APPLYING_PROCESS_COLUMNS} FROM effects
       WHERE run_id = ? AND status = 'applying' AND process_pid IS NOT NULL`,
    )
    .all(runId) as ApplyingProcessRow[];
  return rows.filter((row) => processGone(ctx, row)).map((row) => row.id);
}

const GONE_WHY = 'its process ended without saying how it went (killed, or it exited before "effect end")';

/**
 * The run's supervisor saw an effect's process gone mid-command: the effect becomes ambiguous at once, not
 * only when the run ends (docs/LIVENESS.md#unknown-outcomes). Fenced; re-checked inside the transaction.
 * Returns the ids it changed.
 */
export function ambiguateGoneEffects(ctx: StoreContext, claim: ClaimRef, now: number): number[] {
  const lease = fence(ctx, claim, now);
  const ids = markGone(ctx, goneApplyingEffects(ctx, claim.runId), now);
  if (ids.length > 0) {
    commitRun(ctx, claim.runId, now, {
      type: 'effect.ambiguous',
      actor: runnerActor(lease, claim),
      leaseGeneration: lease.generation,
      payload: { effectId: ids[0], ...ambiguousPayload(ids, `but ${GONE_WHY}`) },
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
  ctx: StoreContext,
  actor: Actor,
  limit: number,
  afterId: number,
  now: number,
): number {
  const byRun = new Map<string, number[]>();
  for (const row of goneOnHost(ctx, limit, afterId).gone)
    byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), row.id]);
  let changed = 0;
  for (const [runId, candidates] of byRun) {
    const ids = markGone(ctx, candidates, now);
    if (ids.length === 0) continue;
    changed += ids.length;
    commitRun(ctx, runId, now, {
      type: 'effect.ambiguous',
      actor: actorOf(actor),
      payload: { effectId: ids[0], ...ambiguousPayload(ids, `but ${GONE_WHY}`) },
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
export function goneEffectsOnHost(ctx: StoreContext, limit: number, afterId: number): HostEffectsWindow {
  const { gone, next } = goneOnHost(ctx, limit, afterId);
  return { gone: gone.length, next };
}

function goneOnHost(
  ctx: StoreContext,
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

function markGone(ctx: StoreContext, ids: readonly number[], now: number): number[] {
  const mark = ctx.prep(
    `UPDATE effects SET status = 'ambiguous', updated_at = ? WHERE id = ? AND status = 'applying' RETURNING id`,
  );
  return ids.filter((id) => mark.get(now, id) !== undefined);
}
