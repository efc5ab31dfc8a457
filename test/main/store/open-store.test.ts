/**
 * Bad files (docs/ARCHITECTURE.md#the-store-file): each gets its own clear message and mode, and the file's bytes are unchanged.
 * Tests run as root, who ignores permission bits, so read-only cases use `chattr +i` (immutable: even root
 * cannot write) when the filesystem supports it, and the mode selection is also tested through the
 * injectable `access` check. A case that cannot be set up is skipped with the reason, never faked.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { RunwardenError } from '../../../shared/errors';
import { APPLICATION_ID, openStore, PAGE_CACHE_KIB } from '../../../main/store/open-store';
import { SUPPORTED_SCHEMA_VERSION } from '../../../main/store/migrations';
import { createFakeClock, HUMAN, makeTempDir, RUNNER_ACTOR } from '../../helpers/temp-store';
import { expectHealthy } from './invariants';

const dirs: string[] = [];
const immutable: string[] = [];
afterEach(() => {
  for (const target of immutable.splice(0)) chattr('-i', target);
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = makeTempDir('runwarden-open-');
  dirs.push(dir);
  return dir;
}

function sha(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function chattr(flag: '+i' | '-i', target: string): boolean {
  try {
    execFileSync('chattr', [flag, target], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes a path immutable; false when this machine cannot (no chattr, unsupported filesystem, not root). */
function makeImmutable(target: string): boolean {
  if (!chattr('+i', target)) return false;
  immutable.push(target);
  try {
    fs.appendFileSync(path.join(target, fs.statSync(target).isDirectory() ? 'probe' : ''), '');
    return false; // still writable: the attribute did not take
  } catch {
    return true;
  }
}

/** Skipped cases say so in their names: they need `chattr +i` (root on ext4/xfs/btrfs). */
const CHATTR_WORKS = (() => {
  const dir = makeTempDir('runwarden-chattr-');
  const file = path.join(dir, 'f');
  fs.writeFileSync(file, 'x');
  let works = false;
  if (chattr('+i', file)) {
    try {
      fs.appendFileSync(file, 'y');
    } catch {
      works = true;
    }
    chattr('-i', file);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return works;
})();

function openError(file: string, opts: Parameters<typeof openStore>[1] = {}): RunwardenError {
  try {
    openStore(file, opts).close();
  } catch (error) {
    if (error instanceof RunwardenError) return error;
    throw error;
  }
  throw new Error('expected openStore to refuse');
}

/** A real store with a run in it, closed (WAL checkpointed into the main file). */
function makeStore(dir: string): string {
  const file = path.join(dir, 'state.sqlite');
  const project = path.join(dir, 'project');
  fs.mkdirSync(project, { recursive: true });
  const store = openStore(file, { clock: createFakeClock() });
  for (let i = 0; i < 40; i += 1) {
    store.reserveRun(
      { projectPath: project, workflow: 'w', title: `run ${i} ${'x'.repeat(200)}` },
      RUNNER_ACTOR,
    );
  }
  store.close();
  return file;
}

describe('creating a store', () => {
  it('creates the folder 0700 and the file 0600, with WAL, synchronous FULL, foreign keys and the app id', () => {
    const dir = tempDir();
    const file = path.join(dir, 'nested', 'runwarden', 'state.sqlite');
    const store = openStore(file, { clock: createFakeClock() });
    try {
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.db.pragma('synchronous', { simple: true })).toBe(2); // FULL
      expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
      // 16 MiB page cache: the attention summary's working set at 100k runs (docs/PERFORMANCE.md).
      expect(store.db.pragma('cache_size', { simple: true })).toBe(PAGE_CACHE_KIB);
      expect(store.db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
      expect(store.db.pragma('user_version', { simple: true })).toBe(SUPPORTED_SCHEMA_VERSION);
      expect(store.info()).toMatchObject({
        mode: 'read-write',
        modeReason: null,
        schemaVersion: SUPPORTED_SCHEMA_VERSION,
        supportedVersion: SUPPORTED_SCHEMA_VERSION,
      });
      expectHealthy(store);
    } finally {
      store.close();
    }
  });

  it('initialises a 0-byte file (after checking it is empty)', () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.sqlite');
    fs.writeFileSync(file, '');
    const store = openStore(file);
    expect(store.mode).toBe('read-write');
    expect(store.db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    store.close();
  });

  it('refuses a non-empty SQLite database without our id, even one with no tables, and leaves no -wal/-shm', () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.sqlite');
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma('user_version = 0');
    raw.close();
    const before = fs.readFileSync(file);
    expect(before.length).toBeGreaterThan(0);
    expect(() => openStore(file)).toThrow(/made by another program/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['state.sqlite']);
  });

  it('reopens an existing store without migrating or changing it', () => {
    const dir = tempDir();
    const file = makeStore(dir);
    const store = openStore(file);
    expect(store.listRuns({ limit: 100 }).items).toHaveLength(40);
    store.close();
  });
});

