/**
 * Live follow for the window (docs/RUN-OUTPUT.md#reading): one watch on the store's logs folder turns a
 * log file's growth into a `log` push for its run, at most once per `throttleMs` per run, so the page
 * reads new output only when there is some (no polling loop in the page).
 */
import fs from 'node:fs';
import { ensureLogsDir, logNameOf, runIdOfLogFile } from '../logs/log-files';

export interface LogWatcher {
  close(): void;
}

export function watchLogs(
  dir: string,
  onLog: (runId: string) => void,
  options: { create: boolean; throttleMs?: number },
): LogWatcher | null {
  const throttleMs = options.throttleMs ?? 200;
  try {
    if (options.create) ensureLogsDir(dir);
    if (!fs.existsSync(dir)) return null;
  } catch {
    return null;
  }
  const due = new Map<string, NodeJS.Timeout>();
  let watcher: fs.FSWatcher;
  try {
    watcher = fs.watch(dir, { persistent: false }, (_event, filename) => {
      if (filename === null) return;
      const name = logNameOf(filename);
      const runId = runIdOfLogFile(name);
      if (runId === null || due.has(runId)) return;
      const timer = setTimeout(() => {
        due.delete(runId);
        onLog(runId);
      }, throttleMs);
      timer.unref();
      due.set(runId, timer);
    });
  } catch {
    return null;
  }
  // A folder that goes away (or a watch the OS drops) ends live follow; the page still refreshes on changes.
  watcher.on('error', () => watcher.close());
  return {
    close() {
      watcher.close();
      for (const timer of due.values()) clearTimeout(timer);
      due.clear();
    },
  };
}

/**
 * Watches several folders as one (a store's own logs folder and the shared one older versions wrote in);
 * null when none could be watched.
 */
export function watchLogFolders(
  folders: ReadonlyArray<{ dir: string; create: boolean }>,
  onLog: (runId: string) => void,
  throttleMs?: number,
): LogWatcher | null {
  const watchers = folders
    .map(({ dir, create }) =>
      watchLogs(dir, onLog, { create, ...(throttleMs !== undefined && { throttleMs }) }),
    )
    .filter((watcher): watcher is LogWatcher => watcher !== null);
  if (watchers.length === 0) return null;
  return {
    close() {
      for (const watcher of watchers) watcher.close();
    },
  };
}
