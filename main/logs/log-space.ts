/**
 * The total budget for run logs (docs/RUN-OUTPUT.md#limits): what the logs folder holds, and making room
 * before a new log starts by deleting the least recently written logs of runs that have ended (or are gone).
 * A live run's log is never deleted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { logNameOf, runIdOfLogFile } from './log-files';

export interface LogFolderUsage {
  files: number;
  bytes: number;
}

interface LogFile {
  name: string;
  bytes: number;
  modifiedAt: number;
}

function listFiles(dir: string): LogFile[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const files: LogFile[] = [];
  for (const name of names) {
    try {
      const stat = fs.statSync(path.join(dir, name));
      if (stat.isFile()) files.push({ name, bytes: stat.size, modifiedAt: stat.mtimeMs });
    } catch {
      // Removed while listing.
    }
  }
  return files;
}

export function logFolderUsage(dir: string): LogFolderUsage {
  const files = listFiles(dir);
  return { files: files.length, bytes: files.reduce((sum, file) => sum + file.bytes, 0) };
}

/**
 * What a store's own logs folder holds: its log files (segments included) counted, and anything else in it
 * (not a run log) reported as foreign, never counted or deleted.
 */
export function ownLogUsage(dir: string): LogFolderUsage & { foreign: ForeignFiles[] } {
  const files = listFiles(dir);
  const logs = files.filter((file) => runIdOfLogFile(logNameOf(file.name)) !== null);
  const others = files.length - logs.length;
  return {
    files: logs.length,
    bytes: logs.reduce((sum, file) => sum + file.bytes, 0),
    foreign: others === 0 ? [] : [{ dir, files: others }],
  };
}

/** Files in a folder that are not this store's: reported by doctor, never counted or deleted. */
export interface ForeignFiles {
  dir: string;
  files: number;
}

/**
 * The shared folder of stores made before each had its own: this store's logs still there (live runs', or
 * not moved yet) and how many files there are not this store's.
 */
export function legacyLogUsage(
  dir: string,
  ownRows: ReadonlyArray<{ path: string }>,
): { legacy: LogFolderUsage & { dir: string }; foreignLegacy: ForeignFiles[] } {
  const own = new Set(ownRows.map((row) => path.basename(row.path)));
  const files = listFiles(dir);
  const mine = files.filter((file) => own.has(logNameOf(file.name)));
  const others = files.length - mine.length;
  return {
    legacy: { dir, files: mine.length, bytes: mine.reduce((sum, file) => sum + file.bytes, 0) },
    foreignLegacy: others === 0 ? [] : [{ dir, files: others }],
  };
}

export interface BudgetDeps {
  /** True while the run may still write (its log must stay). */
  isActive(runId: string): boolean;
  /** Told after a log was deleted, to record it. */
  onRemoved(runId: string, fileName: string): void;
}

/**
 * Deletes whole logs, least recently written first, until the folder holds at most `budgetBytes -
 * reserveBytes` (room for the log about to start). Returns how many logs it deleted.
 */
export function enforceLogBudget(
  dir: string,
  budgetBytes: number,
  reserveBytes: number,
  deps: BudgetDeps,
): number {
  const files = listFiles(dir);
  let total = files.reduce((sum, file) => sum + file.bytes, 0);
  const target = Math.max(0, budgetBytes - reserveBytes);
  if (total <= target) return 0;
  const logs = new Map<string, { bytes: number; modifiedAt: number; parts: string[] }>();
  for (const file of files) {
    const name = logNameOf(file.name);
    const log = logs.get(name) ?? { bytes: 0, modifiedAt: 0, parts: [] };
    log.bytes += file.bytes;
    log.modifiedAt = Math.max(log.modifiedAt, file.modifiedAt);
    log.parts.push(file.name);
    logs.set(name, log);
  }
  let removed = 0;
  for (const [name, log] of [...logs].sort((a, b) => a[1].modifiedAt - b[1].modifiedAt)) {
    if (total <= target) break;
    const runId = runIdOfLogFile(name);
    if (runId === null || deps.isActive(runId)) continue;
    for (const part of log.parts) fs.rmSync(path.join(dir, part), { force: true });
    total -= log.bytes;
    removed += 1;
    deps.onRemoved(runId, name);
  }
  return removed;
}
