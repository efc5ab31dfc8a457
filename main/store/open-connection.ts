/**
 * Opening the store file safely (docs/ARCHITECTURE.md#the-store-file). The file is inspected before SQLite touches it: a file that
 * is not ours (not SQLite, another application's id, truncated or damaged) is refused without writing a
 * byte; a newer schema, a read-only file or a read-only folder open read-only with a sentence saying why;
 * a 0-byte file is initialised only after checking, under the write lock, that it is still empty.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_DISPLAY_OPTIONS, type DisplayOptions } from '../../shared/display-status';
import { RunwardenError, StoreNotCreatedError } from '../../shared/errors';
import { MIGRATIONS, SUPPORTED_SCHEMA_VERSION, type Migration, type MigrationReport } from './migrations';
import { RECOUNT_FOR_MS, RECOUNT_KEY } from './migrations/migration';
import type { StoreMode } from '../../shared/views';
import { createLivenessCheck, type LivenessCheck } from './liveness';
import { machineIdentity, SYSTEM_PROBE } from './process-identity';
import { createContext, sqliteCode, type Clock, type WritableDB, type StoreIdentity } from './store-context';

/**
 * Runwarden's SQLite `application_id`: 0x52574431, the ASCII bytes "RWD1" (decimal 1381450801).
 * Fixed forever: it is how a Runwarden store is told apart from any other SQLite file.
 */
/** Why a store opened read-only: a newer schema, or a read-only file/folder/request. */
export type StoreModeReasonCode = 'STORE_NEWER' | 'READ_ONLY';

export interface StoreOpenState {
  path: string;
  mode: StoreMode;
  modeReason: string | null;
  modeReasonCode: StoreModeReasonCode | null;
  schemaVersion: number;
  /** Set when this open migrated the store: from → to and what the steps changed (docs/ARCHITECTURE.md#upgrades). */
  migrated?: MigrationReport | null;
}

export const APPLICATION_ID = 0x52574431;

// node:fs and node:os as Node's own objects, not through `import`: the ESM wrapper of node:fs reads every
// export, which loads fs/promises, readline and the stream modules (docs/CLI.md#start-up).
const fs = process.getBuiltinModule('node:fs');
const os = process.getBuiltinModule('node:os');

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** Files up to this size get a `quick_check` on open; bigger ones rely on `doctor`. */
const QUICK_CHECK_MAX_BYTES = 32 * 1024 * 1024;

export interface OpenStoreOptions {
  clock?: Clock;
  readonly?: boolean;
  /** Refuse a missing file instead of creating the store (read commands: a typo must not show an empty store). */
  mustExist?: boolean;
  /**
   * Run `quick_check` on open for files up to 32 MB (default true). A runner's frequent CLI calls (notify,
   * progress, step, effect) skip it (docs/ARCHITECTURE.md#the-store-file) and rely on SQLite refusing each damaged
   * page a statement reads (STORE_CORRUPT); `doctor` checks everything.
   */
  quickCheck?: boolean;
  /** busy_timeout in ms (default 5000). Tests lower it to keep a "locked" case fast. */
  busyTimeoutMs?: number;
  /**
   * Extra tries of a write still busy after busy_timeout (default 4, with backoff). The app and `serve` use
   * a short timeout and no retry: their main thread must not wait on another process's long transaction.
   */
  busyRetries?: number;
  /**
   * Try a busy write again until this many ms have passed, instead of `busyRetries` times: a runner's
   * commands (RUNNER_BUSY_WAIT_MS) wait out many writers starting at once rather than fail.
   */
  busyWaitMs?: number;
  displayOptions?: DisplayOptions;
  /** Who the store acts as when it takes a control claim (default: this process on this host). */
  identity?: StoreIdentity;
  /** How long a control claim is taken for (default CONTROL_LEASE_MS). */
  controlLeaseMs?: number;
  /** The liveness check (default: this machine's, by /proc; docs/LIVENESS.md). */
  liveness?: LivenessCheck;
  /** Writability check (default fs.accessSync); injectable because tests run as root, who may write anything. */
  access?: (target: string, mode: number) => void;
}

