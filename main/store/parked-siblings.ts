/**
 * A run parked because a key had an unknown outcome in another run of its lineage says so until that
 * outcome is known; then it says what became of it and the one next step (docs/LIVENESS.md#unknown-outcomes).
 */
import { parkedOnEffect } from './run-lineage';
import { commitRun, type EventActor } from './run-state';
import type { WritableDB } from './store-context';

/**
 * After `key`'s effect in `runId` settled (`applied`: it happened; else it did not), each run of the lineage
 * parked on it gets a detail that says so, in the caller's transaction. Returns their ids.
 */
export function tellParkedSiblings(
  ctx: WritableDB,
  runId: string,
  key: string,
  applied: boolean,
  actor: EventActor,
  now: number,
): string[] {
  const parked = parkedOnEffect(ctx, runId, key);
  for (const sibling of parked) {
    const detail = applied
      ? `Effect ${key} it waited on has since applied in run ${runId}; resume this run ("runwarden resume ${sibling.id}"): it will not be done again.`
      : `Effect ${key} it waited on did not happen in run ${runId}; resume this run ("runwarden resume ${sibling.id}") to do it here.`;
    ctx.prep(`UPDATE queue_entries SET error_detail = ? WHERE run_id = ?`).run(detail, sibling.id);
    commitRun(ctx, sibling.id, now, {
      type: 'run.parked',
      actor,
      payload: { code: 'effectAmbiguous', detail, effectSettledIn: runId },
    });
  }
  return parked.map((sibling) => sibling.id);
}
