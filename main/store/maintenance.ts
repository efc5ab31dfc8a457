/** Store hygiene (docs/ARCHITECTURE.md#sweeper): retention pruning, WAL checkpoints, the change counter. */
import type { StoreContext } from './store-context';
import { appendEvent } from './run-state';
import { logPathsOfRuns } from './run-logs';

/**
 * Deletes up to `limit` terminal runs finished more than `olderThanMs` ago, with their rows and events.
 * The paths of their output logs are added to `logPaths`, for the caller to delete once this commits.
 */
export function pruneTerminalRuns(
  ctx: StoreContext,
  olderThanMs: number,
  limit: number,
  now: number,
  logPaths: string[] = [],
): number {
  const ids = ctx
    .prep(
      `SELECT id FROM runs WHERE finished_at IS NOT NULL AND finished_at <= ?
         AND status IN ('completed', 'failed', 'timed_out', 'cancelled')
         -- an unknown outcome stays in front of a person until resolved (docs/LIVENESS.md#unknown-outcomes)
         AND ambiguous_effects = 0
       ORDER BY finished_at LIMIT ?`,
    )
    .all(now - olderThanMs, limit) as Array<{ id: string }>;
  logPaths.push(
    ...logPathsOfRuns(
      ctx,
      ids.map((row) => row.id),
    ),
  );
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

/** A passive checkpoint: copies what it can of the WAL back, never takes the write lock, never waits. */
export const CHECKPOINT_PRAGMA = 'wal_checkpoint(PASSIVE)';
/** One bounded round of search-index merging (FTS5 `merge`): at most `?` leaf pages of work. */
export const SEARCH_MERGE_SQL = `INSERT INTO run_search(run_search, rank) VALUES ('merge', ?)`;

export function checkpoint(ctx: StoreContext): { walPages: number; checkpointed: number } {
  const rows = ctx.db.pragma(CHECKPOINT_PRAGMA) as Array<{
    busy: number;
    log: number;
    checkpointed: number;
  }>;
  const row = rows[0];
  return { walPages: Math.max(0, row?.log ?? 0), checkpointed: Math.max(0, row?.checkpointed ?? 0) };
}

/**
 * One bounded round of search-index merging (FTS5 `merge`, migration 0005); true when it did some work.
 * Runs in the caller's write transaction.
 */
export function mergeSearchIndex(ctx: StoreContext, pages: number): boolean {
  if (!Number.isSafeInteger(pages) || pages <= 0) throw new RangeError(`merge pages: ${pages}`);
  const totalChanges = () => (ctx.prep('SELECT total_changes() AS n').get() as { n: number }).n;
  const before = totalChanges();
  ctx.prep(SEARCH_MERGE_SQL).run(pages);
  // The FTS5 documentation's test for "did it do anything": more than the command's own row changed.
  return totalChanges() - before > 1;
}

export function setAutoCheckpoint(ctx: StoreContext, pages: number): void {
  if (!Number.isSafeInteger(pages) || pages < 0) throw new RangeError(`wal_autocheckpoint: ${pages}`);
  ctx.db.pragma(`wal_autocheckpoint = ${pages}`);
}

export function autoCheckpointPages(ctx: StoreContext): number {
  return ctx.db.pragma('wal_autocheckpoint', { simple: true }) as number;
}

/** Moves whenever another connection commits (docs/ARCHITECTURE.md#change-feed). */
export function dataVersion(ctx: StoreContext): number {
  // A prepared statement: \`db.pragma()\` compiles its statement on every call (~0.1 ms), and the change feed
  // asks 25 times a second.
  return ctx.prep('PRAGMA data_version').pluck().get() as number;
}