type Probe =
  | { kind: 'empty' }
  /** `userVersion`: the header's (bytes 60-63); a WAL may hold a newer one, so it proves nothing alone. */
  | { kind: 'sqlite'; fileSize: number; userVersion: number }
  | { kind: 'refuse'; error: RunwardenError };

function refuse(code: 'STORE_FOREIGN' | 'STORE_CORRUPT', file: string, why: string): Probe {
  const advice =
    code === 'STORE_FOREIGN'
      ? 'Runwarden will not touch it: move it away, or point RUNWARDEN_STORE / --store at another path.'
      : 'Runwarden will not write to it: restore a backup or move it away (then a new store is created).';
  return { kind: 'refuse', error: new RunwardenError(code, `${file} ${why}. ${advice}`) };
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** The target of `file` when it is a symbolic link whose target does not exist; else null. */
function danglingLink(file: string): string | null {
  try {
    if (!fs.lstatSync(file).isSymbolicLink() || fs.existsSync(file)) return null;
    return fs.readlinkSync(file);
  } catch {
    return null;
  }
}

/**
 * The store holds every run's commands, answers and notes: only its owner may read it. A file (or its
 * -wal/-shm) open to its group or others loses those bits when this user owns it; otherwise it is left.
 */
function tightenPermissions(file: string): void {
  for (const target of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      const stat = fs.statSync(target);
      const uid = process.getuid?.();
      // Drop the group and other bits only: a file its owner made read-only stays read-only.
      if ((stat.mode & 0o077) !== 0 && (uid === undefined || stat.uid === uid)) {
        fs.chmodSync(target, stat.mode & 0o700);
      }
    } catch {
      // Missing -wal/-shm, or a file we may not change: nothing to do.
    }
  }
}

/** Reads the 100-byte SQLite header without SQLite (nothing is opened for writing). */
function probeFile(file: string): Probe {
  const stat = fs.statSync(file);
  if (!stat.isFile()) return refuse('STORE_FOREIGN', file, 'is not a regular file');
  if (stat.size === 0) {
    // A 0-byte main file with a non-empty WAL is not empty: SQLite holds its pages in the WAL.
    return fileSize(`${file}-wal`) > 0 ? { kind: 'sqlite', fileSize: 0, userVersion: 0 } : { kind: 'empty' };
  }
  const header = Buffer.alloc(100);
  const fd = fs.openSync(file, 'r');
  let read: number;
  try {
    read = fs.readSync(fd, header, 0, 100, 0);
  } finally {
    fs.closeSync(fd);
  }
  const magicLength = Math.min(read, SQLITE_MAGIC.length);
  if (!header.subarray(0, magicLength).equals(SQLITE_MAGIC.subarray(0, magicLength))) {
    return refuse(
      'STORE_FOREIGN',
      file,
      'is not a SQLite database (its first bytes are not the SQLite header)',
    );
  }
  if (read < 100)
    return refuse('STORE_CORRUPT', file, `is truncated (${read} bytes, shorter than a SQLite header)`);
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return refuse('STORE_CORRUPT', file, `has a damaged header (page size ${rawPageSize})`);
  }
  // With a non-empty WAL the main file may be mid-checkpoint after a crash: its header can already claim
  // pages that only the WAL holds yet. SQLite recovers that on open, so the size checks only apply without one.
  const walPending = fileSize(`${file}-wal`) > 0;
  const pages = header.readUInt32BE(28);
  const sizeValid = header.readUInt32BE(24) === header.readUInt32BE(92);
  const short = (bytes: number): boolean =>
    bytes % pageSize !== 0 || (sizeValid && pages > 0 && bytes < pages * pageSize);
  // Another process's checkpoint may have been writing the file as it was looked at (the header first, the
  // last pages after) and then removed its WAL: a size that looks short is looked at once more.
  const size = !walPending && short(stat.size) ? fs.statSync(file).size : stat.size;
  if (!walPending && size % pageSize !== 0) {
    return refuse(
      'STORE_CORRUPT',
      file,
      `is truncated (${size} bytes is not a whole number of ${pageSize}-byte pages)`,
    );
  }
  if (!walPending && sizeValid && pages > 0 && size < pages * pageSize) {
    return refuse('STORE_CORRUPT', file, `is truncated (${size} of ${pages * pageSize} bytes)`);
  }
  // Decided from the header alone, before SQLite opens the file: opening another program's WAL database
  // would leave -wal/-shm files beside it. Only a 0-byte file is ours to initialise; a non-empty SQLite
  // file without our id (even one with no tables) belongs to someone else.
  const appId = header.readInt32BE(68);
  if (appId !== APPLICATION_ID) {
    return refuse(
      'STORE_FOREIGN',
      file,
      appId === 0
        ? 'is a SQLite database made by another program (no Runwarden application id)'
        : `is a SQLite database of another application (application_id 0x${(appId >>> 0).toString(16)})`,
    );
  }
  return { kind: 'sqlite', fileSize: stat.size, userVersion: header.readUInt32BE(60) };
}

