/**
 * The life of a worker thread that holds its own connection to the store (the hygiene worker, the search-count
 * worker): it runs CommonJS `source` with `eval: true` and loads the better-sqlite3 this thread resolved, says
 * `{ type: 'ready' }` once its connection is open, and closes on `{ type: 'stop' }`. It never keeps a process
 * alive on its own; once it fails or exits it is inactive for good, and its owner falls back to its own
 * connection.
 */
import { createRequire } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';
import type { Worker, WorkerOptions } from 'node:worker_threads';

/** Makes the worker thread (tests keep a handle to it, to stop it as a crash would). */
export type CreateWorker = (source: string, options: WorkerOptions) => Worker;

export interface StoreWorkerHooks<FromWorker> {
  /** The worker's connection is open; false keeps it inactive (its owner went away meanwhile). */
  onReady(): boolean;
  /** Any message but `ready`, while the worker is running. */
  onMessage(message: FromWorker): void;
  /** The worker stopped being usable (stopped, failed or exited): answer whatever waits on it. */
  onDeactivate(wasActive: boolean): void;
  /** It stopped unexpectedly. */
  onError?: (error: Error) => void;
}

export interface StoreWorkerHandle<ToWorker> {
  readonly active: boolean;
  /** Settles once the worker is running (true) or could not start (false). */
  readonly ready: Promise<boolean>;
  send(message: ToWorker): void;
  /** Stops the worker; resolves once its thread has exited. */
  stop(): Promise<void>;
}

export function startStoreWorker<ToWorker extends { type: string }, FromWorker extends { type: string }>(
  name: string,
  source: string,
  workerData: Record<string, unknown>,
  createWorker: CreateWorker | undefined,
  hooks: StoreWorkerHooks<FromWorker>,
): StoreWorkerHandle<ToWorker> {
  const require = createRequire(import.meta.url);
  const modulePath = require.resolve('better-sqlite3');
  // node:worker_threads is loaded here, not with the store: a CLI command never starts a worker.
  const make: CreateWorker =
    createWorker ??
    ((code, opts) => new (require('node:worker_threads') as typeof WorkerThreads).Worker(code, opts));
  const worker = make(source, { eval: true, workerData: { ...workerData, modulePath } });
  // The worker must not keep a CLI process or a test alive on its own.
  worker.unref();

  let active = false;
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let settleReady: (ok: boolean) => void = () => {};
  const ready = new Promise<boolean>((resolve) => {
    settleReady = resolve;
  });
  const deactivate = () => {
    const wasActive = active;
    active = false;
    settleReady(false);
    hooks.onDeactivate(wasActive);
  };

  worker.on('message', (message: FromWorker) => {
    if (message.type !== 'ready') {
      hooks.onMessage(message);
      return;
    }
    if (stopping || !hooks.onReady()) return;
    active = true;
    settleReady(true);
  });
  worker.on('error', (error) => {
    deactivate();
    if (!stopping) hooks.onError?.(error);
  });
  worker.on('exit', (code) => {
    const wasActive = active;
    deactivate();
    if (!stopping && wasActive) hooks.onError?.(new Error(`the ${name} exited (code ${code})`));
  });

  return {
    get active() {
      return active;
    },
    ready,
    // Node's Worker: the second argument is a transfer list (nothing to transfer), not a window's origin.
    send: (message) => worker.postMessage(message, []),
    async stop() {
      if (stopping) return exited;
      stopping = true;
      deactivate();
      // Held while it winds down: an unref'd worker would let the process end with `stop()` still pending.
      worker.ref();
      worker.postMessage({ type: 'stop' }, []);
      await exited;
    },
  };
}
