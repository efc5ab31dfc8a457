/**
 * A runner's side-effect transitions: reserve → applying → applied | rejected | ambiguous. A person resolves
 * an ambiguous one (person-commands.ts, resolveEffect).
 */
import type { Effect } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { activeAttempt } from './attempt-rows';
import { loadEffectRow } from './effect-rows';
import { toEffect, type EffectRow } from './rows';
import { commitRun, conflict, fence, runnerActor, type ClaimRef } from './run-state';
import { requireText } from './input-checks';
import type { ReserveEffectInput } from './store-types';
import type { StoreContext } from './store-context';

function ownEffect(ctx: StoreContext, claim: ClaimRef, effectId: number): EffectRow {
  const row = loadEffectRow(ctx, effectId);
  if (row.run_id !== claim.runId) {
    throw new RunwardenError('NOT_FOUND', `Effect ${effectId} does not belong to run ${claim.runId}.`);
  }
  return row;
}

/**
 * The nearest earlier run of this run's retry/continuation lineage that applied the same idempotency key
 * (or whose person said it happened). Bounded: a lineage deeper than 1,000 runs is not walked further.
 */
function appliedInLineage(ctx: StoreContext, runId: string, key: string): EffectRow | undefined {
  return ctx
    .prep(
      `WITH RECURSIVE lineage(id, depth) AS (
         SELECT parent_run_id, 1 FROM runs WHERE id = ? AND parent_run_id IS NOT NULL AND lineage IS NOT NULL
         UNION ALL
         SELECT r.parent_run_id, l.depth + 1 FROM runs r JOIN lineage l ON r.id = l.id
         WHERE r.parent_run_id IS NOT NULL AND r.lineage IS NOT NULL AND l.depth < 1000
       )
       SELECT e.* FROM lineage l JOIN effects e ON e.run_id = l.id
       WHERE e.idempotency_key = ? AND e.status = 'applied'
       ORDER BY l.depth LIMIT 1`,
    )
    .get(runId, key) as EffectRow | undefined;
}

/**
 * Reserves an effect; the same (run, idempotency key) returns the existing one without a write, and a key an
 * earlier run of the lineage applied comes back already applied.
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
  const carried = appliedInLineage(ctx, claim.runId, input.idempotencyKey);
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
    actor: runnerActor(lease, claim),
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
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: { effectId },
  });
  return toEffect(loadEffectRow(ctx, effectId));
}
