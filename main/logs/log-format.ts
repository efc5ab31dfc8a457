/**
 * A run log's on-disk format (docs/RUN-OUTPUT.md#format): JSON Lines, one record per line of output, each
 * ending in "\n". A reader keeps only complete lines, so a writer killed mid-record leaves a log that ends
 * cleanly at its last whole record; JSON escaping keeps any byte the command wrote from breaking a line.
 */
import type { LogRecord, LogStream } from '../../shared/views';

/** The longest text one record holds; a longer line is split into partial records. */
export const MAX_RECORD_CHARS = 8_192;

interface DiskRecord {
  i: number;
  t: number;
  s: 'o' | 'e' | 'g';
  x: string;
  p?: 1;
  sb?: number;
  sl?: number;
}

const TO_DISK: Record<LogStream, DiskRecord['s']> = { stdout: 'o', stderr: 'e', gap: 'g' };
const FROM_DISK: Record<DiskRecord['s'], LogStream> = { o: 'stdout', e: 'stderr', g: 'gap' };

export function encodeRecord(record: LogRecord): string {
  // Written out by hand: this runs once per line of output, and only the text needs JSON escaping.
  let line = `{"i":${record.seq},"t":${record.at},"s":"${TO_DISK[record.stream]}","x":${JSON.stringify(record.text)}`;
  if (record.partial === true) line += ',"p":1';
  if (record.skippedBytes !== undefined) line += `,"sb":${record.skippedBytes}`;
  if (record.skippedLines !== undefined) line += `,"sl":${record.skippedLines}`;
  return `${line}}\n`;
}

/** One line of a log file, or null when it is not a whole, well-formed record. */
export function decodeRecord(line: string): LogRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const disk = value as Partial<DiskRecord>;
  if (!Number.isSafeInteger(disk.i) || !Number.isSafeInteger(disk.t) || typeof disk.x !== 'string')
    return null;
  const stream = disk.s === undefined ? undefined : FROM_DISK[disk.s];
  if (stream === undefined) return null;
  const record: LogRecord = { seq: disk.i as number, at: disk.t as number, stream, text: disk.x };
  if (disk.p === 1) record.partial = true;
  if (Number.isSafeInteger(disk.sb)) record.skippedBytes = disk.sb;
  if (Number.isSafeInteger(disk.sl)) record.skippedLines = disk.sl;
  return record;
}