function lockedError(file: string, busyTimeoutMs: number): RunwardenError {
  return new RunwardenError(
    'STORE_LOCKED',
    `${file} is locked: another program has held an exclusive lock on it for over ${busyTimeoutMs} ms. Close that program (or wait) and try again.`,
    { recovery: { kind: 'retryLater' } },
  );
}

function mapOpenError(error: unknown, file: string, busyTimeoutMs: number): RunwardenError {
  const code = sqliteCode(error) ?? '';
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof RunwardenError) return error;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return lockedError(file, busyTimeoutMs);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new RunwardenError(
      'STORE_CORRUPT',
      `${file} is damaged (${code}: ${detail}). Runwarden will not write to it: restore a backup or move it away.`,
    );
  }
  if (
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_PERM')
  ) {
    return new RunwardenError('READ_ONLY', `${file} cannot be opened for writing (${code}: ${detail}).`);
  }
  const internal = new RunwardenError('INTERNAL', `Could not open ${file}: ${code || 'error'} ${detail}`);
  internal.cause = error;
  return internal;
}

interface Identity {
  appId: number;
  userVersion: number;
  tables: number;
}

function readIdentity(db: Database.Database, quickCheck: boolean, file: string): Identity {
  const identity = {
    appId: db.pragma('application_id', { simple: true }) as number,
    userVersion: db.pragma('user_version', { simple: true }) as number,
    tables: (db.prepare(`SELECT count(*) AS n FROM sqlite_master`).get() as { n: number }).n,
  };
  if (quickCheck) {
    const result = db.pragma('quick_check(1)', { simple: true }) as string;
    if (result !== 'ok') {
      throw new RunwardenError(
        'STORE_CORRUPT',
        `${file} is damaged (quick_check: ${result}). Runwarden will not write to it: restore a backup or move it away.`,
      );
    }
  }
  return identity;
}

/**
 * What identifies the store, read through the read-write connection in one statement: the header's id and
 * version may be older than what the WAL holds, and counting sqlite_master makes SQLite read and parse the
 * schema, as the read-only identity connection does (a damaged schema page fails here, before any write).
 */
const CURRENT_IDENTITY_SQL = `SELECT a.application_id AS appId, u.user_version AS userVersion,
  (SELECT count(*) FROM sqlite_master) AS tables FROM pragma_application_id AS a, pragma_user_version AS u`;

/**
 * One connection instead of two when the header already shows a current Runwarden store and no
 * `quick_check` is due: the read-write connection itself confirms the id and version before anything is
 * written, and the store is used as it is (no migration is pending). Null when the connection shows
 * anything else (a newer schema in the WAL, say): the caller then takes the careful path. Exported for its
 * tests (test/main/store/open-current.test.ts).
 */
export function openCurrent(file: string, busyTimeoutMs: number): Database.Database | null {
  const db = new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const identity = db.prepare(CURRENT_IDENTITY_SQL).get() as Identity;
    if (
      identity.appId !== APPLICATION_ID ||
      identity.userVersion !== SUPPORTED_SCHEMA_VERSION ||
      identity.tables === 0
    ) {
      closeLeavingWal(db, file);
      return null;
    }
    applyPragmas(db, busyTimeoutMs, true);
    return db;
  } catch (error) {
    closeLeavingWal(db, file);
    throw error;
  }
}

