/**
 * Reads a run log (docs/RUN-OUTPUT.md#format) from its end: the latest N records, or those after a cursor
 * (live follow), without reading a whole capped log for a few new lines. Works on a log still being written
 * and on one whose writer died: the tail segments are read too, a trailing half-written record is ignored,
 * duplicates (a writer killed while closing) are dropped, and a jump in sequence numbers gets a gap marker.
 */
import fs from 'node:fs';
import type { LogRecord } from '../../shared/views';
import { decodeRecord } from './log-format';
import { tailSegments } from './log-files';

export interface ReadLogOptions {
  /** The latest this many records (of the chosen stream); default 200. */
  tail?: number;
  /** Only records after this sequence number (follow). */
  afterSeq?: number;
  stream?: 'stdout' | 'stderr';
  /** At most this many records in one answer; default 5000. */
  limit?: number;
}

export interface ReadLogResult {
  records: LogRecord[];
  /** `afterSeq` was given but more than `limit` records came since: this is a fresh tail. */
  reset: boolean;
  /** Some output was skipped in the part read. */
  truncated: boolean;
  /** The newest sequence number in the log (of any stream): the cursor for the next follow read. */
  lastSeq: number;
}

const CHUNK = 64 * 1024;

/** Every part of a log, oldest first: the log file, then the tail segments a live or dead writer left. */
function partsOf(logPath: string): string[] {
  return [logPath, ...tailSegments(logPath)].filter((file) => fs.existsSync(file));
}

/**
 * Calls `take` with each complete record of `file`, newest first, until it returns false.
 * Reads backwards in chunks; a line cut by a chunk boundary is carried into the next (earlier) chunk.
 */
function readBackwards(file: string, take: (record: LogRecord) => boolean): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return true;
  }
  try {
    let position = fs.fstatSync(fd).size;
    let carry = Buffer.alloc(0);
    let first = true;
    while (position > 0 || carry.length > 0) {
      const length = Math.min(CHUNK, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      if (length > 0) fs.readSync(fd, chunk, 0, length, position);
      let data = Buffer.concat([chunk, carry]);
      if (first) {
        // The end may be a record still being written: keep only what ends in a newline.
        const end = data.lastIndexOf(0x0a);
        data = end === -1 ? Buffer.alloc(0) : data.subarray(0, end + 1);
        if (end === -1 && position > 0) {
          carry = Buffer.alloc(0);
          continue;
        }
        first = false;
      }
      let lines: Buffer;
      if (position > 0) {
        const cut = data.indexOf(0x0a);
        if (cut === -1) {
          carry = data;
          continue;
        }
        carry = data.subarray(0, cut + 1);
        lines = data.subarray(cut + 1);
      } else {
        carry = Buffer.alloc(0);
        lines = data;
      }
      const text = lines.toString('utf8').split('\n');
      for (let i = text.length - 1; i >= 0; i -= 1) {
        const line = text[i] ?? '';
        if (line === '') continue;
        const record = decodeRecord(line);
        if (record !== null && !take(record)) return false;
      }
      if (position === 0) break;
    }
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

export function readLog(logPath: string, options: ReadLogOptions = {}): ReadLogResult {
  const limit = options.limit ?? 5000;
  const tail = Math.min(options.tail ?? 200, limit);
  const after = options.afterSeq;
  const seen = new Map<number, LogRecord>();
  let matching = 0;
  let lastSeq = 0;
  let reachedCursor = false;
  const matches = (record: LogRecord): boolean =>
    record.stream === 'gap' || options.stream === undefined || record.stream === options.stream;
  const take = (record: LogRecord): boolean => {
    lastSeq = Math.max(lastSeq, record.seq);
    if (after !== undefined && record.seq <= after) {
      reachedCursor = true;
      return false;
    }
    if (seen.has(record.seq)) return true;
    seen.set(record.seq, record);
    if (matches(record) && record.stream !== 'gap') matching += 1;
    return matching < (after === undefined ? tail : limit + 1);
  };
  const parts = partsOf(logPath);
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    if (!readBackwards(parts[i] as string, take)) break;
  }
  const ordered = withGaps([...seen.values()].sort((a, b) => a.seq - b.seq));
  let records = ordered.filter(matches);
  const reset = after !== undefined && !reachedCursor && after > 0 && records.length > limit;
  if (records.length > (after === undefined ? tail : limit)) {
    records = records.slice(-(after === undefined ? tail : limit));
  }
  // A leading gap stays: output lost before the first line kept (a disk full from the start), or since the
  // follow cursor, is still output the person should know is missing (docs/RUN-OUTPUT.md#a-full-disk).
  return { records, reset, truncated: ordered.some((r) => r.stream === 'gap'), lastSeq };
}

/** A jump in sequence numbers between two output records is output a dead writer skipped: mark it. */
function withGaps(records: LogRecord[]): LogRecord[] {
  const out: LogRecord[] = [];
  let previous: LogRecord | null = null;
  for (const record of records) {
    if (
      previous !== null &&
      previous.stream !== 'gap' &&
      record.stream !== 'gap' &&
      record.seq > previous.seq + 1
    ) {
      out.push({
        seq: previous.seq + 1,
        at: record.at,
        stream: 'gap',
        text: '',
        skippedLines: record.seq - previous.seq - 1,
      });
    }
    out.push(record);
    previous = record;
  }
  return out;
}

/** Every record of a log, oldest first (the CLI's full print and the window's copy). */
export function readWholeLog(logPath: string, stream?: 'stdout' | 'stderr'): LogRecord[] {
  return readLog(logPath, { tail: Number.MAX_SAFE_INTEGER, limit: Number.MAX_SAFE_INTEGER, stream }).records;
}
