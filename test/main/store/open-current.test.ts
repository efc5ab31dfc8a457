/**
 * Opening a current store with one connection (docs/ARCHITECTURE.md#the-store-file): when the header shows a
 * current Runwarden store and no quick_check is due, the read-write connection itself confirms the id, the
 * version and a readable schema. Each case here takes that path (quickCheck: false, or a runner's store) and
 * checks that it refuses what the careful path refuses, with the file's bytes unchanged.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RunwardenError } from '../../../shared/errors';
import { APPLICATION_ID, openCurrent } from '../../../main/store/open-connection';
import { openStore } from '../../../main/store/open-store';
import { openRunnerStore } from '../../../main/store/runner-store';
import { SUPPORTED_SCHEMA_VERSION } from '../../../main/store/migrations';
import { createFakeClock, makeTempDir, RUNNER_ACTOR } from '../../helpers/temp-store';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** A real store with 40 runs, closed (its WAL checkpointed into the file). */
function makeStore(): string {
  const dir = makeTempDir('runwarden-open-current-');
  dirs.push(dir);
  const file = path.join(dir, 'state.sqlite');
  const project = path.join(dir, 'project');
  fs.mkdirSync(project);
  const store = openStore(file, { clock: createFakeClock() });
  for (let i = 0; i < 40; i += 1) {
    store.reserveRun({ projectPath: project, workflow: 'w', title: `run ${i}` }, RUNNER_ACTOR);
  }
  store.close();
  return file;
}

/**
 * The store as a crash would leave it after `change` committed: a copy of the file and its WAL taken while
 * the writer is still open, so the change is in the WAL only and the file's header does not show it.
 */
function withChangeInWal(file: string, change: string): string {
  const writer = new Database(file);
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec(change);
  const copy = path.join(path.dirname(file), 'crashed.sqlite');
  fs.copyFileSync(file, copy);
  fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
  writer.close();
  return copy;
}

function header(file: string): { appId: number; userVersion: number } {
  const bytes = fs.readFileSync(file).subarray(0, 100);
  return { appId: bytes.readInt32BE(68), userVersion: bytes.readUInt32BE(60) };
}

function refusal(open: () => { close(): void }): RunwardenError {
  try {
    open().close();
  } catch (error) {
    if (error instanceof RunwardenError) return error;
    throw error;
  }
  throw new Error('expected the open to refuse');
}

const OPENERS = [
  ['openStore, no quick_check', (file: string) => openStore(file, { quickCheck: false })],
  ['openRunnerStore', (file: string) => openRunnerStore(file, { quickCheck: false, mustExist: true })],
] as const;

