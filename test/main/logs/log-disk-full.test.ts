/**
 * docs/RUN-OUTPUT.md#a-full-disk on a real full file system (a small tmpfs; needs root for `mount`, as CI
 * runs): lines lost to ENOSPC are never silent. Every line written is either in the log or counted by a
 * gap marker saying the disk was full — when space returns mid-run, and when it never does (closing makes
 * room for the marker). No half record is left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { gapText } from '../../../shared/log-text';
import { DISK_FULL_GAP_TEXT, LogWriter } from '../../../main/logs/log-writer';
import { readLog, readWholeLog } from '../../../main/logs/read-log';
import { fillDisk, smallDisk } from '../../helpers/small-disk';

const disk = smallDisk('runwarden-logfull-', '512k');
afterEach(() => {
  for (const name of fs.readdirSync(disk.path)) fs.rmSync(path.join(disk.path, name), { recursive: true });
});

const fill = (): string => fillDisk(disk.path);

/** Lines kept plus lines every gap marker counts. */
function accounted(logPath: string) {
  const records = readWholeLog(logPath);
  const kept = records.filter((r) => r.stream === 'stdout').map((r) => r.text);
  const gaps = records.filter((r) => r.stream === 'gap');
  const skipped = gaps.reduce((n, g) => n + (g.skippedLines ?? 0), 0);
  return { kept, gaps, skipped };
}

it('space returns mid-run: the dropped lines are counted by a gap marker before the next line kept', () => {
  const logPath = path.join(disk.path, 'logs', 'run_a.log');
  const writer = LogWriter.open({ path: logPath, capBytes: 8 << 20 });
  for (let i = 1; i <= 1000; i += 1) writer.write('stdout', `line ${i}\n`);
  const full = fill();
  for (let i = 1001; i <= 2000; i += 1) writer.write('stdout', `line ${i}\n`);
  expect(writer.dropping).toBe(true);
  fs.rmSync(full);
  for (let i = 2001; i <= 2100; i += 1) writer.write('stdout', `line ${i}\n`);
  expect(writer.dropping).toBe(false);
  const summary = writer.close();
  expect(summary.truncated).toBe(true);

  const { kept, gaps, skipped } = accounted(logPath);
  expect(kept.length + skipped).toBe(2100);
  expect(gaps.length).toBeGreaterThan(0);
  expect(gaps.every((g) => g.text === DISK_FULL_GAP_TEXT)).toBe(true);
  expect(kept.slice(0, 1000)).toEqual(Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`));
  expect(kept.at(-1)).toBe('line 2100');
  expect(gapText(gaps[0] as (typeof gaps)[number])).toContain('skipped: the disk was full');
  // Every line of the file is a whole record.
  for (const line of fs.readFileSync(logPath, 'utf8').split('\n').slice(0, -1)) {
    expect(() => JSON.parse(line) as unknown).not.toThrow();
  }
});

it('the disk stays full to the end: closing makes room for the gap marker', () => {
  const logPath = path.join(disk.path, 'logs', 'run_b.log');
  const writer = LogWriter.open({ path: logPath, capBytes: 8 << 20 });
  for (let i = 1; i <= 2000; i += 1) writer.write('stdout', `line ${i}\n`);
  fill();
  for (let i = 2001; i <= 4000; i += 1) writer.write('stdout', `line ${i}\n`);
  expect(writer.dropping).toBe(true);
  writer.write('stdout', 'no newline yet');
  const summary = writer.close();
  expect(summary.truncated).toBe(true);

  const { kept, gaps, skipped } = accounted(logPath);
  expect(kept.length + skipped).toBe(4001);
  expect(gaps.at(-1)).toMatchObject({ stream: 'gap', text: DISK_FULL_GAP_TEXT });
  expect(kept.length).toBeGreaterThan(1000);
  for (const line of fs.readFileSync(logPath, 'utf8').split('\n').slice(0, -1)) {
    expect(() => JSON.parse(line) as unknown).not.toThrow();
  }
});

it('output past the head on a full disk: the tail segment gets the marker, closing keeps every count', () => {
  const logPath = path.join(disk.path, 'logs', 'run_c.log');
  // The smallest cap: a 15 KiB head, 16 KiB tail segments.
  const writer = LogWriter.open({ path: logPath, capBytes: 64 * 1024 });
  const line = (i: number) => `line ${i} ${'x'.repeat(40)}\n`;
  for (let i = 1; i <= 600; i += 1) writer.write('stdout', line(i));
  const full = fill();
  for (let i = 601; i <= 1200; i += 1) writer.write('stdout', line(i));
  fs.rmSync(full);
  for (let i = 1201; i <= 1300; i += 1) writer.write('stdout', line(i));
  writer.close();
  const records = readWholeLog(logPath);
  const diskGaps = records.filter((r) => r.stream === 'gap' && r.text === DISK_FULL_GAP_TEXT);
  expect(diskGaps.length).toBeGreaterThan(0);
  const kept = records.filter((r) => r.stream === 'stdout').length;
  const skipped = records.filter((r) => r.stream === 'gap').reduce((n, g) => n + (g.skippedLines ?? 0), 0);
  expect(kept + skipped).toBe(1300);
  expect(records.at(-1)?.text).toBe(line(1300).trimEnd());
});

it('full before the first line, freed with no later output: the marker is written by itself', async () => {
  const logPath = path.join(disk.path, 'logs', 'run_d.log');
  const writer = LogWriter.open({ path: logPath, capBytes: 8 << 20, gapRetryMs: 50 });
  const full = fill();
  writer.write('stdout', 'lost 1\nlost 2\n');
  expect(writer.dropping).toBe(true);
  expect(fs.statSync(logPath).size).toBe(0);
  fs.rmSync(full);
  // No more output: the retry writes the marker while the command still runs.
  const deadline = Date.now() + 10_000;
  while (writer.dropping && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(writer.dropping).toBe(false);
  const live = readLog(logPath);
  expect(live.records).toEqual([
    expect.objectContaining({ stream: 'gap', text: DISK_FULL_GAP_TEXT, skippedLines: 2, skippedBytes: 14 }),
  ]);
  writer.close();
  // The reader shows the leading gap, for a tail and for a follow from the start.
  expect(readLog(logPath).records.map((r) => r.stream)).toEqual(['gap']);
  expect(readLog(logPath, { afterSeq: 0 }).records.map((r) => r.stream)).toEqual(['gap']);
  expect(fs.existsSync(`${logPath}.room`)).toBe(false);
});

it('full before the first line and still full at the end: the page set aside holds the marker', () => {
  const logPath = path.join(disk.path, 'logs', 'run_e.log');
  const writer = LogWriter.open({ path: logPath, capBytes: 8 << 20 });
  expect(fs.statSync(`${logPath}.room`).size).toBe(4096);
  fill();
  writer.write('stdout', 'lost 1\nlost 2\nlost 3\n');
  expect(writer.dropping).toBe(true);
  const summary = writer.close();
  expect(summary.truncated).toBe(true);
  expect(readWholeLog(logPath)).toEqual([
    expect.objectContaining({ stream: 'gap', text: DISK_FULL_GAP_TEXT, skippedLines: 3 }),
  ]);
  expect(readLog(logPath).records).toHaveLength(1);
  expect(fs.existsSync(`${logPath}.room`)).toBe(false);
});
