/**
 * The handle every aggregate module works on: the connection, the injected clock, a prepared-statement
 * cache, and the one write path (`BEGIN IMMEDIATE`, busy retry, SQLite errors mapped to RunwardenError).
 */
import type Database from 'better-sqlite3';
import { RunwardenError, isRunwardenError } from '../../shared/errors';
import type { DisplayOptions } from '../../shared/display-status';
import { UNTRUSTED_LIVENESS, type LivenessCheck } from './liveness';

/** Epoch milliseconds. Injected so tests never sleep and `now` is always the store's, never a caller's. */
export type Clock = () => number;

export type Statement = Database.Statement<unknown[], unknown>;

/**
 * The process the store acts as when it takes a lease itself (a person's control claim). Handed in by
 * `openStore` (docs/ARCHITECTURE.md#leases-and-fencing): nothing under main/store reads `process` or `os`
 * on its own. Null parts are recorded as unknown.
 */
export interface StoreIdentity {
  pid: number | null;
  hostname: string | null;
}

/** How long a person's control claim (cancel of a stale run) is taken for; it is released in the same transaction. */
export const CONTROL_LEASE_MS = 60_000;

export interface StoreContext {
  readonly db: Database.Database;
  readonly clock: Clock;
  readonly displayOptions: DisplayOptions;
  /** The one liveness check (docs/LIVENESS.md); injectable so tests can stand in for another machine. */
  readonly liveness: LivenessCheck;
  readonly readOnlyReason: string | null;
  /** Extra tries of a write still busy after busy_timeout. */
  readonly busyRetries: number;
  readonly identity: StoreIdentity;
  readonly controlLeaseMs: number;
  prep(sql: string): Statement;
  /** Recent search plans by needle (run-queries.ts, searchPlan): a page and its refreshes estimate once. */
  readonly searchPlans: Map<string, { plan: 'index' | 'walk'; at: number }>;
}

/**
 * Declared as a store method's `this` (`heartbeat(this: Writes<RunnerStore>, ...)`), marks the method as a
 * write: `StoreReader` (store-facets.ts) leaves every such method out, so a reader handle cannot call one.
 */
export type Writes<Store> = Store;

/** Extra tries of a write still busy after busy_timeout, by default (with backoff). */
export const BUSY_RETRIES = 4;

export function createContext(
  db: Database.Database,
  clock: Clock,
  displayOptions: DisplayOptions,
  readOnlyReason: string | null,
  more: {
    busyRetries?: number;
    identity?: StoreIdentity;
    controlLeaseMs?: number;
    liveness?: LivenessCheck;
  } = {},
): StoreContext {
  const cache = new Map<string, Statement>();
  return {
    db,
    clock,
    displayOptions,
    liveness: more.liveness ?? UNTRUSTED_LIVENESS,
    readOnlyReason,
    busyRetries: more.busyRetries ?? BUSY_RETRIES,
    identity: more.identity ?? { pid: null, hostname: null },
    controlLeaseMs: more.controlLeaseMs ?? CONTROL_LEASE_MS,
    searchPlans: new Map(),
    prep(sql: string): Statement {
      let stmt = cache.get(sql);
      if (stmt === undefined) {
        stmt = db.prepare(sql);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/**
 * Runs `fn(now)` in one `BEGIN IMMEDIATE` transaction with `now` read from the store clock inside it
 * (docs/ARCHITECTURE.md#parts). SQLITE_BUSY that survives busy_timeout is retried with backoff, then
 * reported as BUSY.
 */
export function writeTx<T>(ctx: StoreContext, fn: (now: number) => T): T {
  if (ctx.readOnlyReason !== null) {
    throw new RunwardenError('READ_ONLY', `The store is open read-only: ${ctx.readOnlyReason}`);
  }
  const tx = ctx.db.transaction(() => fn(ctx.clock()));
  for (let attempt = 0; ; attempt += 1) {
    try {
      return tx.immediate();
    } catch (error) {
      if (isBusy(error) && attempt < ctx.busyRetries) {
        sleepSync(25 * 2 ** attempt);
        continue;
      }
      throw mapStoreError(error);
    }
  }
}

/**
 * Runs several reads in one read transaction, so they all see the same snapshot of the store (WAL: no
 * lock is taken, writers go on). Raw SQLite errors never escape.
 */
export function readTx<T>(ctx: StoreContext, fn: () => T): T {
  return readOp(ctx.db.transaction(fn).deferred);
}

/** Runs a read; raw SQLite errors never escape a public method. */
export function readOp<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw mapStoreError(error);
  }
}

export function sqliteCode(error: unknown): string | null {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  }
  return null;
}

function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== null && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Maps anything thrown inside the store to a RunwardenError (INTERNAL at worst). */
export function mapStoreError(error: unknown): RunwardenError {
  if (isRunwardenError(error)) return error;
  const code = sqliteCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code === null) return new RunwardenError('INTERNAL', `Unexpected store failure: ${detail}`);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new RunwardenError(
      'BUSY',
      'The store is busy (another program is writing); try again in a moment.',
      {
        recovery: { kind: 'retryLater' },
      },
    );
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new RunwardenError('STORE_CORRUPT', `The store file is damaged (${code}): ${detail}`);
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new RunwardenError(
      'READ_ONLY',
      `The store cannot be written: its file or folder is read-only (${code}). Nothing was changed.`,
    );
  }
  // SQLITE_IOERR_WRITE / _FSYNC / _TRUNCATE are what ENOSPC becomes on some file systems.
  if (code === 'SQLITE_FULL' || /ENOSPC|No space left/i.test(detail)) {
    return new RunwardenError(
      'DISK_FULL',
      'The disk holding the store is full: nothing was written. Free some space; Runwarden keeps what it has and tries again.',
    );
  }
  return new RunwardenError('INTERNAL', `Store error ${code}: ${detail}`);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
