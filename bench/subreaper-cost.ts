/**
 * What keeping a run's processes below its supervisor costs at start
 * (docs/LIVENESS.md#only-a-person-outside-the-run-answers): `runwarden exec -q -- true`, the whole process,
 * with the child subreaper (the default helper, perl) against the same with none, interleaved in one run
 * on a store of its own; python3's step, the fallback, measured beside them. Each variant's containment is
 * read back from the store, so a variant that silently ran without the flag fails the measurement.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { timedMeasurement, type Measurement } from './report-model';
import { CLI_BIN } from './whole-process';

const VARIANTS = {
  none: { RUNWARDEN_PERL: '', RUNWARDEN_PYTHON: '' },
  perl: {},
  python: { RUNWARDEN_PERL: '' },
} as const;
type Variant = keyof typeof VARIANTS;

/** The containment the last run's supervisor recorded with its command. */
function lastContainment(store: string): { subreaper: boolean } | null {
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        `SELECT payload_json FROM events WHERE type = 'run.command_started' ORDER BY rowid DESC LIMIT 1`,
      )
      .get() as { payload_json: string } | undefined;
    return row === undefined ? null : (JSON.parse(row.payload_json).containment ?? null);
  } finally {
    db.close();
  }
}

export function measureSubreaperCost(reps: number, log: (line: string) => void): Measurement[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-bench-subreaper-'));
  const store = path.join(dir, 'state.sqlite');
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', RUNWARDEN_STORE: store };
  for (const name of ['RUNWARDEN_RUN_ID', 'RUNWARDEN_RUN_TOKEN', 'RUNWARDEN_LEASE_GENERATION'])
    delete env[name];
  const time = (variant: Variant): number => {
    const started = performance.now();
    const result = spawnSync(process.execPath, [CLI_BIN, 'exec', '-q', '--', 'true'], {
      env: { ...env, ...VARIANTS[variant] },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const ms = performance.now() - started;
    if (result.status !== 0 || String(result.stderr) !== '')
      throw new Error(`exec (${variant}) exited ${result.status}: ${String(result.stderr)}`);
    return ms;
  };
  try {
    for (const variant of Object.keys(VARIANTS) as Variant[]) {
      time(variant);
      const subreaper = lastContainment(store)?.subreaper === true;
      if (subreaper !== (variant !== 'none'))
        throw new Error(`exec (${variant}) ran ${subreaper ? 'as' : 'without'} a child subreaper`);
    }
    const samples: Record<Variant, number[]> = { none: [], perl: [], python: [] };
    for (let i = 0; i < reps; i += 1) {
      for (const variant of Object.keys(VARIANTS) as Variant[]) samples[variant].push(time(variant));
    }
    const perl = timedMeasurement(
      'cli.exec-subreaper',
      'exec -- true with the child subreaper (perl), whole process',
      'concurrency',
      { app: samples.perl, baseline: samples.none },
      null,
      'baseline: the same exec without the subreaper (no re-exec)',
    );
    const python = timedMeasurement(
      'cli.exec-subreaper-python',
      'exec -- true with the child subreaper through python3 (the fallback)',
      'concurrency',
      { app: samples.python, baseline: samples.none },
      null,
      'baseline: the same exec without the subreaper (no re-exec)',
    );
    for (const m of [perl, python]) {
      log(`  ${m.label}: median ${m.median} ms vs without ${m.baselineMedian} ms (${m.ratio}×)`);
    }
    return [perl, python];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
