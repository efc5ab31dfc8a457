/**
 * Where run logs live (docs/RUN-OUTPUT.md#files): `<store file>.logs/`, a folder only that store uses (0700),
 * files 0600, one file per claim of a run. A capped log keeps its latest tail in two rotating segment files
 * until it is closed. Stores made before this kept their logs in `<store folder>/logs/`, shared by every store
 * in the folder: those are moved into the store's own folder once their run has ended (legacy-logs.ts).
 */
import fs from 'node:fs';
import path from 'node:path';

const NAME = /^(run_[A-Za-z0-9_-]{1,60})(?:\.(\d{1,9}))?\.log$/;

export function logsDirOf(storePath: string): string {
  return `${storePath}.logs`;
}

/** The folder every store in a folder shared before each store had its own: read, never budgeted. */
export function legacyLogsDirOf(storePath: string): string {
  return path.join(path.dirname(storePath), 'logs');
}

/** `<run id>.log` for a run's first claim, `<run id>.<generation>.log` for a later one (a resumed run). */
export function logFileName(runId: string, generation: number): string {
  return generation <= 1 ? `${runId}.log` : `${runId}.${generation}.log`;
}

/** The run id a log file belongs to, or null for anything that is not a log file. */
export function runIdOfLogFile(name: string): string | null {
  return NAME.exec(name)?.[1] ?? null;
}

/** The tail segments of a log still being written (or of a writer that died). Newest last. */
export function tailSegments(logPath: string): [older: string, current: string] {
  return [`${logPath}.tail-old`, `${logPath}.tail`];
}

/** The page a log's writer sets aside for the gap marker of a full disk, given up when it closes. */
export function roomFileOf(logPath: string): string {
  return `${logPath}.room`;
}

/** The log file a name in a logs folder belongs to: a tail segment or a set-aside page belongs to its log. */
export function logNameOf(name: string): string {
  return /^(.+\.log)\.(?:tail|tail-old|room)$/.exec(name)?.[1] ?? name;
}

/**
 * A recorded log path is used only if it names a log file inside this store's logs folder (or, for a row
 * recorded before the move, the shared legacy folder): a store row never makes Runwarden read or delete
 * anything else.
 */
export function isOwnLogPath(storePath: string, logPath: string): boolean {
  const resolved = path.resolve(logPath);
  const store = path.resolve(storePath);
  const dir = path.dirname(resolved);
  return (dir === logsDirOf(store) || dir === legacyLogsDirOf(store)) && NAME.test(path.basename(resolved));
}

export function ensureLogsDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask, and an existing folder keeps its own: make it private either way.
  fs.chmodSync(dir, 0o700);
}

/** Deletes a log, its tail segments and its set-aside page; missing files are fine. */
export function removeLogFiles(logPath: string): void {
  for (const file of [logPath, ...tailSegments(logPath), roomFileOf(logPath)])
    fs.rmSync(file, { force: true });
}

/** Bytes a log takes on disk, segments included. */
export function logBytesOnDisk(logPath: string): number {
  let total = 0;
  for (const file of [logPath, ...tailSegments(logPath), roomFileOf(logPath)]) {
    try {
      total += fs.statSync(file).size;
    } catch {
      // Not there (yet, or any more).
    }
  }
  return total;
}
