/**
 * Writes one run's output log: the head, the two rotating tail segments joined on `close()`
 * (docs/RUN-OUTPUT.md#limits), and the gap markers of a full disk (docs/RUN-OUTPUT.md#a-full-disk).
 *
 * Every write is a synchronous append of whole records: microseconds in the page cache, so a command
 * printing without pause never holds the event loop long enough to delay the run's heartbeat.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { LogRecord } from '../../shared/views';
import { decodeRecord, encodeRecord, MAX_RECORD_CHARS } from './log-format';
import { ensureLogsDir, roomFileOf, tailSegments } from './log-files';

export type OutputStreamName = 'stdout' | 'stderr';

export interface LogWriterOptions {
  path: string;
  capBytes: number;
  clock?: () => number;
  /** A line without its newline is written after this long without more output (a prompt, a progress bar). */
  idleFlushMs?: number;
  /** While output is missing for a full disk, its gap marker is tried again this often (default 1000). */
  gapRetryMs?: number;
}

export interface LogSummary {
  path: string;
  /** Bytes of the closed log file. */
  bytes: number;
  /** Output was skipped between the head and the tail. */
  truncated: boolean;
  /** Bytes of output the command wrote (before the cap). */
  outputBytes: number;
}

/** Room kept in the cap for the gap marker that closing writes. */
const GAP_RESERVE_BYTES = 1024;

/** What the gap marker of records lost to a full disk says (shared/log-text.ts shows it). */
export const DISK_FULL_GAP_TEXT = 'the disk was full';

/**
 * Cut from the end of a file to make room for the closing gap marker on a disk that stays full: two pages,
 * so at least one whole page is freed whatever the alignment.
 */
const ROOM_FOR_GAP_BYTES = 8192;

/**
 * Set aside beside the log when it opens, given up on closing: room for the gap marker when the disk filled
 * before the command printed anything, so there is no record to cut. One page is more than a marker needs.
 */
const SET_ASIDE_BYTES = 4096;

/** Records lost to a full disk, not yet told by a gap marker. */
interface Dropped {
  firstSeq: number;
  lines: number;
  bytes: number;
}

/** Bytes of output a record holds (its newline included), as the gap markers count them. */
function outputBytesOf(record: LogRecord): number {
  return Buffer.byteLength(record.text) + (record.partial === true ? 0 : 1);
}

function isSpaceError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The smallest cap: a head and a tail that each hold a few long lines. */
export const MIN_CAP_BYTES = 64 * 1024;

class Segment {
  /** Bytes on disk. */
  bytes = 0;
  /** Bytes of output the records hold (what the gap marker reports once they are skipped). */
  outputBytes = 0;
  lines = 0;
  firstSeq = 0;
  constructor(
    readonly file: string,
    readonly fd: number,
  ) {}
}

export class LogWriter {
  readonly path: string;
  readonly #clock: () => number;
  readonly #headCap: number;
  readonly #segmentCap: number;
  readonly #idleFlushMs: number;
  readonly #fd: number;
  readonly #decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  readonly #pending = { stdout: '', stderr: '' };
  #seq = 0;
  #headBytes = 0;
  #inTail = false;
  #older: Segment | null = null;
  #current: Segment | null = null;
  #skippedBytes = 0;
  #skippedLines = 0;
  #firstSkippedSeq = 0;
  #outputBytes = 0;
  #idleTimer: NodeJS.Timeout | null = null;
  #lastWriteAt = 0;
  #closed: LogSummary | null = null;
  /** Size of each open file as this writer wrote it: where a failed append is cut back to. */
  readonly #sizes = new Map<number, number>();
  #dropped: Dropped | null = null;
  #droppedLines = 0;
  readonly #gapRetryMs: number;
  #gapTimer: NodeJS.Timeout | null = null;

  private constructor(options: LogWriterOptions, fd: number) {
    this.path = options.path;
    this.#fd = fd;
    this.#clock = options.clock ?? Date.now;
    const cap = Math.max(MIN_CAP_BYTES, Math.floor(options.capBytes));
    // Closing copies the older segment into the log before removing it: head + gap marker + three
    // segments (+ the page set aside, given up before that) is the most the disk ever holds, so that is
    // what has to fit in the cap.
    this.#segmentCap = Math.floor(cap / 4);
    this.#headCap = cap - 3 * this.#segmentCap - GAP_RESERVE_BYTES - SET_ASIDE_BYTES;
    this.#idleFlushMs = options.idleFlushMs ?? 300;
    this.#gapRetryMs = options.gapRetryMs ?? 1000;
    this.#sizes.set(fd, 0);
  }

