/** Store hygiene (SPEC §5 steps 3 and 5): retention pruning, WAL checkpoints, the change counter. */
import type { StoreContext } from './store-context';
import { appendEvent } from './run-state';

/** Deletes up to `limit` terminal runs finished more than `olderThanMs` ago, with their rows and events. */
export function pruneTerminalRuns(
  ctx: StoreContext,
  olderThanMs: number,
  limit: number,
  now: number,
): number {
  const ids = ctx
    .prep(
      `SELECT id FROM runs WHERE finished_at IS NOT NULL AND finished_at <= ?
         AND status IN ('completed', 'failed', 'timed_out', 'cancelled')
       ORDER BY finished_at LIMIT ?`,
    )
    .all(now - olderThanMs, limit) as Array<{ id: string }>;
  for (const { id } of ids) {
    ctx.prep(`DELETE FROM events WHERE run_id = ?`).run(id);
    ctx.prep(`DELETE FROM runs WHERE id = ?`).run(id);
  }
  if (ids.length > 0) {
    appendEvent(ctx, now, null, null, {
      type: 'store.pruned',
      actor: { type: 'system', id: null, surface: 'sweeper' },
      payload: { runs: ids.length, olderThanMs },
    });
  }
  return ids.length;
}

export function checkpoint(ctx: StoreContext): { walPages: number; checkpointed: number } {
  const rows = ctx.db.pragma('wal_checkpoint(PASSIVE)') as Array<{
    busy: number;
    log: number;
    checkpointed: number;
  }>;
  const row = rows[0];
  return { walPages: Math.max(0, row?.log ?? 0), checkpointed: Math.max(0, row?.checkpointed ?? 0) };
}

/** Moves whenever another connection commits (SPEC §5 step 4). */
export function dataVersion(ctx: StoreContext): number {
  return ctx.db.pragma('data_version', { simple: true }) as number;
}
