/**
 * Store hygiene off the main thread (docs/ARCHITECTURE.md#sweeper): WAL checkpoints and search-index merges.
 *
 * Both are work SQLite otherwise does inside whichever write happens to cross a threshold, on the thread
 * that wrote — in the app, the main thread, in the middle of a person's click or a sweeper batch:
 * - auto-checkpoint copies the WAL back into the database file inside the commit that pushes it past 1,000
 *   pages (random writes and an fsync);
 * - FTS5 merges the search index's segments inside the insert or delete that tips a level or a segment's
 *   share of deleted rows (migration 0005 turned automerge off). What each costs: docs/PERFORMANCE.md.
 *
 * The host turns auto-checkpoint off on its own connection and lets a worker thread, with its own
 * connection, do both every interval: a bounded `merge` of the search index (a short write transaction;
 * skipped when another connection holds the write lock) and a PASSIVE checkpoint (never takes the write lock,
 * never waits for readers). If the worker cannot start, or stops for any reason, auto-checkpoint is turned
 * back on for the host's connection: the WAL never grows without bound because a thread died.
 */
import { CHECKPOINT_PRAGMA, SEARCH_MERGE_SQL } from './maintenance';
import type { RunStore } from './run-store';
import { startStoreWorker, type CreateWorker } from './store-worker';

/** SQLite's default `wal_autocheckpoint`, restored when the worker is not running. */
export const DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/**
 * Leaf pages of search-index merge work per round (FTS5 `merge`): a short hold of the write lock. Rounds run only
 * while some level holds `usermerge` (4) segments, which keeps the segment count, and so the cost of a
 * search, bounded; merged segments drop the entries of deleted runs.
 */
export const SEARCH_MERGE_PAGES = 64;
const DEFAULT_INTERVAL_MS = 1_000;

export interface HygieneResult {
  /** Frames in the WAL when the checkpoint ran. */
  walPages: number;
  /** Frames copied back into the database file (all of them unless a reader pinned older ones). */
  checkpointed: number;
  /** The search-index merge did some work; false when there was none to do or the write lock was taken. */
  merged: boolean;
  ms: number;
}

export interface HygieneWorkerOptions {
  intervalMs?: number;
  /** The worker stopped unexpectedly (auto-checkpoint is back on by then). */
  onError?: (error: Error) => void;
  onRound?: (result: HygieneResult) => void;
  /** Makes the worker thread (tests keep a handle to it, to stop it as a crash would). */
  createWorker?: CreateWorker;
}

export interface HygieneWorker {
  /** True once the worker has its connection open and the host's auto-checkpoint is off. */
  readonly active: boolean;
  /** Settles once the worker is running (true) or could not start (false). */
  readonly ready: Promise<boolean>;
  /** The latest round's result, or null before the first one. */
  readonly last: HygieneResult | null;
  /** Asks for a round now; resolves with its result (null when the worker is not active). */
  runNow(): Promise<HygieneResult | null>;
  /** Stops the worker and closes its connection; auto-checkpoint is back on for the host's connection. */
  stop(): Promise<void>;
}

type WorkerMessage = { type: 'ready' } | { type: 'round'; result: HygieneResult; requestId: number | null };
type ToWorker = { type: 'round'; requestId: number } | { type: 'stop' };

/**
 * The worker, as CommonJS source run with `eval: true`: no second bundle entry for electron-vite, the CLI
 * build and vitest to agree on. It loads the very better-sqlite3 the main thread resolved, and runs the same
 * statements as maintenance.ts (interpolated, not copied). busy_timeout 0:
 * a merge never waits for the write lock, it waits for the next round.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
db.pragma('synchronous = FULL');
const merge = db.prepare(${JSON.stringify(SEARCH_MERGE_SQL)});
const totalChanges = db.prepare('SELECT total_changes() AS n').pluck();
const mergeOnce = () => {
  const before = totalChanges.get();
  try {
    merge.run(workerData.mergePages);
  } catch (error) {
    if (error && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')) return false;
    throw error;
  }
  // The FTS5 documentation's test for "did it do anything": more than the command's own row changed.
  return totalChanges.get() - before > 1;
};
const dataVersion = db.prepare('PRAGMA data_version').pluck();
const checkpoint = db.prepare(${JSON.stringify(`PRAGMA ${CHECKPOINT_PRAGMA}`)});
// A timed round with nothing to do is skipped: no other connection committed since the last round, and that
// round left no merge work and no WAL frames behind. An idle store then costs one PRAGMA a round.
let settledAt = null;
const round = (requestId) => {
  const version = dataVersion.get();
  if (requestId === null && settledAt === version) return;
  const started = performance.now();
  const merged = mergeOnce();
  const row = checkpoint.get() || {};
  const result = {
    walPages: Math.max(0, row.log || 0),
    checkpointed: Math.max(0, row.checkpointed || 0),
    merged,
    ms: performance.now() - started,
  };
  settledAt = !merged && result.checkpointed >= result.walPages ? version : null;
  parentPort.postMessage({ type: 'round', result, requestId });
};
const timer = setInterval(() => round(null), workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message.type === 'round') round(message.requestId);
  if (message.type === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
parentPort.postMessage({ type: 'ready' });
`;

export function startHygieneWorker(store: RunStore, options: HygieneWorkerOptions = {}): HygieneWorker {
  if (store.mode !== 'read-write') throw new Error('A read-only store has no hygiene to do.');
  let last: HygieneResult | null = null;
  let nextRequestId = 1;
  const waiting = new Map<number, (result: HygieneResult | null) => void>();

  const worker = startStoreWorker<ToWorker, WorkerMessage>(
    'store hygiene worker',
    WORKER_SOURCE,
    {
      file: store.path,
      intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
      mergePages: SEARCH_MERGE_PAGES,
    },
    options.createWorker,
    {
      onReady() {
        if (!store.isOpen) return false;
        store.setAutoCheckpoint(0);
        return true;
      },
      onMessage(message) {
        if (message.type !== 'round') return;
        last = message.result;
        options.onRound?.(message.result);
        if (message.requestId !== null) {
          waiting.get(message.requestId)?.(message.result);
          waiting.delete(message.requestId);
        }
      },
      onDeactivate(wasActive) {
        // Back on before the worker goes: no commit in between runs without either.
        if (wasActive && store.isOpen) store.setAutoCheckpoint(DEFAULT_AUTOCHECKPOINT_PAGES);
        for (const resolve of waiting.values()) resolve(null);
        waiting.clear();
      },
      onError: options.onError,
    },
  );

  return {
    get active() {
      return worker.active;
    },
    get last() {
      return last;
    },
    ready: worker.ready,
    runNow() {
      if (!worker.active) return Promise.resolve(null);
      const requestId = nextRequestId++;
      return new Promise((resolve) => {
        waiting.set(requestId, resolve);
        worker.send({ type: 'round', requestId });
      });
    },
    stop: () => worker.stop(),
  };
}
