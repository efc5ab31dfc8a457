/** Store hygiene (docs/ARCHITECTURE.md#sweeper): retention pruning, WAL checkpoints, the change counter. */
import { TERMINAL_RUN_SQL } from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';
import { appendEvent } from './run-state';
import { logPathsOfRuns } from './run-logs';

/**
 * How long one pruning transaction goes on taking runs: it holds the write lock, and at a million runs one
 * run's rows cost anywhere from a fraction of a millisecond to tens (cold pages, a search-index tombstone
 * rebuild), so a fixed count of runs is no bound on the lock.
 */
export const PRUNE_BUDGET_MS = 10;

/** What retention may delete: finished long enough ago, never an unknown outcome. */
const PRUNABLE = `finished_at IS NOT NULL AND finished_at <= @cutoff
  AND status IN ${TERMINAL_RUN_SQL}
  -- an unknown outcome stays in front of a person until resolved (docs/LIVENESS.md#unknown-outcomes)
  AND ambiguous_effects = 0`;

/**
 * A batch is the oldest-finished prunable run and the prunable runs stored right after it, up to this many
 * rowids per run of the batch's limit ahead. Runs finish in a different order than they were stored in: the
 * 40 oldest by finish time lie among ~1,400 runs of a million-run store, one page of every table and index
 * each; neighbours in the table share their pages.
 */
export const PRUNE_WINDOW_PER_RUN = 8;

/**
 * Deletes up to `limit` terminal runs finished more than `olderThanMs` ago, with their rows and events —
 * the oldest-finished one and its prunable neighbours in storage order, and no more once `budgetMs` of real
 * time has passed (always at least one). Every prunable run is deleted in time: the oldest-finished one
 * leads each batch.
 * The paths of their output logs are added to `logPaths`, for the caller to delete once this commits.
 */
export function pruneTerminalRuns(
  ctx: WritableDB,
  olderThanMs: number,
  limit: number,
  now: number,
  logPaths: string[] = [],
  budgetMs: number = PRUNE_BUDGET_MS,
): number {
  // Real time, not the store clock: the budget is about how long the write lock is held.
  const started = performance.now();
  const cutoff = now - olderThanMs;
  const oldest = ctx
    .prep(`SELECT rowid AS r FROM runs WHERE ${PRUNABLE} ORDER BY finished_at LIMIT 1`)
    .get({ cutoff }) as { r: number } | undefined;
  if (oldest === undefined || limit <= 0) return 0;
  const ids = ctx
    .prep(
      `SELECT id FROM runs WHERE rowid BETWEEN @from AND @from + @window AND ${PRUNABLE}
       ORDER BY rowid LIMIT @limit`,
    )
    .all({ cutoff, from: oldest.r, window: limit * PRUNE_WINDOW_PER_RUN, limit }) as Array<{ id: string }>;
  let pruned = 0;
  for (const { id } of ids) {
    logPaths.push(...logPathsOfRuns(ctx, [id]));
    ctx.prep(`DELETE FROM events WHERE run_id = ?`).run(id);
    ctx.prep(`DELETE FROM runs WHERE id = ?`).run(id);
    pruned += 1;
    if (performance.now() - started >= budgetMs) break;
  }
  if (pruned > 0) {
    appendEvent(ctx, now, null, null, {
      type: 'store.pruned',
      actor: { type: 'system', id: null, surface: 'sweeper' },
      payload: { runs: pruned, olderThanMs },
    });
  }
  return pruned;
}

/** A passive checkpoint: copies what it can of the WAL back, never takes the write lock, never waits. */
export const CHECKPOINT_PRAGMA = 'wal_checkpoint(PASSIVE)';
/** One bounded round of search-index merging (FTS5 `merge`): at most `?` leaf pages of work. */
export const SEARCH_MERGE_SQL = `INSERT INTO run_search(run_search, rank) VALUES ('merge', ?)`;

export function checkpoint(ctx: WritableDB): { walPages: number; checkpointed: number } {
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
export function mergeSearchIndex(ctx: WritableDB, pages: number): boolean {
  if (!Number.isSafeInteger(pages) || pages <= 0) throw new RangeError(`merge pages: ${pages}`);
  const totalChanges = () => (ctx.prep('SELECT total_changes() AS n').get() as { n: number }).n;
  const before = totalChanges();
  ctx.prep(SEARCH_MERGE_SQL).run(pages);
  // The FTS5 documentation's test for "did it do anything": more than the command's own row changed.
  return totalChanges() - before > 1;
}

export function setAutoCheckpoint(ctx: WritableDB, pages: number): void {
  if (!Number.isSafeInteger(pages) || pages < 0) throw new RangeError(`wal_autocheckpoint: ${pages}`);
  ctx.db.pragma(`wal_autocheckpoint = ${pages}`);
}

export function autoCheckpointPages(ctx: ReadableDB): number {
  return (ctx.prep('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
}

/** Moves whenever another connection commits (docs/ARCHITECTURE.md#change-feed). */
export function dataVersion(ctx: ReadableDB): number {
  // A prepared statement: \`db.pragma()\` compiles its statement on every call, and the change feed
  // asks 25 times a second.
  return ctx.prep('PRAGMA data_version').pluck().get() as number;
}