/**
 * Closes a read-write connection without letting it checkpoint: the last connection to close copies the
 * WAL into the file, and a store this open turned down (damaged, or a newer schema only its WAL holds) is
 * left exactly as it was. A read-only connection that has read (and so holds its shared lock) keeps this
 * close from being the last, and a read-only one never checkpoints.
 */
function closeLeavingWal(db: Database.Database, file: string): void {
  let guard: Database.Database | null = null;
  try {
    guard = new Database(file, { readonly: true, fileMustExist: true });
    // A connection takes its lasting shared lock on its first read, not when it is opened.
    guard.pragma('user_version', { simple: true });
  } catch {
    // Not even read-only: the close below may then checkpoint, as any last connection's does.
  }
  try {
    db.close();
  } finally {
    guard?.close();
  }
}

/**
 * Applies the pending migrations, each in its own IMMEDIATE transaction. Exported for migration tests.
 * `changes` collects, per applied step that declares it, the sentence of what it changed in the data.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
  file = 'store',
  changes: string[] = [],
): number {
  for (const migration of migrations) {
    if ((db.pragma('user_version', { simple: true }) as number) >= migration.version) continue;
    db.transaction(() => {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version >= migration.version) return;
      if (version !== migration.version - 1) {
        throw new RunwardenError(
          'INTERNAL',
          `Cannot apply migration ${migration.name} to schema v${version}.`,
        );
      }
      if (version === 0) refuseForeign(db, file);
      const counted = countChanges(db, migration);
      db.exec(migration.sql);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${migration.version}`);
      if (counted !== null) changes.push(counted);
    }).immediate();
  }
  return db.pragma('user_version', { simple: true }) as number;
}

/** docs/ARCHITECTURE.md#the-store-file: initialise only what is verifiably empty, checked under the write lock. */
function refuseForeign(db: Database.Database, file: string): void {
  const tables = (db.prepare(`SELECT count(*) AS n FROM sqlite_master`).get() as { n: number }).n;
  const appId = db.pragma('application_id', { simple: true }) as number;
  if (tables !== 0 || appId !== 0) {
    throw new RunwardenError(
      'STORE_FOREIGN',
      `${file} is a SQLite database made by another program (it has tables but no Runwarden id). Runwarden will not touch it.`,
    );
  }
}

/** "N <what>" for a step that declares what it changes, when it changes anything; else null. */
function countChanges(db: Database.Database, migration: Migration): string | null {
  if (migration.changes === undefined) return null;
  const n = db.prepare(migration.changes.sql).pluck().get() as number;
  return n > 0 ? `${migration.name}: ${n} ${migration.changes.says}` : null;
}

/**
 * Migrates a store that had a schema (not a new one, which is only initialised) and records it: a
 * `store.migrated` event (from, to, what changed), and the report the command says on stderr.
 */
