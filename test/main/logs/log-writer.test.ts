/**
 * The run log format and its writer/reader on real files: arrival order across streams, partial lines,
 * the cap (head + latest tail + gap marker, disk use bounded while writing), a writer that died (torn
 * last record, tail segments left behind, a half-finished close), and file permissions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logsDirOf, tailSegments } from '../../../main/logs/log-files';
import { enforceLogBudget } from '../../../main/logs/log-space';
import { LogWriter } from '../../../main/logs/log-writer';
import { readLog, readWholeLog } from '../../../main/logs/read-log';
import { tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let logPath: string;
beforeEach(() => {
  dir = tempDir();
  logPath = path.join(logsDirOf(dir.store), 'run_test.log');
});
afterEach(() => dir.remove());

function texts(records: ReturnType<typeof readWholeLog>): string[] {
  return records.map((r) => (r.stream === 'gap' ? 'GAP' : `${r.stream}:${r.text}${r.partial ? '…' : ''}`));
}

describe('log writer', () => {
  it('keeps both streams in arrival order, one record per line, stamped with stream and time', () => {
    let now = 1_000;
    const writer = LogWriter.open({ path: logPath, capBytes: 1 << 20, clock: () => now });
    writer.write('stdout', Buffer.from('one\ntw'));
    now = 2_000;
    writer.write('stderr', Buffer.from('oops\n'));
    writer.write('stdout', Buffer.from('o\nthree\n'));
    // A multi-byte character split across two chunks stays one character.
    const snow = Buffer.from('snow ☃\n');
    writer.write('stderr', snow.subarray(0, 7));
    writer.write('stderr', snow.subarray(7));
    const summary = writer.close();
    const records = readWholeLog(logPath);
    expect(texts(records)).toEqual([
      'stdout:one',
      'stdout:tw…', // stderr came before the rest of this line: written first, marked partial
      'stderr:oops',
      'stdout:o',
      'stdout:three',
      'stderr:snow ☃',
    ]);
    expect(records[0]?.at).toBe(1_000);
    expect(records[2]?.at).toBe(2_000);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(summary).toMatchObject({ truncated: false, bytes: fs.statSync(logPath).size });
    expect(fs.statSync(logPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(logPath)).mode & 0o777).toBe(0o700);
  });

  it('splits a line longer than a record holds, and writes a last line without newline at close', () => {
    const writer = LogWriter.open({ path: logPath, capBytes: 1 << 20 });
    writer.write('stdout', Buffer.from(`${'x'.repeat(20_000)}\nprompt> `));
    writer.close();
    const records = readWholeLog(logPath);
    expect(records.map((r) => r.text.length)).toEqual([8192, 8192, 3616, 8]);
    expect(records.map((r) => r.partial === true)).toEqual([true, true, false, true]);
  });

  it('past its cap keeps the head and the latest tail with a gap marker; disk use never passes the cap', () => {
    const cap = 64 * 1024;
    const writer = LogWriter.open({ path: logPath, capBytes: cap });
    const onDisk = () =>
      [logPath, ...tailSegments(logPath), `${logPath}.room`]
        .filter((f) => fs.existsSync(f))
        .reduce((sum, f) => sum + fs.statSync(f).size, 0);
    let maxOnDisk = 0;
    const lines = 20_000;
    for (let i = 0; i < lines; i += 100) {
      const chunk = Array.from({ length: 100 }, (_, k) => `line ${i + k}\n`).join('');
      writer.write(i % 200 === 0 ? 'stdout' : 'stderr', Buffer.from(chunk));
      maxOnDisk = Math.max(maxOnDisk, onDisk());
    }
    // Closing peaks just before it removes a segment it has copied into the log.
    let maxWhileClosing = 0;
    let removed = 0;
    const rm = fs.rmSync.bind(fs);
    const spy = vi.spyOn(fs, 'rmSync').mockImplementation((target, options) => {
      maxWhileClosing = Math.max(maxWhileClosing, onDisk());
      removed += 1;
      rm(target, options);
    });
    const summary = writer.close();
    spy.mockRestore();
    // The page set aside for a full disk's marker, then each segment once copied.
    expect(removed).toBe(3);
    expect(maxOnDisk).toBeLessThanOrEqual(cap);
    expect(maxWhileClosing).toBeLessThanOrEqual(cap);
    expect(summary.truncated).toBe(true);
    expect(summary.bytes).toBeLessThanOrEqual(cap + 200);
    expect(tailSegments(logPath).some((f) => fs.existsSync(f))).toBe(false);
    const records = readWholeLog(logPath);
    const gapAt = records.findIndex((r) => r.stream === 'gap');
    const gap = records[gapAt];
    expect(records[0]?.text).toBe('line 0');
    expect(records.at(-1)?.text).toBe(`line ${lines - 1}`);
    // Head, gap, tail: nothing missing on either side of the marker, and the marker counts what is.
    const kept = records.filter((r) => r.stream !== 'gap').length;
    expect(gap?.skippedLines).toBe(lines - kept);
    expect(records[gapAt + 1]?.seq).toBe((records[gapAt - 1]?.seq ?? 0) + 1 + (gap?.skippedLines ?? 0));
    expect(gap?.skippedBytes).toBeGreaterThan(0);
    console.log(
      `cap ${cap} B: ${summary.outputBytes} B of output → ${summary.bytes} B log, ${kept} lines kept, ` +
        `${gap?.skippedLines} skipped; most on disk while writing ${maxOnDisk} B, while closing ${maxWhileClosing} B`,
    );
  });
});

describe('log reader', () => {
  it('tail, stream filter and follow cursor', () => {
    const writer = LogWriter.open({ path: logPath, capBytes: 1 << 20 });
    for (let i = 1; i <= 300; i++) writer.write(i % 3 === 0 ? 'stderr' : 'stdout', Buffer.from(`l${i}\n`));
    const live = readLog(logPath, { tail: 5 });
    expect(texts(live.records)).toEqual([
      'stdout:l296',
      'stderr:l297',
      'stdout:l298',
      'stdout:l299',
      'stderr:l300',
    ]);
    expect(live.lastSeq).toBe(300);
    expect(texts(readLog(logPath, { tail: 2, stream: 'stderr' }).records)).toEqual([
      'stderr:l297',
      'stderr:l300',
    ]);
    writer.write('stdout', Buffer.from('l301\n'));
    expect(texts(readLog(logPath, { afterSeq: 300 }).records)).toEqual(['stdout:l301']);
    expect(readLog(logPath, { afterSeq: 301 }).records).toEqual([]);
    // Far behind the cursor: a fresh tail, flagged as such.
    const behind = readLog(logPath, { afterSeq: 1, limit: 10 });
    expect(behind.reset).toBe(true);
    expect(behind.records.at(-1)?.text).toBe('l301');
    expect(behind.records).toHaveLength(10);
    writer.close();
  });

  it('a writer killed mid-record: the log reads cleanly to its last whole record, segments included', () => {
    const writer = LogWriter.open({ path: logPath, capBytes: 64 * 1024 });
    for (let i = 0; i < 5_000; i++) writer.write('stdout', Buffer.from(`line ${i}\n`));
    // Never closed (SIGKILL): the tail is still in its segments; then a torn record at the very end.
    const [, current] = tailSegments(logPath);
    expect(fs.existsSync(current)).toBe(true);
    fs.appendFileSync(current, '{"i":999999,"t":1,"s":"o","x":"half a rec');
    const records = readWholeLog(logPath);
    expect(records.at(-1)?.text).toBe('line 4999');
    expect(records[0]?.text).toBe('line 0');
    // What the dead writer skipped is marked (lines only: it never got to count the bytes).
    const gap = records.find((r) => r.stream === 'gap');
    expect(gap?.skippedLines).toBeGreaterThan(0);
    expect(readLog(logPath, { tail: 1 }).records.map((r) => r.text)).toEqual(['line 4999']);
  });

  it('a writer killed while closing (tail copied, segments not yet removed): no line twice', () => {
    const writer = LogWriter.open({ path: logPath, capBytes: 64 * 1024 });
    for (let i = 0; i < 5_000; i++) writer.write('stderr', Buffer.from(`line ${i}\n`));
    const segments = tailSegments(logPath).filter((f) => fs.existsSync(f));
    const saved = segments.map((f) => [f, fs.readFileSync(f)] as const);
    writer.close();
    for (const [file, data] of saved) fs.writeFileSync(file, data);
    const records = readWholeLog(logPath).filter((r) => r.stream !== 'gap');
    expect(new Set(records.map((r) => r.seq)).size).toBe(records.length);
    expect(records.at(-1)?.text).toBe('line 4999');
  });
});

describe('log budget', () => {
  it('deletes the least recently written logs of ended runs first, never a live one', () => {
    const logs = logsDirOf(dir.store);
    fs.mkdirSync(logs, { recursive: true });
    const names = ['run_a.log', 'run_b.log', 'run_c.log', 'run_d.2.log'];
    names.forEach((name, i) => {
      const file = path.join(logs, name);
      fs.writeFileSync(file, 'x'.repeat(1000));
      fs.utimesSync(file, 1000 + i, 1000 + i);
    });
    fs.writeFileSync(path.join(logs, 'run_c.log.tail'), 'y'.repeat(500));
    fs.utimesSync(path.join(logs, 'run_c.log.tail'), 1002, 1002);
    const removed: string[] = [];
    const n = enforceLogBudget(logs, 2600, 0, {
      isActive: (runId) => runId === 'run_a',
      onRemoved: (runId, name) => removed.push(`${runId}:${name}`),
    });
    expect(n).toBe(2);
    // run_a is live (kept though oldest); run_b then run_c (with its segment) go; run_d fits.
    expect(removed).toEqual(['run_b:run_b.log', 'run_c:run_c.log']);
    expect(fs.readdirSync(logs).sort()).toEqual(['run_a.log', 'run_d.2.log']);
  });
});
