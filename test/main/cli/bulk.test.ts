/**
 * Bulk cancel / resume / retry from the CLI, with the window's rules: a selection (--stale, --project,
 * --view, several ids), --dry-run that writes nothing, a per-run result table or --json, a confirmation
 * on a terminal above 5 runs (a real pseudo-terminal through python3's pty), never a prompt without one;
 * and a retry refused while the run's earlier retry has not finished.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type RunStore } from '../../../main/store';
import type { BulkResult } from '../../../shared/views';
import { runCli, runJson, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';

let dir: TempDir;
const projects: Record<string, string> = {};
let deadPid: number;
beforeAll(() => {
  dir = tempDir();
  for (const name of ['alpha', 'beta', 'gamma']) {
    projects[name] = join(dir.path, name);
    mkdirSync(projects[name]);
  }
  // A pid that surely belongs to no live process: its runner "died".
  deadPid = spawnSync('true').pid ?? 999_999;
});
afterAll(() => dir.remove());

/** Runs whose runner died an hour ago: claimed through a store whose clock is an hour behind. */
function staleRuns(project: string, count: number): string[] {
  const past = openStore(dir.store, { clock: () => Date.now() - 3_600_000 });
  try {
    return Array.from({ length: count }, (_, i) => {
      const run = past.reserveRun(
        { projectPath: project, workflow: 'nightly', title: `Nightly ${i}` },
        { type: 'runner', id: 'test', surface: 'sdk' },
      );
      past.claimRun(run.id, {
        ownerType: 'runner',
        ownerId: `runner-${i}`,
        pid: deadPid,
        hostname: hostname(),
        startId: null,
        leaseMs: 1000,
      });
      return run.id;
    });
  } finally {
    past.close();
  }
}

