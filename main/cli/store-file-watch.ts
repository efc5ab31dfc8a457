/**
 * Noticing that the store file a process opened was removed or replaced (renamed over) while it works: an
 * open SQLite file that was deleted still reads and writes, so nothing else would tell (docs/CLI.md).
 */
import { statSync } from 'node:fs';

/** How often the path is looked at. */
export const STORE_CHECK_MS = 1_000;

/**
 * Which file a path names now (device and inode), `gone` when nothing is there any more, null when it
 * cannot be told (e.g. a permission error), which is never taken for gone.
 */
export function fileIdentity(path: string): string | null {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'gone' : null;
  }
}

/**
 * Calls `onGone` once, from a timer, when `path` no longer names the file it named now; returns the stop.
 * The timer does not keep the process alive.
 */
export function watchStoreFile(path: string, onGone: () => void, everyMs = STORE_CHECK_MS): () => void {
  const opened = fileIdentity(path);
  const timer = setInterval(() => {
    const now = fileIdentity(path);
    if (opened === null || opened === 'gone' || now === null || now === opened) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
