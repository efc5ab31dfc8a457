/**
 * An upgrade while a runner of the previous schema is alive (docs/ARCHITECTURE.md#upgrades): the fixture runner
 * opens a v11 store and holds a running run; a read command of this build migrates the store under it; the old
 * runner then finishes its run the v11 way, leaving the kept counts wrong. doctor says which way each is off,
 * the sweeper of `serve` sets them right on its own and records what it changed, and `doctor --repair` does it
 * on demand.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CounterDrift } from '../../shared/views';
import { openStore, type DoctorReport } from '../../main/store';
import { SUPPORTED_SCHEMA_VERSION } from '../../main/store/migrations';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../helpers/cli';
import { fixturePath } from '../helpers/paths';

let dir: TempDir;
let project: string;
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  fs.mkdirSync(project);
});
afterEach(() => {
  for (const child of children.splice(0)) killQuietly(child.pid, 'SIGKILL');
  dir.remove();
});

/** Starts an old runner; resolves with its run id and a function that finishes the run the old way. */
async function oldRunner(): Promise<{ runId: string; finish: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [fixturePath('old-schema-runner'), '--store', dir.store, '--project', project],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const first = await waitFor('the old runner to start', () => /^\{.*\}\n/.exec(out)?.[0]);
  const { runId } = JSON.parse(first) as { runId: string };
  return {
    runId,
    finish: async () => {
      child.stdin?.write('finish\n');
      await waitFor('the old runner to finish its run', () => out.includes('done\n'));
    },
  };
}

async function drift(): Promise<{ code: number | null; drift: CounterDrift[] }> {
  const { code, body } = await runJson<DoctorReport>(['doctor'], { store: dir.store });
  return { code, drift: body.ok ? body.value.counterDrift : [] };
}

const WRONG = [
  { display: 'completed', kept: 0, counted: 1 },
  { display: 'running', kept: 1, counted: 0 },
];

describe('an upgrade with a runner of the previous schema alive', () => {
  it('the kept counts go wrong; doctor says which way; the sweeper sets them right and says so', async () => {
    const old = await oldRunner();
    // A read command of this build opens the store, and migrates it under the live old runner.
    const ls = await runCli(['ls'], { store: dir.store });
    expect(ls.code).toBe(0);
    // It says so, once (docs/ARCHITECTURE.md#upgrades), and the store's events record it.
    expect(ls.stderr).toBe(
      `runwarden: upgraded the store ${dir.store} from schema v11 to v${SUPPORTED_SCHEMA_VERSION} (no data changed).\n`,
    );
    expect((await runCli(['ls'], { store: dir.store })).stderr).toBe('');
    await old.finish();

    const before = await drift();
    expect(before.code).toBe(1);
    expect(before.drift).toEqual(WRONG.map((w) => ({ ...w, projectPath: project })));
    const human = await runCli(['doctor'], { store: dir.store });
    expect(human.stdout).toMatch(/completed: counted behind by 1: kept 0, the runs say 1/);
    expect(human.stdout).toMatch(/running: counted ahead by 1: kept 1, the runs say 0/);
    expect(human.stdout).toContain('runwarden doctor --repair');

    // The app's sweeper (here serve's) recounts on its first tick.
    const serve = spawnCli(['serve', '--json'], { store: dir.store, timeoutMs: 120_000 });
    children.push(serve.child);
    await waitFor('serve to listen', () => serve.stdout.includes('"url"'), 30_000);
    await waitFor('the sweeper to set the counts right', async () => (await drift()).code === 0, 30_000);
    killQuietly(serve.child.pid, 'SIGTERM');
    await serve.done;
    const store = openStore(dir.store, { readonly: true });
    const events = store.eventsAfter(0, 1000);
    const repaired = events.filter((e) => e.type === 'store.counts_repaired');
    store.close();
    expect(repaired).toHaveLength(1);
    const migrated = events.filter((e) => e.type === 'store.migrated');
    expect(migrated.map((e) => e.payload)).toEqual([{ from: 11, to: SUPPORTED_SCHEMA_VERSION, changes: [] }]);
    expect(repaired[0]?.actorId).toBe('sweeper');
    expect(
      (repaired[0]?.payload as { changes: CounterDrift[] } | undefined)?.changes.map((c) => c.display),
    ).toEqual(['completed', 'running']);
  });

  it('doctor --repair recounts on demand and says what it changed', async () => {
    const old = await oldRunner();
    expect((await runCli(['ls'], { store: dir.store })).code).toBe(0);
    await old.finish();
    expect((await drift()).code).toBe(1);

    const repair = await runCli(['doctor', '--repair'], { store: dir.store });
    expect(repair.code).toBe(0);
    expect(repair.stdout).toMatch(
      /repaired\s+\S+ completed: was counted behind by 1: kept 0, the runs say 1; now 1/,
    );
    expect(repair.stdout).toMatch(
      /repaired\s+\S+ running: was counted ahead by 1: kept 1, the runs say 0; now 0/,
    );
    expect(await drift()).toEqual({ code: 0, drift: [] });
    const again = await runJson<DoctorReport & { repaired: CounterDrift[] }>(['doctor', '--repair'], {
      store: dir.store,
    });
    expect(again.code).toBe(0);
    expect(again.body.ok && again.body.value.repaired).toEqual([]);
  });
});
