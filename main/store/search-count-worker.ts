/**
 * A search's tab counts off the host's main thread (docs/WINDOW.md#search).
 *
 * Counting what a broad word matches reads its trigram candidates and up to SEARCH_COUNT_CAP runs: longer than
 * a keystroke at a million runs. The host answers one
 * request at a time, so on its own connection one keystroke's counts held up the next keystroke's rows. This
 * worker thread has its own read connection and runs the count statement the store builds
 * (`searchCountsStatement`), one at a time, in the order asked:
 * - a request may name its asker (`supersede`, a window's own key): a newer request with the same key
 *   replaces that asker's waiting one, which is answered `superseded` at once (the person typing has moved
 *   on); other askers' requests are not touched, so each window waits for at most its own one;
 * - the statement already running is not interrupted (better-sqlite3 cannot), but it is bounded by the cap.
 * Until the worker is running, and if it cannot start or stops, a request is answered `unavailable` and the
 * host counts on its own connection.
 */
import type { ReadStatement } from './search-counts';
import { startStoreWorker, type CreateWorker } from './store-worker';

/** The worker connection's page cache, in KiB as SQLite counts a negative cache_size (half the host's). */
const WORKER_CACHE_KIB = -8_192;

export type SearchCountAnswer =
  | { ok: true; rows: unknown[] }
  | { ok: false; reason: 'superseded' | 'unavailable' }
  | { ok: false; reason: 'failed'; message: string };

export interface SearchCountWorkerOptions {
  /** The worker stopped unexpectedly (requests are answered `unavailable` from then on). */
  onError?: (error: Error) => void;
  /** Makes the worker thread (tests keep a handle to it, to stop it as a crash would). */
  createWorker?: CreateWorker;
}

export interface SearchCountWorker {
  /** True once the worker has its connection open. */
  readonly active: boolean;
  /** Settles once the worker is running (true) or could not start (false). */
  readonly ready: Promise<boolean>;
  /**
   * Runs a count statement; the answer says when it was superseded (by a newer one with the same
   * `supersede` key while it waited) or the worker is not there.
   */
  run(statement: ReadStatement, supersede?: string): Promise<SearchCountAnswer>;
  /** Stops the worker and closes its connection; a waiting request is answered `unavailable`. */
  stop(): Promise<void>;
}

type ToWorker = { type: 'run'; id: number; sql: string; params: ReadStatement['params'] } | { type: 'stop' };
type FromWorker =
  | { type: 'ready' }
  | { type: 'rows'; id: number; rows: unknown[] }
  | { type: 'failed'; id: number; message: string };

/**
 * CommonJS source run by store-worker.ts: it loads the better-sqlite3 the main thread resolved.
 * `query_only`: this connection never writes.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 1000 });
db.pragma('query_only = 1');
db.pragma('cache_size = ${WORKER_CACHE_KIB}');
const statements = new Map();
parentPort.on('message', (message) => {
  if (message.type === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let statement = statements.get(message.sql);
    if (statement === undefined) {
      statement = db.prepare(message.sql);
      statements.set(message.sql, statement);
    }
    parentPort.postMessage({ type: 'rows', id: message.id, rows: statement.all(message.params) });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', id: message.id, message: String(error && error.message) });
  }
});
parentPort.postMessage({ type: 'ready' });
`;

interface Request {
  id: number;
  supersede: string | undefined;
  statement: ReadStatement;
  resolve: (answer: SearchCountAnswer) => void;
}

export function startSearchCountWorker(
  storePath: string,
  options: SearchCountWorkerOptions = {},
): SearchCountWorker {
  let nextId = 1;
  /** The request the worker is running, and those waiting for it, oldest first. */
  let running: Request | null = null;
  let waiting: Request[] = [];

  const worker = startStoreWorker<ToWorker, FromWorker>(
    'search-count worker',
    WORKER_SOURCE,
    { file: storePath },
    options.createWorker,
    {
      onReady: () => true,
      onMessage(message) {
        if (message.type === 'ready' || running === null || running.id !== message.id) return;
        const done = running;
        running = null;
        done.resolve(
          message.type === 'rows'
            ? { ok: true, rows: message.rows }
            : { ok: false, reason: 'failed', message: message.message },
        );
        pump();
      },
      onDeactivate() {
        for (const request of [running, ...waiting]) request?.resolve({ ok: false, reason: 'unavailable' });
        running = null;
        waiting = [];
      },
      onError: options.onError,
    },
  );

  function pump(): void {
    if (!worker.active || running !== null) return;
    const next = waiting.shift();
    if (next === undefined) return;
    running = next;
    worker.send({
      type: 'run',
      id: running.id,
      sql: running.statement.sql,
      params: running.statement.params,
    });
  }

  return {
    get active() {
      return worker.active;
    },
    ready: worker.ready,
    run(statement, supersede) {
      // Not yet started, stopped or failed: the caller counts on its own connection.
      if (!worker.active) return Promise.resolve({ ok: false, reason: 'unavailable' });
      return new Promise<SearchCountAnswer>((resolve) => {
        if (supersede !== undefined) {
          const replaced = waiting.filter((r) => r.supersede === supersede);
          waiting = waiting.filter((r) => r.supersede !== supersede);
          for (const r of replaced) r.resolve({ ok: false, reason: 'superseded' });
        }
        waiting.push({ id: nextId++, supersede, statement, resolve });
        pump();
      });
    },
    stop: () => worker.stop(),
  };
}
