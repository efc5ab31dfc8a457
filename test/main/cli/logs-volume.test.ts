/**
 * A command printing 100 MB through `runwarden exec` (real processes): the log stays within its cap while
 * it is written and after, the disk holds no more than the cap, and the run's heartbeats keep their pace
 * (each one well inside the lease, counted from the store) so the run completes instead of going stale.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../shared/views';
import { openStore } from '../../../main/store';
import { runCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';

let dir: TempDir;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => dir.remove());

const TOTAL = 100_000_000;
const LEASE_MS = 600;
const CAP = 8 * 1024 * 1024;

function bytesIn(folder: string): number {
  let total = 0;
  for (const name of fs.existsSync(folder) ? fs.readdirSync(folder) : []) {
    try {
      total += fs.statSync(join(folder, name)).size;
    } catch {
      // Rotated away between the listing and the stat.
    }
  }
  return total;
}

describe('a command printing 100 MB', () => {
  it('keeps the log within its cap and the heartbeats on time', async () => {
    const line = 'x'.repeat(99);
    const exec = spawn(
      process.execPath,
      [
        testCliBin(),
        'exec',
        '--lease-ms',
        String(LEASE_MS),
        '--',
        'sh',
        '-c',
        `yes ${line} | head -c ${TOTAL}; echo last line`,
      ],
      // The pass-through goes to /dev/null: the test measures the tee, not a terminal.
      { env: { ...process.env, RUNWARDEN_STORE: dir.store }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    exec.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => exec.once('exit', (code) => resolve(code)));
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(stderr)?.[1]);

    const store = openStore(dir.store, { readonly: true });
    // A bare read-only connection for the polled heartbeat: one indexed row, not a whole snapshot.
    const raw = new Database(dir.store, { readonly: true, fileMustExist: true });
    const beats: number[] = [];
    let maxOnDisk = 0;
    const state = { done: false };
    void exited.then(() => (state.done = true));
    while (!state.done) {
      const row = raw.prepare(`SELECT heartbeat_at FROM leases WHERE run_id = ?`).get(runId) as
        { heartbeat_at: number | null } | undefined;
      const at = row?.heartbeat_at ?? null;
      if (at !== null && at !== beats.at(-1)) beats.push(at);
      maxOnDisk = Math.max(maxOnDisk, bytesIn(`${dir.store}.logs`));
      await sleep(20);
    }
    expect(await exited).toBe(0);
    const run = store.getRun(runId);
    const [log] = store.listRunLogs(runId);
    store.close();
    raw.close();

    const gaps = beats.slice(1).map((at, i) => at - (beats[i] ?? at));
    const maxGap = Math.max(...gaps);
    const span = (beats.at(-1) ?? 0) - (beats[0] ?? 0);
    console.log(
      `100 MB in ${span} ms of heartbeats: ${beats.length} beats (every ${LEASE_MS / 3} ms expected), ` +
        `longest gap ${maxGap} ms (lease ${LEASE_MS} ms); log ${log?.bytes} B, most on disk ${maxOnDisk} B`,
    );
    expect(run.status).toBe('completed');
    // Every heartbeat came well inside the lease: the runner was never close to being fenced.
    expect(maxGap).toBeLessThan(LEASE_MS);
    expect(beats.length).toBeGreaterThanOrEqual(Math.floor(span / (LEASE_MS / 3)) - 1);
    expect(maxOnDisk).toBeLessThanOrEqual(CAP);
    expect(log).toMatchObject({ truncated: true });
    expect(log?.bytes).toBeLessThanOrEqual(CAP);
    expect(fs.statSync(log?.path ?? '').size).toBe(log?.bytes);

    const tail = await runCli(['logs', runId, '--tail', '2', '--json'], { store: dir.store });
    const records = tail.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogRecord);
    expect(records.at(-1)).toMatchObject({ stream: 'stdout', text: 'last line' });
    const whole = await runCli(['logs', runId, '--json'], { store: dir.store });
    const all = whole.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LogRecord);
    const gap = all.find((r) => r.stream === 'gap');
    const keptBytes = all.filter((r) => r.stream !== 'gap').reduce((sum, r) => sum + r.text.length + 1, 0);
    // The marker accounts for every byte not kept.
    expect((gap?.skippedBytes ?? 0) + keptBytes).toBe(TOTAL + 'last line\n'.length);
  }, 120_000);
});
