/**
 * The handle every aggregate module works on: the connection, the injected clock, a prepared-statement
 * cache, and the one write path (`BEGIN IMMEDIATE`, busy retry, SQLite errors mapped to RunwardenError).
 */
import type * as NodeFs from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { RunwardenError, isRunwardenError } from '../../shared/errors';
import type { DisplayOptions } from '../../shared/display-status';
import { UNTRUSTED_LIVENESS, type LivenessCheck } from './liveness';

// node:fs through require, not `import`: its ESM wrapper loads fs/promises and the stream modules into
// every runner call (docs/CLI.md#start-up).
const fs = createRequire(import.meta.url)('node:fs') as typeof NodeFs;

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

/** A statement a reader may run: it returns rows, and has no `run`. */
export type ReadStatement = Omit<Statement, 'run'>;

declare const readable: unique symbol;
declare const writable: unique symbol;

/**
 * What a read is handed (`this.read`): the store's clock and options and statements that only read. Its
 * `prep` has no `run` and refuses, as it prepares, any statement that would write (SQLite's own
 * `readonly` verdict), and it has no connection: a read function cannot write, by type or by accident.
 */
export interface ReadableDB {
  readonly [readable]: true;
  readonly clock: Clock;
  readonly displayOptions: DisplayOptions;
  /** The one liveness check (docs/LIVENESS.md); injectable so tests can stand in for another machine. */
  readonly liveness: LivenessCheck;
  readonly readOnlyReason: string | null;
  /** Extra tries of a write still busy after busy_timeout. */
  readonly busyRetries: number;
  /**
   * When set, a write still busy is tried again (with backoff) until this many ms have passed since its
   * first try, whatever `busyRetries` says: a runner's commands wait out a crowd of writers rather than
   * fail (docs/ARCHITECTURE.md#the-store-file).
   */
  readonly busyWaitMs: number | null;
  /** A monotonic ms clock for `busyWaitMs` (the store clock may be a test's, standing still). */
  readonly monotonic: () => number;
  readonly identity: StoreIdentity;
  readonly controlLeaseMs: number;
  prep(sql: string): ReadStatement;
  /** Recent search plans by needle (search-plan.ts): a page and its refreshes estimate once. */
  readonly searchPlans: Map<string, { plan: 'index' | 'walk'; at: number }>;
}

/** What a write is handed (`this.write`, inside its transaction): every statement, and the connection. */
export interface WritableDB extends Omit<ReadableDB, 'prep' | typeof readable> {
  readonly [writable]: true;
  readonly [readable]: true;
  readonly db: Database.Database;
  prep(sql: string): Statement;
}

/** Extra tries of a write still busy after busy_timeout, by default (with backoff). */
export const BUSY_RETRIES = 4;

/** The longest wait between two tries of a busy write. */
const BUSY_BACKOFF_MAX_MS = 1000;

/**
 * How long a runner's commands wait out a busy store in which nobody commits before failing
 * (docs/ARCHITECTURE.md#the-store-file); a store where others commit all along is waited on for up to
 * BUSY_WAIT_CAP times as long.
 */
export const RUNNER_BUSY_WAIT_MS = 30_000;
const BUSY_WAIT_CAP = 10;

export function createContext(
  db: Database.Database,
  clock: Clock,
  displayOptions: DisplayOptions,
  readOnlyReason: string | null,
  more: {
    busyRetries?: number;
    busyWaitMs?: number | null;
    monotonic?: () => number;
    identity?: StoreIdentity;
    controlLeaseMs?: number;
    liveness?: LivenessCheck;
  } = {},
): WritableDB {
  const cache = new Map<string, Statement>();
  return {
    db,
    clock,
    displayOptions,
    liveness: more.liveness ?? UNTRUSTED_LIVENESS,
    readOnlyReason,
    busyRetries: more.busyRetries ?? BUSY_RETRIES,
    busyWaitMs: more.busyWaitMs ?? null,
    monotonic: more.monotonic ?? (() => 0),
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
  } as WritableDB;
}

/** The reading side of a connection's context: the same cache, and only statements that read. */
export function readerOf(ctx: WritableDB): ReadableDB {
  const { db: _connection, prep, ...rest } = ctx;
  return {
    ...rest,
    prep(sql: string): ReadStatement {
      const stmt = prep(sql);
      if (!stmt.readonly)
        throw new RunwardenError('INTERNAL', `A read prepared a statement that writes: ${sql}`);
      return stmt;
    },
  } as ReadableDB;
}

/**
 * Runs `fn(now)` in one `BEGIN IMMEDIATE` transaction with `now` read from the store clock inside it
 * (docs/ARCHITECTURE.md#parts). SQLITE_BUSY that survives busy_timeout is retried with backoff, then
 * reported as BUSY.
 */