describe('refused files keep their bytes', () => {
  it('not SQLite → STORE_FOREIGN', () => {
    const file = path.join(tempDir(), 'state.sqlite');
    fs.writeFileSync(file, 'this is my shopping list, not a database\n'.repeat(100));
    const before = sha(file);
    const error = openError(file);
    expect(error.code).toBe('STORE_FOREIGN');
    expect(error.message).toMatch(/is not a SQLite database/);
    expect(sha(file)).toBe(before);
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('a SQLite database of another application → STORE_FOREIGN naming its id', () => {
    const file = path.join(tempDir(), 'other.sqlite');
    const raw = new Database(file);
    raw.pragma('application_id = 1234');
    raw.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1);');
    raw.close();
    const before = sha(file);
    const error = openError(file);
    expect(error.code).toBe('STORE_FOREIGN');
    expect(error.message).toMatch(/another application \(application_id 0x4d2\)/);
    expect(sha(file)).toBe(before);
  });

  it('a SQLite database with tables but no application id → STORE_FOREIGN', () => {
    const file = path.join(tempDir(), 'plain.sqlite');
    const raw = new Database(file);
    raw.exec('CREATE TABLE notes (x); INSERT INTO notes VALUES (1);');
    raw.close();
    const before = sha(file);
    const error = openError(file);
    expect(error.code).toBe('STORE_FOREIGN');
    expect(error.message).toMatch(/made by another program/);
    expect(sha(file)).toBe(before);
  });

  it.each([
    [
      'to half its pages',
      (size: number) => Math.floor(size / 2 / 4096) * 4096,
      /is truncated \(\d+ of \d+ bytes\)/,
    ],
    ['mid-page', (size: number) => size - 1000, /not a whole number of 4096-byte pages/],
    ['inside the header', () => 50, /shorter than a SQLite header/],
  ])('truncated %s → STORE_CORRUPT', (_name, newSize, message) => {
    const file = makeStore(tempDir());
    fs.truncateSync(file, newSize(fs.statSync(file).size));
    const before = sha(file);
    const error = openError(file);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toMatch(message);
    expect(sha(file)).toBe(before);
  });

  it('damaged pages → STORE_CORRUPT', () => {
    const file = makeStore(tempDir());
    const bytes = fs.readFileSync(file);
    // Overwrite every page after the first with garbage; the header stays valid.
    for (let i = 4096; i < bytes.length; i += 1) bytes[i] = (i * 131) & 0xff;
    fs.writeFileSync(file, bytes);
    const before = sha(file);
    const error = openError(file);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toMatch(/damaged/);
    expect(sha(file)).toBe(before);
  });
});

describe('read-only modes', () => {
  it('a newer schema opens read-only (STORE_NEWER), reads work, writes are refused, bytes unchanged', () => {
    const dir = tempDir();
    const file = makeStore(dir);
    const raw = new Database(file);
    const newer = SUPPORTED_SCHEMA_VERSION + 1;
    raw.pragma(`user_version = ${newer}`);
    raw.close();
    const before = sha(file);
    const store = openStore(file);
    try {
      expect(store.mode).toBe('read-only');
      expect(store.modeReasonCode).toBe('STORE_NEWER');
      expect(store.modeReason).toContain(
        `newer Runwarden (schema v${newer}; this version understands up to v${SUPPORTED_SCHEMA_VERSION})`,
      );
      expect(store.listRuns({ limit: 5 }).items).toHaveLength(5);
      const error = (() => {
        try {
          store.setSetting('x', 1, HUMAN);
        } catch (e) {
          return e as RunwardenError;
        }
        return null;
      })();
      expect(error?.code).toBe('READ_ONLY');
    } finally {
      store.close();
    }
    expect(sha(file)).toBe(before);
  });

  it('mode selection: an unwritable file or folder (injected access check) opens read-only with its own reason', () => {
    const dir = tempDir();
    const file = makeStore(dir);
    const before = sha(file);
    const deny = (target: string) => (p: string) => {
      if (p === target) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
    };
    const fileRo = openStore(file, { access: deny(file) });
    expect(fileRo.mode).toBe('read-only');
    expect(fileRo.modeReason).toMatch(/store file .* is read-only/);
    expect(fileRo.listRuns({ limit: 1 }).items).toHaveLength(1);
    fileRo.close();
    const dirRo = openStore(file, { access: deny(dir) });
    expect(dirRo.mode).toBe('read-only');
    expect(dirRo.modeReason).toMatch(/folder .* is read-only/);
    expect(dirRo.listRuns({ limit: 100 }).items).toHaveLength(40);
    dirRo.close();
    const requested = openStore(file, { readonly: true });
    expect(requested.modeReason).toBe('Opened read-only on request.');
    requested.close();
    expect(sha(file)).toBe(before);
  });

  it.skipIf(!CHATTR_WORKS)(
    'a really read-only file (chattr +i; skipped where chattr is unavailable) opens read-only; bytes unchanged',
    () => {
      const dir = tempDir();
      const file = makeStore(dir);
      const before = sha(file);
      expect(makeImmutable(file)).toBe(true);
      const store = openStore(file);
      try {
        expect(store.mode).toBe('read-only');
        expect(store.modeReasonCode).toBe('READ_ONLY');
        expect(store.modeReason).toMatch(/store file .* is read-only/);
        expect(store.listRuns({ limit: 100 }).items).toHaveLength(40);
      } finally {
        store.close();
      }
      expect(sha(file)).toBe(before);
    },
  );

  it.skipIf(!CHATTR_WORKS)(
    'a really read-only folder (chattr +i; skipped where chattr is unavailable) opens a read-only snapshot; bytes unchanged',
    () => {
      const dir = tempDir();
      const file = makeStore(path.join(dir, 'data'));
      const before = sha(file);
      expect(makeImmutable(path.dirname(file))).toBe(true);
      const store = openStore(file);
      try {
        expect(store.mode).toBe('read-only');
        expect(store.modeReason).toMatch(/folder .* is read-only/);
        expect(store.listRuns({ limit: 100 }).items).toHaveLength(40);
      } finally {
        store.close();
      }
      expect(sha(file)).toBe(before);
      expect(fs.readdirSync(path.dirname(file))).toEqual(['project', 'state.sqlite']);
    },
  );

  it.skipIf(!CHATTR_WORKS)(
    'cannot create a store in a read-only folder (chattr +i; skipped where unavailable) → READ_ONLY',
    () => {
      const dir = tempDir();
      expect(makeImmutable(dir)).toBe(true);
      expect(openError(path.join(dir, 'state.sqlite')).code).toBe('READ_ONLY');
    },
  );
});

describe('a locked store', () => {
  it('another process holding an exclusive lock → STORE_LOCKED with a clear message; bytes unchanged', async () => {
    const dir = tempDir();
    const file = makeStore(dir);
    const script = `
      const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
      const db = new Database(${JSON.stringify(file)});
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      process.stdout.write('locked\\n');
      process.stdin.on('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
    `;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('locked')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`locker exited early (${code})`)));
    });
    try {
      const before = sha(file);
      const error = openError(file, { busyTimeoutMs: 200 });
      expect(error.code).toBe('STORE_LOCKED');
      expect(error.message).toMatch(/another program has held an exclusive lock on it for over 200 ms/);
      expect(error.recovery).toEqual({ kind: 'retryLater' });
      expect(sha(file)).toBe(before);
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.stdin.write('go\n');
      await exited;
    }
    const store = openStore(file);
    expect(store.listRuns({ limit: 100 }).items).toHaveLength(40);
    store.close();
  });
});