function migrateAndRecord(db: Database.Database, file: string): MigrationReport | null {
  const from = db.pragma('user_version', { simple: true }) as number;
  const changes: string[] = [];
  const to = migrate(db, MIGRATIONS, file, changes);
  if (from === 0 || from === to) return null;
  const payload = JSON.stringify({ from, to, changes });
  const now = Date.now();
  // A runner of the older schema may still be alive and write its way: the sweeper recounts the kept counts
  // until the runs live now have ended, and for an hour at least (docs/ARCHITECTURE.md#upgrades).
  const live = db
    .prepare(`SELECT id FROM runs WHERE status IN ('queued', 'running', 'waiting')`)
    .pluck()
    .all();
  db.prepare(
    `INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
  ).run(RECOUNT_KEY, JSON.stringify({ until: now + RECOUNT_FOR_MS, runs: live }), now);
  db.prepare(
    `INSERT INTO events (run_id, run_revision, type, actor_type, actor_id, surface, lease_generation, payload_json, at)
     VALUES (NULL, NULL, 'store.migrated', 'system', NULL, NULL, NULL, ?, ?)`,
  ).run(payload, now);
  return { from, to, changes };
}

/** Page cache per connection, in KiB as SQLite counts a negative cache_size. */
export const PAGE_CACHE_KIB = -16_384;

function applyPragmas(db: Database.Database, busyTimeoutMs: number, writable: boolean): void {
  // One exec, not a db.pragma() each: every call of it prepares a statement (a runner's call opens often).
  // 16 MiB of page cache (SQLite's default is 2 MiB): the attention summary and the needs-you page touch
  // more than 2 MiB of a 100k-run store and re-read it from the OS on every call (docs/PERFORMANCE.md).
  // better-sqlite3 compiles WAL with synchronous=NORMAL; the store wants FULL (docs/ARCHITECTURE.md#the-store-file), set explicitly.
  db.exec(
    `PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA foreign_keys = ON; PRAGMA cache_size = ${PAGE_CACHE_KIB};` +
      (writable ? ' PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;' : ''),
  );
}

/** A read-only copy in memory, for a folder where SQLite cannot create its -wal/-shm files. */
function openSnapshot(file: string): Database.Database {
  const bytes = fs.readFileSync(file);
  // An in-memory database cannot use WAL: mark the copy as rollback-journal (bytes 18-19). The file is untouched.
  if (bytes.length >= 20 && bytes[18] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  return new Database(bytes, { readonly: true });
}

/** An open connection and what it was opened as; `openStore` / `openRunnerStore` wrap it in their class. */
export interface OpenedStore {
  ctx: WritableDB;
  state: StoreOpenState;
}

/** Whether this process may write `target` (opts.access, else fs.accessSync). */
type WritableCheck = (target: string) => boolean;

/** What the store opens as, and the sentence saying why when it is read-only. */
interface ModeDecision {
  mode: StoreMode;
  reason: string | null;
  reasonCode: StoreModeReasonCode | null;
}

const READ_WRITE: ModeDecision = { mode: 'read-write', reason: null, reasonCode: null };

/**
 * Phase 1, the path: refuses a dangling symbolic link and, when allowed to create, makes the folder and an
 * empty file; a read command (`mustExist`) or a read-only open refuses a missing file instead.
 */
function ensureFile(file: string, opts: OpenStoreOptions, writable: WritableCheck): void {
  const dir = path.dirname(file);
  const link = danglingLink(file);
  if (link !== null) {
    throw new RunwardenError(
      'NOT_FOUND',
      `${file} is a symbolic link to ${link}, which does not exist. Runwarden will not create a store through it: fix or remove the link, or point RUNWARDEN_STORE / --store at the real file.`,
    );
  }
  if (fs.existsSync(file)) return;
  if (opts.readonly === true || opts.mustExist === true) {
    throw new RunwardenError(
      'NOT_FOUND',
      `There is no store at ${file}. Check the path (--store, RUNWARDEN_STORE); a store is created by the first command that writes.`,
    );
  }
  try {
    makeFolders(dir, 0o700);
  } catch (error) {
    throw new StoreNotCreatedError(`Cannot create the store folder ${dir}: ${(error as Error).message}`);
  }
  if (!writable(dir)) {
    throw new StoreNotCreatedError(`Cannot create a store in ${dir}: the folder is read-only.`);
  }
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new StoreNotCreatedError(`Cannot create ${file}: ${(error as Error).message}`);
    }
  }
}

/**
 * `mkdir -p`, one folder at a time from the nearest one that exists. Node's recursive mkdir never returns
 * under /proc (each mkdir there fails with ENOENT, which it answers by creating the parent again); this
 * fails there with that ENOENT.
 */
export function makeFolders(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let at = dir; !fs.existsSync(at); at = path.dirname(at)) {
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** A read-only connection that never creates journal files where the folder cannot hold them. */
function openReader(file: string, dirWritable: boolean, busyTimeoutMs: number): Database.Database {
  return dirWritable || fs.existsSync(`${file}-shm`)
    ? new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs })
    : openSnapshot(file);
}

/**
 * Phase 2, identity: reads the application id, schema version and (for a small file) `quick_check`
 * through a read-only connection; refuses another program's database, and opens a newer schema read-only.
 */
function checkIdentity(
  file: string,
  probe: Probe,
  quickCheck: boolean,
  dirWritable: boolean,
  busyTimeoutMs: number,
): { identity: Identity; decision: ModeDecision } {
  const none: Identity = { appId: 0, userVersion: 0, tables: 0 };
  if (probe.kind !== 'sqlite') return { identity: none, decision: READ_WRITE };
  let identity = none;
  let db: Database.Database | null = null;
  try {
    db = openReader(file, dirWritable, busyTimeoutMs);
    identity = readIdentity(db, quickCheck, file);
  } catch (error) {
    throw mapOpenError(error, file, busyTimeoutMs);
  } finally {
    db?.close();
  }
  const emptyButWal = probe.fileSize === 0 && identity.appId === 0 && identity.tables === 0;
  if ((identity.appId !== APPLICATION_ID || identity.userVersion < 1) && !emptyButWal) {
    throw new RunwardenError(
      'STORE_FOREIGN',
      identity.appId === 0 || identity.appId === APPLICATION_ID
        ? `${file} is a SQLite database made by another program (no Runwarden schema). Runwarden will not touch it.`
        : `${file} is a SQLite database of another application (application_id 0x${(identity.appId >>> 0).toString(16)}). Runwarden will not touch it.`,
    );
  }
  if (identity.userVersion > SUPPORTED_SCHEMA_VERSION) {
    return {
      identity,
      decision: {
        mode: 'read-only',
        reasonCode: 'STORE_NEWER',
        reason: `This store was written by a newer Runwarden (schema v${identity.userVersion}; this version understands up to v${SUPPORTED_SCHEMA_VERSION}). It is shown read-only; update Runwarden to change it.`,
      },
    };
  }
  return { identity, decision: READ_WRITE };
}

/** Phase 3, the mode: read-only on request, or because the file or its folder cannot be written. */
function decideMode(
  file: string,
  opts: OpenStoreOptions,
  writable: WritableCheck,
  dirWritable: boolean,
): ModeDecision {
  const readOnly = (reason: string): ModeDecision => ({ mode: 'read-only', reasonCode: 'READ_ONLY', reason });
  if (opts.readonly === true) return readOnly('Opened read-only on request.');
  if (!writable(file))
    return readOnly(
      `The store file ${file} is read-only (check its permissions or attributes); changes are disabled.`,
    );
  if (!dirWritable)
    return readOnly(
      `The store folder ${path.dirname(file)} is read-only, so SQLite cannot create its journal files; showing a read-only snapshot.`,
    );
  return READ_WRITE;
}

/** Phase 4, the connection: read-only as decided, else writable and migrated to the current schema. */
function openForMode(
  file: string,
  mode: StoreMode,
  dirWritable: boolean,
  busyTimeoutMs: number,
): { db: Database.Database; migrated: MigrationReport | null } {
  try {
    if (mode === 'read-only') {
      const db = openReader(file, dirWritable, busyTimeoutMs);
      applyPragmas(db, busyTimeoutMs, false);
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      return { db, migrated: null };
    }
    const db = new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
    let migrated: MigrationReport | null;
    try {
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      migrated = migrateAndRecord(db, file);
      applyPragmas(db, busyTimeoutMs, true);
    } catch (error) {
      db.close();
      throw error;
    }
    return { db, migrated };
  } catch (error) {
    throw mapOpenError(error, file, busyTimeoutMs);
  }
}

/** Phase 5, the context: the connection with its clock, display options, identity and liveness check. */
function contextFor(
  db: Database.Database,
  file: string,
  opts: OpenStoreOptions,
  decision: ModeDecision,
  schemaVersion: number,
): OpenedStore {
  const ctx = createContext(
    db,
    opts.clock ?? Date.now,
    opts.displayOptions ?? DEFAULT_DISPLAY_OPTIONS,
    decision.mode === 'read-only' ? (decision.reason ?? 'read-only') : null,
    {
      busyRetries: opts.busyRetries,
      busyWaitMs: opts.busyWaitMs ?? null,
      monotonic: () => performance.now(),
      identity: opts.identity ?? { pid: process.pid, hostname: os.hostname() },
      controlLeaseMs: opts.controlLeaseMs,
      liveness: opts.liveness ?? createLivenessCheck(machineIdentity(), SYSTEM_PROBE),
    },
  );
  return {
    ctx,
    state: {
      path: file,
      mode: decision.mode,
      modeReason: decision.reason,
      modeReasonCode: decision.reasonCode,
      schemaVersion,
    },
  };
}

/**
 * Opens (creating if needed) the store at `storePath`. See the module comment for the bad-file rules.
 * Shared by the whole store (open-store.ts) and the runner's side (runner-store.ts), so both refuse the same files.
 * In phases: the path, the bytes (probeFile), a fast path for a current store that needs no check, the
 * identity, the mode, the connection and its context.
 */
/** Opens that cost one more try: another process changed the schema while this one read it (below). */
const SCHEMA_CHANGED_TRIES = 3;

/**
 * Opens the store. Another process that creates or migrates the schema while this one reads it makes SQLite
 * answer SQLITE_SCHEMA (seen as "vtable constructor failed: run_search" when two runners start at once on a new
 * store); the change is committed by then, so the open is simply tried again.
 */
export function openConnection(storePath: string, opts: OpenStoreOptions = {}): OpenedStore {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return openConnectionOnce(storePath, opts);
    } catch (error) {
      if (attempt >= SCHEMA_CHANGED_TRIES || !schemaChanged(error)) throw error;
    }
  }
}

function schemaChanged(error: unknown): boolean {
  return (
    sqliteCode(error) === 'SQLITE_SCHEMA' ||
    (error instanceof Error && sqliteCode(error.cause) === 'SQLITE_SCHEMA')
  );
}

function openConnectionOnce(storePath: string, opts: OpenStoreOptions): OpenedStore {
  const file = path.resolve(storePath);
  const busyTimeoutMs = opts.busyTimeoutMs ?? 5000;
  const access = opts.access ?? ((target: string, mode: number) => fs.accessSync(target, mode));
  const writable: WritableCheck = (target) => {
    try {
      access(target, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };

  ensureFile(file, opts, writable);
  const probe = probeFile(file);
  if (probe.kind === 'refuse') throw probe.error;
  tightenPermissions(file);

  const dirWritable = writable(path.dirname(file));
  const quickCheck =
    (opts.quickCheck ?? true) && probe.kind === 'sqlite' && probe.fileSize <= QUICK_CHECK_MAX_BYTES;
  if (
    probe.kind === 'sqlite' &&
    probe.userVersion === SUPPORTED_SCHEMA_VERSION &&
    !quickCheck &&
    opts.readonly !== true &&
    dirWritable &&
    writable(file)
  ) {
    let db: Database.Database | null;
    try {
      db = openCurrent(file, busyTimeoutMs);
    } catch (error) {
      throw mapOpenError(error, file, busyTimeoutMs);
    }
    if (db !== null) return contextFor(db, file, opts, READ_WRITE, SUPPORTED_SCHEMA_VERSION);
  }

  const checked = checkIdentity(file, probe, quickCheck, dirWritable, busyTimeoutMs);
  const decision =
    checked.decision.mode === 'read-only' ? checked.decision : decideMode(file, opts, writable, dirWritable);
  if (
    decision.mode === 'read-only' &&
    (probe.kind === 'empty' || checked.identity.userVersion < SUPPORTED_SCHEMA_VERSION)
  ) {
    throw new RunwardenError(
      'READ_ONLY',
      `${file} ${probe.kind === 'empty' ? 'is empty' : `uses schema v${checked.identity.userVersion}`} and needs initialising, but ${decision.reason ?? 'it is read-only'}`,
    );
  }
  const { db, migrated } = openForMode(file, decision.mode, dirWritable, busyTimeoutMs);
  const opened = contextFor(db, file, opts, decision, db.pragma('user_version', { simple: true }) as number);
  opened.state.migrated = migrated;
  return opened;
}