  /** Creates (or empties) the log file, its folder private to this user. */
  static open(options: LogWriterOptions): LogWriter {
    ensureLogsDir(path.dirname(options.path));
    for (const segment of tailSegments(options.path)) fs.rmSync(segment, { force: true });
    // Read back only to make room for a gap marker on a full disk (#makeRoomForGap).
    const fd = fs.openSync(options.path, 'w+', 0o600);
    fs.fchmodSync(fd, 0o600);
    setAside(options.path);
    return new LogWriter(options, fd);
  }

  get truncated(): boolean {
    return this.#skippedBytes > 0 || this.#droppedLines > 0;
  }

  /** Records are being lost to a full disk right now (a gap marker will say how many). */
  get dropping(): boolean {
    return this.#dropped !== null;
  }

  /** One chunk of a stream as the pipe delivered it. */
  write(stream: OutputStreamName, chunk: Buffer | string): void {
    if (this.#closed !== null) return;
    this.#outputBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    const text = typeof chunk === 'string' ? chunk : this.#decoders[stream].write(chunk);
    const records: LogRecord[] = [];
    const other: OutputStreamName = stream === 'stdout' ? 'stderr' : 'stdout';
    // The other stream's unfinished line came first: write it now so the log keeps the arrival order.
    this.#takePartial(other, records);
    const joined = this.#pending[stream] + text;
    const at = this.#clock();
    let start = 0;
    for (let newline = joined.indexOf('\n'); newline !== -1; newline = joined.indexOf('\n', start)) {
      this.#pushLine(records, stream, joined.slice(start, newline), at, false);
      start = newline + 1;
    }
    let pending = joined.slice(start);
    while (pending.length > MAX_RECORD_CHARS) {
      records.push(this.#record(stream, pending.slice(0, MAX_RECORD_CHARS), at, true));
      pending = pending.slice(MAX_RECORD_CHARS);
    }
    this.#pending[stream] = pending;
    this.#append(records);
    this.#armIdleFlush();
  }

  /** Writes what is pending, appends the kept tail after a gap marker, and closes the file. Idempotent. */
  close(): LogSummary {
    if (this.#closed !== null) return this.#closed;
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    const records: LogRecord[] = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      this.#pending[stream] += this.#decoders[stream].end();
      this.#takePartial(stream, records);
    }
    this.#append(records);
    if (this.#dropped !== null) this.#makeRoomForGap();
    // Nothing to cut (full before the first line): the page set aside makes the room.
    fs.rmSync(roomFileOf(this.path), { force: true });
    if (this.#dropped !== null)
      this.#writeOrDrop(this.#inTail ? (this.#current as Segment).fd : this.#fd, '', []);
    this.#stopGapRetry();
    if (this.#inTail) this.#appendTail();
    const bytes = fs.fstatSync(this.#fd).size;
    fs.closeSync(this.#fd);
    this.#closed = { path: this.path, bytes, truncated: this.truncated, outputBytes: this.#outputBytes };
    return this.#closed;
  }

  #pushLine(
    records: LogRecord[],
    stream: OutputStreamName,
    line: string,
    at: number,
    partial: boolean,
  ): void {
    let rest = line;
    while (rest.length > MAX_RECORD_CHARS) {
      records.push(this.#record(stream, rest.slice(0, MAX_RECORD_CHARS), at, true));
      rest = rest.slice(MAX_RECORD_CHARS);
    }
    records.push(this.#record(stream, rest, at, partial));
  }

  #takePartial(stream: OutputStreamName, records: LogRecord[]): void {
    const pending = this.#pending[stream];
    if (pending === '') return;
    this.#pending[stream] = '';
    this.#pushLine(records, stream, pending, this.#clock(), true);
  }

  #record(stream: OutputStreamName, text: string, at: number, partial: boolean): LogRecord {
    this.#seq += 1;
    const record: LogRecord = { seq: this.#seq, at, stream, text };
    if (partial) record.partial = true;
    return record;
  }

  /** A line still unfinished after `idleFlushMs` without output is written as it is (a prompt, a progress bar). */
  #armIdleFlush(): void {
    this.#lastWriteAt = Date.now();
    if (this.#idleTimer !== null || (this.#pending.stdout === '' && this.#pending.stderr === '')) return;
    const check = (): void => {
      this.#idleTimer = null;
      if (this.#closed !== null) return;
      const idleFor = Date.now() - this.#lastWriteAt;
      if (idleFor < this.#idleFlushMs) {
        // Output kept coming: the line will end (or be split at the record size) by itself.
        this.#idleTimer = setTimeout(check, this.#idleFlushMs - idleFor);
        this.#idleTimer.unref();
        return;
      }
      const records: LogRecord[] = [];
      this.#takePartial('stdout', records);
      this.#takePartial('stderr', records);
      this.#append(records);
    };
    this.#idleTimer = setTimeout(check, this.#idleFlushMs);
    this.#idleTimer.unref();
  }

  /** Head records go to the log file until the head is full; the rest to the current tail segment. */
  #append(records: LogRecord[]): void {
    if (records.length === 0 && this.#dropped === null) return;
    let head = '';
    const headRecords: LogRecord[] = [];
    let tail = '';
    let tailRecords: LogRecord[] = [];
    for (const record of records) {
      const line = encodeRecord(record);
      const bytes = Buffer.byteLength(line);
      if (!this.#inTail && this.#headBytes + bytes <= this.#headCap) {
        head += line;
        headRecords.push(record);
        this.#headBytes += bytes;
        continue;
      }
      this.#inTail = true;
      const current = this.#current ?? this.#openSegment();
      if (current.bytes > 0 && current.bytes + bytes > this.#segmentCap) {
        this.#writeTail(current, tail, tailRecords);
        tail = '';
        tailRecords = [];
        this.#rotate();
      }
      tail += line;
      tailRecords.push(record);
      const segment = this.#current as Segment;
      if (segment.lines === 0) segment.firstSeq = record.seq;
      segment.bytes += bytes;
      segment.outputBytes += outputBytesOf(record);
      segment.lines += 1;
    }
    if (head !== '' || (!this.#inTail && this.#dropped !== null)) {
      if (!this.#writeOrDrop(this.#fd, head, headRecords)) this.#headBytes -= Buffer.byteLength(head);
    }
    if (this.#current !== null && (tail !== '' || (this.#inTail && this.#dropped !== null))) {
      this.#writeTail(this.#current, tail, tailRecords);
    }
    this.#armGapRetry();
  }

  /** While records are missing, their gap marker is tried on its own until it fits: no output needed. */
  #armGapRetry(): void {
    if (this.#dropped === null) {
      this.#stopGapRetry();
      return;
    }
    if (this.#gapTimer !== null || this.#closed !== null) return;
    this.#gapTimer = setInterval(() => {
      if (this.#closed === null) this.#append([]);
    }, this.#gapRetryMs);
    this.#gapTimer.unref();
  }

  #stopGapRetry(): void {
    if (this.#gapTimer !== null) clearInterval(this.#gapTimer);
    this.#gapTimer = null;
  }

  /** A tail batch; on a full disk its records leave the segment's counts again (they are not in it). */
  #writeTail(segment: Segment, text: string, records: LogRecord[]): void {
    if (this.#writeOrDrop(segment.fd, text, records)) return;
    segment.bytes -= Buffer.byteLength(text);
    segment.lines -= records.length;
    for (const record of records) segment.outputBytes -= outputBytesOf(record);
  }

  /**
   * Appends whole records, after the gap marker of any dropped before them. On a full disk the file is cut
   * back to where it was (no half record stays) and the records join the dropped ones. True if written.
   */
  #writeOrDrop(fd: number, text: string, records: LogRecord[]): boolean {
    const gap = this.#dropped === null ? '' : encodeRecord(this.#gapOfDropped(this.#dropped));
    if (text === '' && gap === '') return true;
    const start = this.#sizes.get(fd) ?? 0;
    const data = Buffer.from(gap + text);
    try {
      this.#writeAll(fd, data, start);
    } catch (error) {
      if (!isSpaceError(error)) throw error;
      fs.ftruncateSync(fd, start);
      this.#sizes.set(fd, start);
      for (const record of records) this.#drop(record.seq, 1, outputBytesOf(record));
      return false;
    }
    this.#sizes.set(fd, start + data.length);
    this.#dropped = null;
    return true;
  }

  #drop(firstSeq: number, lines: number, bytes: number): void {
    this.#dropped ??= { firstSeq, lines: 0, bytes: 0 };
    this.#dropped.firstSeq = Math.min(this.#dropped.firstSeq, firstSeq);
    this.#dropped.lines += lines;
    this.#dropped.bytes += bytes;
    this.#droppedLines += lines;
  }

  #gapOfDropped(dropped: Dropped): LogRecord {
    return {
      seq: dropped.firstSeq,
      at: this.#clock(),
      stream: 'gap',
      text: DISK_FULL_GAP_TEXT,
      skippedBytes: dropped.bytes,
      skippedLines: dropped.lines,
    };
  }

  /**
   * Closing on a disk that is still full: the last whole records of the file being written give way to
   * the gap marker (they are counted in it), so the log says output is missing. If even that does not
   * fit, the log ends at its last whole record and the summary says it is truncated.
   */
  #makeRoomForGap(): void {
    const segment = this.#inTail ? this.#current : null;
    const fd = segment?.fd ?? this.#fd;
    const size = this.#sizes.get(fd) ?? 0;
    const from = Math.max(0, size - ROOM_FOR_GAP_BYTES - 4096);
    const end = Buffer.alloc(size - from);
    fs.readSync(fd, end, 0, end.length, from);
    // Cut at a record boundary at least ROOM_FOR_GAP_BYTES before the end (or at the file's start).
    let cut = from === 0 ? 0 : end.indexOf(0x0a) + 1;
    if (cut > end.length - ROOM_FOR_GAP_BYTES && from > 0) cut = end.length;
    const lost = end
      .subarray(cut)
      .toString('utf8')
      .split('\n')
      .map(decodeRecord)
      .filter((r): r is LogRecord => r !== null);
    if (lost.length === 0 && cut !== 0) return;
    fs.ftruncateSync(fd, from + cut);
    this.#sizes.set(fd, from + cut);
    for (const record of lost) {
      if (record.stream === 'gap') this.#drop(record.seq, record.skippedLines ?? 0, record.skippedBytes ?? 0);
      else this.#drop(record.seq, 1, outputBytesOf(record));
    }
    if (segment !== null) {
      segment.bytes = from + cut;
      segment.lines = Math.max(0, segment.lines - lost.length);
    } else {
      this.#headBytes = from + cut;
    }
    this.#writeOrDrop(fd, '', []);
  }

  #openSegment(): Segment {
    const [, current] = tailSegments(this.path);
    this.#current = new Segment(current, fs.openSync(current, 'w+', 0o600));
    this.#sizes.set(this.#current.fd, 0);
    return this.#current;
  }

  /** The older segment's output is skipped for good; the current one becomes the older one. */
  #rotate(): void {
    const [olderPath] = tailSegments(this.path);
    const current = this.#current as Segment;
    if (this.#older !== null) {
      if (this.#skippedLines === 0) this.#firstSkippedSeq = this.#older.firstSeq;
      this.#skippedBytes += this.#older.outputBytes;
      this.#skippedLines += this.#older.lines;
    }
    fs.closeSync(current.fd);
    fs.renameSync(current.file, olderPath);
    this.#older = current;
    this.#openSegment();
  }

  #appendTail(): void {
    const [olderPath, currentPath] = tailSegments(this.path);
    if (this.#current !== null) fs.closeSync(this.#current.fd);
    if (this.#skippedLines > 0) {
      const gap: LogRecord = {
        seq: this.#firstSkippedSeq,
        at: this.#clock(),
        stream: 'gap',
        text: '',
        skippedBytes: this.#skippedBytes,
        skippedLines: this.#skippedLines,
      };
      if (!this.#appendWhole(encodeRecord(gap))) return;
    }
    // Each segment is removed once it is in the log file (so closing needs at most one segment more than
    // the cap); a crash in between leaves both, and readers skip the duplicates. On a full disk the rest
    // stay beside the log, where readers read them too.
    for (const file of [olderPath, currentPath]) {
      if (!fs.existsSync(file)) continue;
      if (!this.#appendWhole(fs.readFileSync(file))) return;
      fs.rmSync(file, { force: true });
    }
  }

  /** Appends to the log file, or on a full disk cuts it back to where it was. True if written. */
  #appendWhole(data: string | Buffer): boolean {
    const start = this.#sizes.get(this.#fd) ?? 0;
    const buffer = typeof data === 'string' ? Buffer.from(data) : data;
    try {
      this.#writeAll(this.#fd, buffer, start);
    } catch (error) {
      if (!isSpaceError(error)) throw error;
      fs.ftruncateSync(this.#fd, start);
      return false;
    }
    this.#sizes.set(this.#fd, start + buffer.length);
    return true;
  }

  /** At `position`, the file's end as this writer knows it (a failed write was cut back from there). */
  #writeAll(fd: number, buffer: Buffer, position: number): void {
    let offset = 0;
    while (offset < buffer.length) {
      offset += fs.writeSync(fd, buffer, offset, buffer.length - offset, position + offset);
    }
  }
}

/** Sets a page aside beside the log (see SET_ASIDE_BYTES); on a disk already full, nothing is set aside. */
function setAside(logPath: string): void {
  const room = roomFileOf(logPath);
  try {
    fs.writeFileSync(room, Buffer.alloc(SET_ASIDE_BYTES), { mode: 0o600 });
  } catch {
    fs.rmSync(room, { force: true });
  }
}