function withStore<T>(fn: (store: RunStore) => T): T {
  const store = openStore(dir.store);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

const statuses = (ids: string[]): string[] => withStore((s) => ids.map((id) => s.getRun(id).status));

describe('bulk cancel of stale runs', () => {
  it('dry run first (nothing changes), then for real, only in the project asked for', async () => {
    const alpha = staleRuns(projects.alpha ?? '', 7);
    const beta = staleRuns(projects.beta ?? '', 1);
    const opts = { store: dir.store };

    const dry = await runJson<BulkResult>(
      ['cancel', '--stale', '--project', projects.alpha ?? '', '--dry-run'],
      opts,
    );
    expect(dry.code).toBe(0);
    expect(dry.body).toMatchObject({
      ok: true,
      value: { action: 'cancel', dryRun: true, succeeded: 7, failed: 0 },
    });
    expect(dry.body.ok && dry.body.value.items.map((i) => i.runId).sort()).toEqual([...alpha].sort());
    expect(dry.body.ok && dry.body.value.items[0]?.message).toMatch(/^Would cancel\b/);
    const table = await runCli(['cancel', '--stale', '--project', projects.alpha ?? '', '--dry-run'], opts);
    // Each run with its title, so a person reads which runs (docs/CLI.md "Person commands").
    expect(table.stdout.split('\n')[0]).toMatch(/^RUN\s+TITLE\s+RESULT\s+WHAT$/);
    for (const id of alpha)
      expect(table.stdout).toMatch(new RegExp(`${id}\\s+Nightly \\d\\s+would\\s+Would cancel`));
    expect(table.stdout).toContain('Dry run: 7 would be cancelled, 0 refused; nothing was changed.');
    expect(statuses([...alpha, ...beta])).toEqual(Array(8).fill('running'));

    // No terminal here (stdin is not a TTY): 7 runs and no prompt, no hang.
    const real = await runCli(
      ['cancel', '--stale', '--project', projects.alpha ?? '', '--reason', 'runners died'],
      opts,
    );
    expect(real.code, real.stderr).toBe(0);
    expect(real.stderr).not.toContain('[y/N]');
    for (const id of alpha)
      expect(real.stdout).toMatch(new RegExp(`${id}\\s+Nightly \\d\\s+done\\s+Cancelled`));
    expect(real.stdout).toContain('7 cancelled, 0 refused.');
    expect(statuses(alpha)).toEqual(Array(7).fill('cancelled'));
    expect(statuses(beta)).toEqual(['running']);

    // Again: every one is refused now, each with its reason, and the exit code says so.
    const again = await runJson<BulkResult>(['cancel', ...alpha.slice(0, 2), 'run_nope'], opts);
    expect(again.code).toBe(5);
    expect(again.body).toMatchObject({
      ok: true,
      value: {
        succeeded: 0,
        failed: 3,
        items: [
          { runId: alpha[0], ok: false, code: 'CONFLICT' },
          { runId: alpha[1], ok: false, code: 'CONFLICT' },
          { runId: 'run_nope', ok: false, code: 'NOT_FOUND' },
        ],
      },
    });
  });

  it('asks on a terminal above 5 runs: "n" changes nothing, --yes skips the question', async () => {
    const gamma = staleRuns(projects.gamma ?? '', 6);
    const args = ['cancel', '--stale', '--project', projects.gamma ?? ''];
    const declined = await inTerminal(args, 'n\n');
    expect(declined.output).toContain('Cancel 6 runs? [y/N]');
    expect(declined.output).toContain('runwarden: nothing done');
    expect(declined.code).toBe(1);
    expect(statuses(gamma)).toEqual(Array(6).fill('running'));

    const yes = await inTerminal([...args, '--yes'], '');
    expect(yes.output).not.toContain('[y/N]');
    expect(yes.output).toContain('6 cancelled, 0 refused.');
    expect(yes.code).toBe(0);
    expect(statuses(gamma)).toEqual(Array(6).fill('cancelled'));
  });
});

describe('bulk resume', () => {
  it('resumes the parked runs of a view, refusing the one that needs --anyway, after a dry run', async () => {
    const project = join(dir.path, 'delta');
    mkdirSync(project);
    const ids = withStore((store) =>
      (['runnerExited', 'runnerExited', 'sourceChanged'] as const).map((code, i) => {
        const run = store.reserveRun(
          { projectPath: project, workflow: 'etl', title: `ETL ${i}` },
          { type: 'runner', id: 'test', surface: 'sdk' },
        );
        const { claim } = store.claimRun(run.id, {
          ownerType: 'runner',
          ownerId: 'r',
          pid: deadPid,
          hostname: hostname(),
          startId: null,
          leaseMs: 60_000,
        });
        store.park(claim, code, 'stopped');
        return run.id;
      }),
    );
    const opts = { store: dir.store };
    const dry = await runJson<BulkResult>(
      ['resume', '--view', 'parked', '--project', project, '--dry-run'],
      opts,
    );
    expect(dry.code).toBe(5);
    expect(dry.body.ok && dry.body.value.items.map((i) => [i.runId, i.ok]).sort()).toEqual(
      [
        [ids[0], true],
        [ids[1], true],
        [ids[2], false],
      ].sort(),
    );
    expect(withStore((s) => ids.map((id) => s.getSnapshot(id).queue.status))).toEqual([
      'parked',
      'parked',
      'parked',
    ]);
    const real = await runCli(['resume', '--view', 'parked', '--project', project], opts);
    expect(real.stdout).toContain('2 resumed, 1 refused.');
    expect(withStore((s) => ids.map((id) => s.getSnapshot(id).queue.status))).toEqual([
      'queued',
      'queued',
      'parked',
    ]);
  });
});

describe('retry', () => {
  it('refuses a second retry while the first has not finished, unless --again; bulk says the same per run', async () => {
    const opts = { store: dir.store };
    const finished = await runCli(['exec', '--project', projects.beta ?? '', '--', 'true'], opts);
    const runId = /run (run_\S+)/.exec(finished.stderr)?.[1] ?? '';
    const first = await runJson<{ id: string }>(['retry', runId], opts);
    expect(first.code).toBe(0);
    const firstId = first.body.ok ? first.body.value.id : '';
    const refused = await runCli(['retry', runId], opts);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`already retried as ${firstId}, which is queued; add --again`);
    const bulk = await runJson<BulkResult>(['retry', runId, '--dry-run'], opts);
    expect(bulk.body).toMatchObject({ ok: true, value: { items: [{ runId, ok: false, code: 'CONFLICT' }] } });
    const forced = await runJson<{ id: string }>(['retry', runId, '--again'], opts);
    expect(forced.code).toBe(0);
    expect(forced.body.ok && forced.body.value.id).not.toBe(firstId);
    // As a selection: --again reaches the handler, which refuses an open retry from any surface without it.
    const selection = await runJson<BulkResult>(['retry', runId, firstId, '--again'], opts);
    expect(selection.body).toMatchObject({
      ok: true,
      value: {
        items: [
          { runId, ok: true },
          { runId: firstId, ok: false, code: 'CONFLICT' },
        ],
      },
    });
  });

  it('compare-and-set: --revision that is not the run’s is refused and changes nothing', async () => {
    const [runId = ''] = staleRuns(projects.beta ?? '', 1);
    const revision = withStore((s) => s.getRun(runId).revision);
    const stale = await runCli(['cancel', runId, '--revision', String(revision - 1)], { store: dir.store });
    expect(stale.code).toBe(5);
    expect(statuses([runId])).toEqual(['running']);
  });
});

/** Runs the CLI on a real pseudo-terminal (python3's pty module), typing `input` once it asks. */
async function inTerminal(args: string[], input: string): Promise<{ code: number | null; output: string }> {
  const script = 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)';
  const child = spawn('python3', ['-c', script, process.execPath, testCliBin(), ...args], {
    env: { ...process.env, RUNWARDEN_STORE: dir.store, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (input !== '') {
    await waitFor('the prompt', () => output.includes('[y/N]'));
    child.stdin.write(input);
  }
  const code = await done;
  child.stdin.end();
  return { code, output };
}
