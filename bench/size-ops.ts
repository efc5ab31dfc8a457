/** Store size per run, and retention pruning shown to give the space back. */
import fs from 'node:fs';
import type { RunStore } from '../main/store';
import { PRUNE_BUDGET_MS } from '../main/store/maintenance';
import { probeWriteLock } from './lock-probe';
import { figure, type Measurement } from './report-model';
import { round, summarize } from './stats';

interface Pages {
  pageSize: number;
  pageCount: number;
  freePages: number;
}

function pages(store: RunStore): Pages {
  const db = store.db;
  return {
    pageSize: db.pragma('page_size', { simple: true }) as number,
    pageCount: db.pragma('page_count', { simple: true }) as number,
    freePages: db.pragma('freelist_count', { simple: true }) as number,
  };
}

export function measureSize(store: RunStore, runs: number, log: (line: string) => void): Measurement {
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const p = pages(store);
  const bytes = (p.pageCount - p.freePages) * p.pageSize;
  const m = figure(
    'size.per-run',
    'store size per run (with its ~20 events)',
    'size',
    'bytes',
    bytes / runs,
    null,
    { fileMb: round(fs.statSync(store.path).size / 1_048_576, 1), runs },
  );
  log(`  ${m.label}: ${Math.round(bytes / runs)} bytes/run, file ${m.extra?.fileMb} MB`);
  return m;
}

/**
 * Prunes finished runs older than `retentionDays` the way the sweeper does (batches of at most `batch` runs,
 * ended early by the store's time budget), up to
 * `maxRuns`, then reports the pages freed for reuse (and, with `vacuum`, the file size after VACUUM).
 */
export function measurePruning(
  store: RunStore,
  opts: { retentionDays: number; batch: number; maxRuns: number; vacuum: boolean },
  log: (line: string) => void,
): Measurement {
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const before = pages(store);
  const fileBefore = fs.statSync(store.path).size;
  const lock = probeWriteLock(store.db);
  let pruned = 0;
  const start = performance.now();
  try {
    while (pruned < opts.maxRuns) {
      const n = store.pruneTerminalRuns(opts.retentionDays * 86_400_000, opts.batch);
      pruned += n;
      if (n === 0) break;
    }
  } finally {
    lock.restore();
  }
  const holds = lock.take();
  const elapsed = performance.now() - start;
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const after = pages(store);
  const freedBytes = (after.freePages - before.freePages) * after.pageSize;
  const extra: Record<string, number> = {
    runsPruned: pruned,
    batches: holds.length,
    runsPerBatch: holds.length === 0 ? 0 : round(pruned / holds.length, 1),
    maxBatchMs: round(Math.max(0, ...holds)),
    p95BatchMs: round(summarize(holds).p95),
    freedMb: round(freedBytes / 1_048_576, 1),
    freedBytesPerRun: pruned === 0 ? 0 : Math.round(freedBytes / pruned),
    fileMbBefore: round(fileBefore / 1_048_576, 1),
    seconds: round(elapsed / 1_000, 2),
  };
  if (opts.vacuum) {
    const t = performance.now();
    store.db.exec('VACUUM');
    extra.vacuumSeconds = round((performance.now() - t) / 1_000, 1);
    extra.fileMbAfterVacuum = round(fs.statSync(store.path).size / 1_048_576, 1);
  }
  const m = figure(
    'size.pruning',
    `retention pruning (${opts.retentionDays} days), batches of ≤ ${opts.batch} runs / ${PRUNE_BUDGET_MS} ms`,
    'size',
    'MB freed',
    freedBytes / 1_048_576,
    {
      text: 'frees space; each batch ≤ 20 ms of write lock',
      met: freedBytes > 0 && Math.max(0, ...holds) <= 20,
    },
    extra,
    'freed pages are reused by new rows; VACUUM (optional, --vacuum) shrinks the file',
  );
  log(
    `  ${m.label}: ${pruned} runs in ${holds.length} batches (max ${extra.maxBatchMs} ms), freed ${extra.freedMb} MB (${extra.freedBytesPerRun} bytes/run)`,
  );
  return m;
}
