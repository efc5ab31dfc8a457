/** Side effects a step performs: reserve → applying → applied | rejected | ambiguous; a person resolves ambiguity. */
import type { Actor, Effect, EffectResolution } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { activeAttempt } from './attempts';
import { toEffect, type EffectRow } from './rows';
import {
  actorOf,
  checkRevision,
  commitRun,
  conflict,
  fence,
  loadRunRow,
  refuseLiveOwner,
  runnerActor,
  type ClaimRef,
} from './run-state';
import { requireText } from './runs';
import type { ReserveEffectInput } from './store-types';
import type { StoreContext } from './store-context';

export function loadEffectRow(ctx: StoreContext, effectId: number): EffectRow {
  const row = ctx.prep(`SELECT * FROM effects WHERE id = ?`).get(effectId) as EffectRow | undefined;
  if (row === undefined) throw new RunwardenError('NOT_FOUND', `No effect ${effectId} in this store.`);
  return row;
}

function ownEffect(ctx: StoreContext, claim: ClaimRef, effectId: number): EffectRow {
  const row = loadEffectRow(ctx, effectId);
  if (row.run_id !== claim.runId) {
    throw new RunwardenError('NOT_FOUND', `Effect ${effectId} does not belong to run ${claim.runId}.`);
  }
  return row;
}

/** Reserves an effect; the same (run, idempotency key) returns the existing one without a write. */
export function reserveEffect(
  ctx: StoreContext,
  claim: ClaimRef,
  input: ReserveEffectInput,
  now: number,
): Effect {
  requireText(input.type, 'type');
  requireText(input.idempotencyKey, 'idempotencyKey');
  requireText(input.summary, 'summary');
  const lease = fence(ctx, claim, now);
  const existing = ctx
    .prep(`SELECT * FROM effects WHERE run_id = ? AND idempotency_key = ?`)
    .get(claim.runId, input.idempotencyKey) as EffectRow | undefined;
  if (existing !== undefined) return toEffect(existing);
  const attemptId = input.attemptId ?? activeAttempt(ctx, claim.runId)?.id ?? null;
  const result = ctx
    .prep(
      `INSERT INTO effects (run_id, attempt_id, type, idempotency_key, summary, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
    )
    .run(claim.runId, attemptId, input.type, input.idempotencyKey, input.summary, now, now);
  const id = Number(result.lastInsertRowid);
  commitRun(ctx, claim.runId, now, {
    type: 'effect.reserved',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: { effectId: id, type: input.type, idempotencyKey: input.idempotencyKey },
  });
  return toEffect(loadEffectRow(ctx, id));
}

export function beginEffect(ctx: StoreContext, claim: ClaimRef, effectId: number, now: number): Effect {
  const lease = fence(ctx, claim, now);
  const row = ownEffect(ctx, claim, effectId);
  if (row.status !== 'pending') {
    throw conflict(ctx, claim.runId, `Effect ${effectId} is ${row.status}; only a pending effect can begin.`);
  }
  ctx
    .prep(
      `UPDATE effects SET status = 'applying', attempt_count = attempt_count + 1, updated_at = ? WHERE id = ?`,
    )
    .run(now, effectId);
  commitRun(ctx, claim.runId, now, {
    type: 'effect.applying',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: { effectId },
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
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: { effectId },
  });
  return toEffect(loadEffectRow(ctx, effectId));
}

export interface ResolveEffectInput {
  resolution: EffectResolution;
  note: string;
  expectedRevision: number;
  actor: Actor;
}

/** A person says what happened to an ambiguous effect (SPEC §4): applied, or not applied (→ rejected). */
export function resolveEffect(
  ctx: StoreContext,
  effectId: number,
  input: ResolveEffectInput,
  now: number,
): Effect {
  if (input.resolution !== 'applied' && input.resolution !== 'not_applied') {
    throw new RunwardenError('VALIDATION', 'resolution must be applied or not_applied.');
  }
  requireText(input.note, 'A note saying how you know');
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
  commitRun(ctx, row.run_id, now, {
    type: 'effect.resolved',
    actor: actorOf(input.actor),
    payload: { effectId, resolution: input.resolution, note: input.note },
  });
  return toEffect(loadEffectRow(ctx, effectId));
}
