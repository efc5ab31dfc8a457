/**
 * Logs recorded before each store had its own logs folder lie in `<store folder>/logs/`, shared by every store
 * in that folder (docs/RUN-OUTPUT.md#files). Once a run has ended its log is moved into its store's own
 * folder: a rename per file (the log and any tail segments), so a crash leaves each file whole in one place,
 * and the store's row is pointed at the new place after the files moved. A pass after a crash finds the
 * files already moved and only points the row. A live run's log is left where its runner writes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureLogsDir, roomFileOf, tailSegments } from './log-files';

function renameIfThere(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Moves one ended log and its tail segments into `ownDir`: the new path, or null when the log is in neither
 * place (deleted before the move: its row should say so).
 */
export function moveLegacyLog(logPath: string, ownDir: string): string | null {
  ensureLogsDir(ownDir);
  const target = path.join(ownDir, path.basename(logPath));
  const [oldFrom, currentFrom] = tailSegments(logPath);
  const [oldTo, currentTo] = tailSegments(target);
  renameIfThere(oldFrom, oldTo);
  renameIfThere(currentFrom, currentTo);
  renameIfThere(logPath, target);
  // An ended log's set-aside page is no use any more (a writer that died left it).
  fs.rmSync(roomFileOf(logPath), { force: true });
  return fs.existsSync(target) ? target : null;
}

/** Removes the shared folder once nothing is left in it (another store's files keep it). */
export function removeIfEmpty(dir: string): void {
  try {
    fs.rmdirSync(dir);
  } catch {
    // Not empty, or already gone.
  }
}