describe('one connection for a current store', () => {
  it('the header of a closed store shows what the one-connection path needs', () => {
    const file = makeStore();
    expect(header(file)).toEqual({ appId: APPLICATION_ID, userVersion: SUPPORTED_SCHEMA_VERSION });
  });

  it('opens read-write with the pragmas set, and reads and writes as the careful path does', () => {
    const file = makeStore();
    const db = openCurrent(file, 5000);
    expect(db).not.toBeNull();
    try {
      expect(db?.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db?.pragma('synchronous', { simple: true })).toBe(2); // FULL
      expect(db?.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db?.pragma('busy_timeout', { simple: true })).toBe(5000);
    } finally {
      db?.close();
    }
    const store = openRunnerStore(file, { quickCheck: false });
    try {
      expect(store.mode).toBe('read-write');
      expect(store.schemaVersion).toBe(SUPPORTED_SCHEMA_VERSION);
      const note = store.notify(null, { level: 'info', title: 'one connection' }, RUNNER_ACTOR);
      expect(note.title).toBe('one connection');
    } finally {
      store.close();
    }
    const reopened = openStore(file);
    expect(reopened.listNotifications({ limit: 5 }).map((n) => n.title)).toEqual(['one connection']);
    reopened.close();
  });

  it.each(OPENERS)(
    '%s: a newer schema only the WAL holds → read-only STORE_NEWER, file and WAL unchanged',
    (_name, open) => {
      const newer = SUPPORTED_SCHEMA_VERSION + 1;
      const file = withChangeInWal(makeStore(), `PRAGMA user_version = ${newer}`);
      // The header still says current: only the connection can tell.
      expect(header(file).userVersion).toBe(SUPPORTED_SCHEMA_VERSION);
      const before = { file: sha(file), wal: sha(`${file}-wal`) };
      expect(openCurrent(file, 5000)).toBeNull();
      const store = open(file);
      try {
        expect(store.mode).toBe('read-only');
        expect(store.modeReasonCode).toBe('STORE_NEWER');
        expect(store.schemaVersion).toBe(newer);
      } finally {
        store.close();
      }
      expect(sha(file)).toBe(before.file);
      expect(fs.existsSync(`${file}-wal`) ? sha(`${file}-wal`) : 'gone').toBe(before.wal);
    },
  );

  it.each(OPENERS)('%s: another id only the WAL holds → STORE_FOREIGN, bytes unchanged', (_name, open) => {
    const file = withChangeInWal(makeStore(), 'PRAGMA application_id = 1234');
    const before = { file: sha(file), wal: sha(`${file}-wal`) };
    const error = refusal(() => open(file));
    expect(error.code).toBe('STORE_FOREIGN');
    expect(error.message).toMatch(/application_id 0x4d2/);
    expect(sha(file)).toBe(before.file);
    expect(sha(`${file}-wal`)).toBe(before.wal);
  });

  it.each(OPENERS)('%s: a damaged schema page → STORE_CORRUPT, bytes unchanged', (_name, open) => {
    const file = makeStore();
    const bytes = fs.readFileSync(file);
    // The 100-byte header stays valid (our id, the current version); the schema table after it is garbage.
    for (let i = 100; i < 4096; i += 1) bytes[i] = (i * 131) & 0xff;
    fs.writeFileSync(file, bytes);
    expect(header(file)).toEqual({ appId: APPLICATION_ID, userVersion: SUPPORTED_SCHEMA_VERSION });
    const before = sha(file);
    const error = refusal(() => open(file));
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toMatch(/damaged/);
    expect(sha(file)).toBe(before);
  });

  it.each(OPENERS)(
    '%s: damaged pages after the first → STORE_CORRUPT at open or at the first write, nothing written',
    (_name, open) => {
      const file = makeStore();
      const bytes = fs.readFileSync(file);
      for (let i = 4096; i < bytes.length; i += 1) bytes[i] = (i * 131) & 0xff;
      fs.writeFileSync(file, bytes);
      const before = sha(file);
      // The schema runs past the first page, so its count is what fails; a bigger store with intact schema
      // pages opens and fails at the first damaged page a statement reads (test/main/cli/damaged-store.test.ts).
      const error = refusal(() => {
        const store = open(file);
        try {
          store.notify(null, { level: 'info', title: 'into a damaged store' }, RUNNER_ACTOR);
        } finally {
          store.close();
        }
        return { close: () => undefined };
      });
      expect(error.code).toBe('STORE_CORRUPT');
      expect(sha(file)).toBe(before);
    },
  );

  it('an unwritable file takes the careful path: read-only with its reason', () => {
    const file = makeStore();
    const store = openRunnerStore(file, {
      quickCheck: false,
      access: (target) => {
        if (target === file) throw new Error('EACCES');
      },
    });
    try {
      expect(store.mode).toBe('read-only');
      expect(store.modeReasonCode).toBe('READ_ONLY');
      expect(store.modeReason).toMatch(/is read-only/);
    } finally {
      store.close();
    }
  });

  it('a store behind the current schema is not taken as current', () => {
    const file = makeStore();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SUPPORTED_SCHEMA_VERSION - 1}`);
    raw.close();
    expect(openCurrent(file, 5000)).toBeNull();
  });
});
