/**
 * Live follow for the window (docs/RUN-OUTPUT.md#reading): one watch on the store's logs folder turns a
 * log file's growth into a `log` push for its run, at most once per `throttleMs` per run, so the page
 * reads new output only when there is some (no polling loop in the page).
 */
import fs from 'node:fs';
import { ensureLogsDir, runIdOfLogFile } from '../logs/log-files';

export interface LogWatcher {
  close(): void;
}

const SEGMENT = /^(.+\.log)\.tail(?:-old)?$/;

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
      const name = SEGMENT.exec(filename)?.[1] ?? filename;
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