describe('a store left mid-checkpoint by a crash', () => {
  it('opens when the main file claims pages only its WAL holds yet, and keeps every committed run', () => {
    const dir = makeTempDir();
    const live = path.join(dir, 'live.sqlite');
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    const writer = openStore(live, { clock: createFakeClock() });
    const first = writer.reserveRun({ projectPath: project, workflow: 'w', title: 'before' }, RUNNER_ACTOR);
    writer.checkpoint();
    writer.db.pragma('wal_autocheckpoint = 0');
    for (let i = 0; i < 200; i++) {
      writer.reserveRun(
        { projectPath: project, workflow: 'w', title: `after ${i} ${'x'.repeat(400)}` },
        RUNNER_ACTOR,
      );
    }
    // Copy the files as a crash would leave them: the WAL holds the new pages, the main file does not.
    const crashed = path.join(dir, 'crashed.sqlite');
    fs.copyFileSync(live, crashed);
    fs.copyFileSync(`${live}-wal`, `${crashed}-wal`);
    writer.close();
    // A checkpoint that wrote page 1 (with the new page count) before the pages themselves.
    const bytes = fs.readFileSync(crashed);
    const pageSize = bytes.readUInt16BE(16);
    const pages = bytes.length / pageSize;
    bytes.writeUInt32BE(pages + 50, 28);
    bytes.writeUInt32BE(bytes.readUInt32BE(24), 92);
    fs.writeFileSync(crashed, bytes);

    const reopened = openStore(crashed, { clock: createFakeClock() });
    expect(reopened.getRun(first.id).title).toBe('before');
    expect(reopened.listRuns({ view: 'all', limit: 500 }).items).toHaveLength(201);
    expect(reopened.doctor().integrity).toBe('ok');
    reopened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