export function writeTx<T>(ctx: WritableDB, fn: (now: number) => T): T {
  if (ctx.readOnlyReason !== null) {
    throw new RunwardenError('READ_ONLY', `The store is open read-only: ${ctx.readOnlyReason}`);
  }
  const tx = ctx.db.transaction(() => fn(ctx.clock()));
  const first = ctx.busyWaitMs === null ? 0 : ctx.monotonic();
  let since = first;
  let seen = ctx.busyWaitMs === null ? 0 : dataVersion(ctx);
  for (let attempt = 0; ; attempt += 1) {
    try {
      return tx.immediate();
    } catch (error) {
      let again = attempt < ctx.busyRetries;
      if (ctx.busyWaitMs !== null) {
        // A crowd of writers commits all along: only a store where nobody committed for busyWaitMs (a
        // writer stopped inside its transaction) is given up on, and never after BUSY_WAIT_CAP times it.
        const version = dataVersion(ctx);
        const now = ctx.monotonic();
        if (version !== seen) {
          seen = version;
          since = now;
        }
        again = now - since < ctx.busyWaitMs && now - first < ctx.busyWaitMs * BUSY_WAIT_CAP;
      }
      if (isBusy(error) && again) {
        // Jittered, so writers that gave up together do not all come back together.
        sleepSync(Math.min(BUSY_BACKOFF_MAX_MS, 25 * 2 ** attempt) * (0.5 + Math.random()));
        continue;
      }
      throw mapStoreError(error, ctx.db.name);
    }
  }
}

/** SQLite's count of commits by other connections, or -1 when it cannot be read (then no progress is seen). */
function dataVersion(ctx: WritableDB): number {
  try {
    return ctx.db.pragma('data_version', { simple: true }) as number;
  } catch {
    return -1;
  }
}

/**
 * `writeTx` whose commit does not wait for an fsync (`synchronous = NORMAL` on this connection for this one
 * commit, FULL again after it). Only for a lease renewal that records nothing else: a power cut may lose the
 * last such commits and nothing after them (docs/ARCHITECTURE.md#lease-renewals). Inside another
 * transaction it is that transaction's write, and as durable.
 */
export function renewalTx<T>(ctx: WritableDB, fn: (now: number) => T): T {
  if (ctx.db.inTransaction) return writeTx(ctx, fn);
  ctx.prep('PRAGMA synchronous = NORMAL').run();
  try {
    return writeTx(ctx, fn);
  } finally {
    ctx.prep('PRAGMA synchronous = FULL').run();
  }
}

/**
 * Runs several reads in one read transaction, so they all see the same snapshot of the store (WAL: no
 * lock is taken, writers go on). Raw SQLite errors never escape.
 */
export function readTx<T>(ctx: WritableDB, fn: () => T): T {
  return readOp(ctx.db.transaction(fn).deferred, ctx.db.name);
}

/** Runs a read; raw SQLite errors never escape a public method. */
export function readOp<T>(fn: () => T, file?: string): T {
  try {
    return fn();
  } catch (error) {
    throw mapStoreError(error, file);
  }
}

/**
 * The store file's file system refuses writes (EROFS): remounted read-only, an ext4 "errors=remount-ro"
 * after a disk error included. A zero-length write changes nothing and still reports EROFS there.
 */
export function onReadOnlyFileSystem(file: string): boolean {
  let fd: number | null = null;
  try {
    fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(0), 0, 0, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS';
  } finally {
    if (fd !== null) fs.closeSync(fd);
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

/**
 * Maps anything thrown inside the store to a RunwardenError (INTERNAL at worst). `file`: the store file,
 * to tell an I/O error of a read-only file system from any other (docs/LIVENESS.md#outcomes-of-finished-commands).
 */
export function mapStoreError(error: unknown, file?: string): RunwardenError {
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
  // A file system remounted read-only under an open store fails writes with SQLITE_IOERR_* (EROFS).
  const readOnly =
    code.startsWith('SQLITE_READONLY') ||
    ((code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) &&
      file !== undefined &&
      file !== '' &&
      file !== ':memory:' &&
      readOnlySoon(file));
  if (readOnly) {
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

/**
 * The store's file system refuses writes now, or within ~100 ms: a remount to read-only fails the fsync it
 * interrupts (EIO, SQLITE_IOERR_FSYNC) a moment before the file system answers EROFS. Asked only after an
 * I/O error, so the wait costs nothing on the way of a write that worked.
 */
function readOnlySoon(file: string): boolean {
  for (let look = 0; look < 4; look += 1) {
    if (onReadOnlyFileSystem(file)) return true;
    sleepSync(25);
  }
  return onReadOnlyFileSystem(file);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
