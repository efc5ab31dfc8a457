/** Contention: many writer processes at once; SQLITE_BUSY never reaches a caller. */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store';
import { fixturePath } from '../helpers/paths';
import { tempDir } from '../helpers/cli';

const WRITERS = 8;
const RUNS_EACH = 40;
const dir = tempDir('runwarden-contention-');
afterAll(() => dir.remove());

describe('contention', () => {
  it(`${WRITERS} processes writing at once surface 0 SQLITE_BUSY`, async () => {
    const project = join(dir.path, 'p');
    mkdirSync(project);
    openStore(dir.store).close();
    const startAt = Date.now() + 1500;
    const reports = await Promise.all(
      Array.from(
        { length: WRITERS },
        () =>
          new Promise<{ writes: number; errors: Record<string, number>; ms: number }>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              [
                fixturePath('contention-writer'),
                '--store',
                dir.store,
                '--project',
                project,
                '--runs',
                String(RUNS_EACH),
                '--start-at',
                String(startAt),
              ],
              { stdio: ['ignore', 'pipe', 'inherit'] },
            );
            let out = '';
            child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
            child.once('exit', (code) =>
              code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`writer exited ${code}: ${out}`)),
            );
          }),
      ),
    );
    const errors: Record<string, number> = {};
    for (const report of reports)
      for (const [code, n] of Object.entries(report.errors)) errors[code] = (errors[code] ?? 0) + n;
    const writes = reports.reduce((sum, r) => sum + r.writes, 0);
    const slowest = Math.max(...reports.map((r) => r.ms));
    const db = new Database(dir.store, { readonly: true });
    const integrity = db.pragma('integrity_check', { simple: true });
    const completed = db.prepare("SELECT count(*) AS n FROM runs WHERE status = 'completed'").get() as
      { n: number } | undefined;
    db.close();
    console.log(
      `contention: ${JSON.stringify({ writers: WRITERS, writes, writesPerSecond: Math.round(writes / (slowest / 1000)), errors, integrity })}`,
    );
    expect(errors).toEqual({});
    expect(writes).toBe(WRITERS * RUNS_EACH * 10);
    expect(integrity).toBe('ok');
    expect(completed?.n ?? WRITERS * RUNS_EACH).toBe(WRITERS * RUNS_EACH);
  });
});
