/** Words for a run log's parts, shared by `runwarden logs` and the window (docs/RUN-OUTPUT.md#limits). */
import type { LogRecord } from './views';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * The marker between a capped log's head and its latest tail, or where output was lost to a full disk
 * (its text says why: docs/RUN-OUTPUT.md#a-full-disk).
 */
export function gapText(
  record: Pick<LogRecord, 'skippedBytes' | 'skippedLines'> & { text?: string },
): string {
  const lines = record.skippedLines ?? 0;
  const size = record.skippedBytes === undefined ? 'output' : `${formatBytes(record.skippedBytes)} of output`;
  const why =
    record.text === undefined || record.text === '' ? 'the log keeps its head and latest tail' : record.text;
  return `… ${size} (${lines} line${lines === 1 ? '' : 's'}) skipped: ${why} …`;
}
