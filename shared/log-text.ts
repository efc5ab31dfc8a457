/** Words for a run log's parts, shared by `runwarden logs` and the window (docs/RUN-OUTPUT.md#limits). */
import type { LogRecord } from './views';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The marker between a capped log's head and its latest tail. */
export function gapText(record: Pick<LogRecord, 'skippedBytes' | 'skippedLines'>): string {
  const lines = record.skippedLines ?? 0;
  const size = record.skippedBytes === undefined ? 'output' : `${formatBytes(record.skippedBytes)} of output`;
  return `… ${size} (${lines} line${lines === 1 ? '' : 's'}) skipped: the log keeps its head and latest tail …`;
}
