/** Row helpers for `effects` (docs/ARCHITECTURE.md#where-each-behaviour-lives). */
import { RunwardenError } from '../../shared/errors';
import type { EffectRow } from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';

export function loadEffectRow(ctx: ReadableDB, effectId: number): EffectRow {
  const row = ctx.prep(`SELECT * FROM effects WHERE id = ?`).get(effectId) as EffectRow | undefined;
  if (row === undefined) throw new RunwardenError('NOT_FOUND', `No effect ${effectId} in this store.`);
  return row;
}

/**
 * Effects the run's previous owner left applying may or may not have happened: they become ambiguous and a
 * person decides (docs/ARCHITECTURE.md#leases-and-fencing). Returns how many.
 */
export function markApplyingAmbiguous(ctx: WritableDB, runId: string, now: number): number {
  return ambiguateApplying(ctx, runId, now).length;
}

/**
 * `markApplyingAmbiguous`, returning the ids: every transition that takes the run away from the runner
 * that began them (an ending, a park, a release) leaves nobody to settle them (docs/LIVENESS.md#unknown-outcomes).
 */
export function ambiguateApplying(ctx: WritableDB, runId: string, now: number): number[] {
  return (
    ctx
      .prep(
        `UPDATE effects SET status = 'ambiguous', updated_at = ? WHERE run_id = ? AND status = 'applying'
         RETURNING id`,
      )
      .all(now, runId) as Array<{ id: number }>
  )
    .map((row) => row.id)
    .toSorted((a, b) => a - b);
}

/**
 * What a transition's event says about the effects it turned ambiguous: their ids and why, in words the
 * run's timeline shows. Empty when there were none.
 */
export function ambiguousPayload(
  ids: readonly number[],
  why: string,
): { ambiguousEffects?: number[]; reason?: string } {
  if (ids.length === 0) return {};
  const which = ids.length === 1 ? `Effect ${ids[0]} was` : `Effects ${ids.join(', ')} were`;
  return {
    ambiguousEffects: [...ids],
    reason: `${which} still applying ${why}: nobody knows whether ${ids.length === 1 ? 'it' : 'they'} happened, so a person must say.`,
  };
}

/** Effects never begun are dropped with their run. Returns how many. */
export function cancelPendingEffects(ctx: WritableDB, runId: string, now: number): number {
  return ctx
    .prep(`UPDATE effects SET status = 'cancelled', updated_at = ? WHERE run_id = ? AND status = 'pending'`)
    .run(now, runId).changes;
}

export function countPendingAndApplyingEffects(
  ctx: ReadableDB,
  runId: string,
): { pending: number; applying: number } {
  return ctx
    .prep(
      `SELECT COALESCE(SUM(status = 'pending'), 0) AS pending, COALESCE(SUM(status = 'applying'), 0) AS applying
       FROM effects WHERE run_id = ?`,
    )
    .get(runId) as { pending: number; applying: number };
}
