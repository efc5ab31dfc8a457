/**
 * Chaos (docs/LIVENESS.md#unknown-outcomes): 200 times, a run asks a question (answered by its default),
 * performs one effect and goes on; at a random moment a random process of it — its supervisor, its effect,
 * its ask, or its command — is SIGKILLed. The run is then brought to an end as a person would (cancel, or
 * stop its orphaned command), retried when retry is allowed, and the retry run by a worker. Checked after
 * every round: no finished run holds an applying effect, and no effect's command ever ran twice (each
 * round's ledger has at most one line). Seeded: the seed is printed when a round fails
 * (RUNWARDEN_CHAOS_SEED replays it).
 */
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor } from '../helpers/cli';

const ROUNDS = Number(process.env.RUNWARDEN_CHAOS_ROUNDS ?? 200);
const PARALLEL = Number(process.env.RUNWARDEN_CHAOS_PARALLEL ?? 12);
const SEED = Number(process.env.RUNWARDEN_CHAOS_SEED ?? Date.now() % 2 ** 31);

const dir = tempDir('runwarden-chaos-');
afterAll(() => dir.remove());

/** mulberry32: a small seeded PRNG, so a failing round can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Role = 'supervisor' | 'effect' | 'ask' | 'command';
const ROLES: readonly Role[] = ['supervisor', 'effect', 'ask', 'command'];

/** The processes below `root`, by the role each plays in the run. */
function processesOf(root: number): Map<Role, number> {
  const parent = new Map<number, number>();
  const cmdline = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      parent.set(Number(entry), Number(fields[1]));
      cmdline.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // Gone meanwhile.
    }
  }
  const found = new Map<Role, number>([['supervisor', root]]);
  for (const [pid] of parent) {
    let up = parent.get(pid);
    let depth = 1;
    while (up !== undefined && up !== root && up > 1 && depth < 20) {
      up = parent.get(up);
      depth += 1;
    }
    if (up !== root) continue;
    const line = cmdline.get(pid) ?? '';
    if (parent.get(pid) === root && !found.has('command')) found.set('command', pid);
    else if (/runwarden\.js effect/.test(line)) found.set('effect', pid);
    else if (/runwarden\.js ask/.test(line)) found.set('ask', pid);
  }
  return found;
}

function ledgerLines(file: string): number {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

function query<T>(sql: string): T[] {
  const db = new Database(dir.store, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const TERMINAL = new Set(['completed', 'failed', 'timed_out', 'cancelled']);

async function runStatus(runId: string): Promise<string | undefined> {
  const shown = await runJson<{ snapshot: { run: { status: string } } }>(['show', runId], {
    store: dir.store,
  });
  return shown.body.ok ? shown.body.value.snapshot.run.status : undefined;
}

/** Ends the run as a person would: cancel it, stopping its orphaned command first when it has one. */
async function endRun(runId: string): Promise<void> {
  await waitFor(
    `run ${runId} to end`,
    async () => {
      if (TERMINAL.has((await runStatus(runId)) ?? '')) return true;
      const cancel = await runCli(['cancel', runId, '--yes'], { store: dir.store });
      if (cancel.code === 3) await runCli(['cancel', '--stop-command', runId, '--yes'], { store: dir.store });
      return false;
    },
    120_000,
    500,
  );
}

async function round(index: number, random: () => number): Promise<void> {
  const project = join(dir.path, `p${index}`);
  mkdirSync(project);
  const ledger = join(project, 'ledger.txt');
  const effectSeconds = (random() * 0.6).toFixed(2);
  const afterSeconds = (random() * 0.6).toFixed(2);
  const script = [
    `runwarden ask --title q --choice a --default a --timeout 1s > /dev/null`,
    `runwarden effect --key pay-${index} -- sh -c 'echo x >> "$1"; sleep "$2"' sh "$1" ${effectSeconds}`,
    `sleep ${afterSeconds}`,
  ].join('; ');
  const exec = spawnCli(['exec', '--project', project, '--', 'sh', '-c', script, 'sh', ledger], {
    store: dir.store,
    cwd: project,
    timeoutMs: 240_000,
  });
  let exited = false;
  void exec.done.then(
    () => (exited = true),
    () => (exited = true),
  );
  const runId = await waitFor(
    'the run id',
    () => {
      const id = /runwarden: run (run_\w+)/.exec(exec.stderr)?.[1];
      if (id === undefined && exited) throw new Error(`exec ended without a run: ${exec.stderr}`);
      return id;
    },
    120_000,
  );
  await new Promise((resolve) => setTimeout(resolve, random() * 1500));
  const present = processesOf(exec.child.pid ?? 0);
  const wanted = ROLES[Math.floor(random() * ROLES.length)] ?? 'supervisor';
  const victim = present.get(wanted) ?? [...present.values()][Math.floor(random() * present.size)];
  killQuietly(victim, 'SIGKILL');
  await exec.done.catch(() => undefined);
  await endRun(runId);

  const retry = await runCli(['retry', runId], { store: dir.store });
  if (retry.code === 0) {
    const worker = await runCli(['worker', '--once', '--project', project], {
      store: dir.store,
      cwd: project,
      timeoutMs: 240_000,
    });
    expect([0, 1, 75, 130], worker.stderr).toContain(worker.code);
  } else {
    expect(retry.code, retry.stderr).toBe(5);
  }
  expect(ledgerLines(ledger), `round ${index}: the effect ran more than once`).toBeLessThanOrEqual(1);
}

it(`SIGKILL of a random process of a run, ${ROUNDS} times: never twice, never left applying`, async () => {
  const random = prng(SEED);
  // Each round draws from its own generator, so rounds running side by side replay the same way.
  const seeds = Array.from({ length: ROUNDS }, () => Math.floor(random() * 2 ** 31));
  let next = 0;
  const failures: string[] = [];
  const lane = async (): Promise<void> => {
    while (next < ROUNDS) {
      const index = next;
      next += 1;
      try {
        await round(index, prng(seeds[index] ?? 0));
      } catch (error) {
        failures.push(`round ${index}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const left = query<{ id: number }>(
        `SELECT e.id FROM effects e JOIN runs r ON r.id = e.run_id
         WHERE e.status = 'applying' AND r.status IN ('completed', 'failed', 'timed_out', 'cancelled')`,
      );
      if (left.length > 0)
        failures.push(
          `round ${index}: finished runs hold applying effects ${left.map((e) => e.id).join(', ')}`,
        );
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
  if (failures.length > 0) process.stderr.write(`chaos seed ${SEED} (RUNWARDEN_CHAOS_SEED=${SEED})\n`);
  expect(failures, `seed ${SEED}`).toEqual([]);
}, 1_800_000);
