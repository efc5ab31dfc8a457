/**
 * exec tells the truth at its end (docs/CLI.md#completed-with-an-unknown-outcome): a run whose command exits
 * 0 after one of its effects turned ambiguous is completed, shows in Needs you, and `exec` exits 76 with a
 * last line naming the effect and its `resolve` command; `--json` and `worker --once --json` say the same.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunDetail } from '../../../main/store';
import { runCli, runJson, tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
beforeAll(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  mkdirSync(project);
});
afterAll(() => dir.remove());

/** An effect whose `runwarden effect` process is killed (-9) while CMD runs: its outcome is unknown. */
const LOST = (key: string) =>
  `runwarden effect --key ${key} --summary "Pay invoice ${key}" -- sh -c 'kill -9 $PPID; sleep 1'`;

async function detail(runId: string): Promise<RunDetail> {
  const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
  if (!body.ok) throw new Error(body.error.message);
  return body.value;
}

it('exec: completed with an effect of unknown outcome exits 76 and names the resolve command', async () => {
  const result = await runCli(
    ['exec', '--project', project, '--', 'sh', '-c', `${LOST('a')}; echo "effect=$?"; exit 0`],
    { store: dir.store, cwd: project },
  );
  expect(result.code, result.stderr).toBe(76);
  expect(result.stdout).toContain('effect=137');
  const runId = /run (run_\S+)/.exec(result.stderr)?.[1] as string;
  const shown = await detail(runId);
  const effect = shown.snapshot.effects[0];
  expect(effect?.status).toBe('ambiguous');
  expect(shown.snapshot.run.status).toBe('completed');
  const lines = result.stderr.trim().split('\n');
  expect(lines.at(-1)).toBe(
    `runwarden: run ${runId} completed, but whether effect ${effect?.id} (Pay invoice a) happened is unknown: it needs you. Say so with: runwarden resolve ${effect?.id} --happened|--not-happened --note 'how you know'`,
  );
  // Completed, and in Needs you: listed as ambiguous.
  const listed = await runJson<{ items: Array<{ run: { id: string }; displayStatus: string }> }>(
    ['ls', '--status', 'parked'],
    { store: dir.store },
  );
  expect(listed.body.ok && listed.body.value.items.map((item) => item.run.id)).toContain(runId);

  // --quiet still says it; --json carries it.
  const quiet = await runCli(
    ['exec', '--project', project, '-q', '--json', '--', 'sh', '-c', `${LOST('b')}; exit 0`],
    { store: dir.store, cwd: project },
  );
  expect(quiet.code, quiet.stderr).toBe(76);
  const value = (JSON.parse(quiet.stdout) as { value: Record<string, unknown> }).value;
  expect(value).toMatchObject({
    outcome: 'completed',
    exitCode: 76,
    unresolvedEffects: [{ key: 'b', summary: 'Pay invoice b' }],
  });
  expect(value.message).toContain('completed, but whether effect');

  // A run whose effects all settled still exits 0, with none listed.
  const clean = await runCli(
    ['exec', '--project', project, '--json', '--', 'sh', '-c', 'runwarden effect --key c -- true'],
    { store: dir.store, cwd: project },
  );
  expect(clean.code, clean.stderr).toBe(0);
  expect(JSON.parse(clean.stdout)).toMatchObject({
    value: { outcome: 'completed', exitCode: 0, unresolvedEffects: [] },
  });
});

it('worker --once --json: a retry that completes with an unknown outcome says the same and exits 76', async () => {
  const script = `if [ -e second ]; then ${LOST('w')}; exit 0; fi; touch second; exit 3`;
  const first = await runCli(['exec', '--project', project, '--', 'sh', '-c', script], {
    store: dir.store,
    cwd: project,
  });
  expect(first.code, first.stderr).toBe(3);
  const runId = /run (run_\S+)/.exec(first.stderr)?.[1] as string;
  const retried = await runCli(['retry', runId], { store: dir.store });
  expect(retried.code, retried.stderr).toBe(0);
  const retryId = /as (run_\S+)/.exec(retried.stdout)?.[1] as string;
  const worker = await runCli(['worker', '--project', project, '--once', '--json'], {
    store: dir.store,
    cwd: project,
  });
  expect(worker.code, worker.stderr).toBe(76);
  expect(existsSync(join(project, 'second'))).toBe(true);
  const line = JSON.parse(worker.stdout.trim().split('\n').at(-1) as string) as {
    value: { runId: string; exitCode: number; unresolvedEffects: Array<{ id: number }> };
  };
  expect(line.value).toMatchObject({ runId: retryId, outcome: 'completed', exitCode: 76 });
  const effectId = line.value.unresolvedEffects[0]?.id;
  expect(worker.stderr).toContain(
    `run ${retryId} completed, but whether effect ${effectId} (Pay invoice w) happened is unknown: it needs you. Say so with: runwarden resolve ${effectId} --happened`,
  );
});
