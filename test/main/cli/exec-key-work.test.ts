/**
 * A key names one piece of work (docs/CLI.md#the-same-line-again): with a key's retry queued, `exec --key`
 * from another project is another key there; the same project with another command, or the same command
 * from another folder, is refused (exit 5) with nothing run and nothing changed; the same line from the
 * same folder runs the retry. Real CLI processes on a real store.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunDetail } from '../../../main/store';
import { runCli, runJson, tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
let other: string;
beforeAll(() => {
  dir = tempDir();
  project = join(dir.path, 'shop');
  other = join(dir.path, 'blog');
  mkdirSync(join(project, 'sub'), { recursive: true });
  mkdirSync(other);
});
afterAll(() => dir.remove());

/** The retried script: pays once, then fails until fixed exists. */
const SCRIPT =
  'runwarden effect --key pay -- sh -c "echo paid >> ledger"; test -e fixed || exit 4; touch made';

function exec(projectPath: string, cwd: string, script: string) {
  return runCli(['exec', '--project', projectPath, '--key', 'K', '--', 'sh', '-c', script], {
    store: dir.store,
    cwd,
  });
}

async function detail(runId: string): Promise<RunDetail> {
  const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
  if (!body.ok) throw new Error(body.error.message);
  return body.value;
}

it('a key reaching its queued retry with another project, command or folder', async () => {
  const first = await exec(project, project, SCRIPT);
  expect(first.code, first.stderr).toBe(4);
  const runId = /run (run_\S+)/.exec(first.stderr)?.[1] as string;
  const retried = await runCli(['retry', runId], { store: dir.store });
  expect(retried.code, retried.stderr).toBe(0);
  const retryId = /as (run_\S+)/.exec(retried.stdout)?.[1] as string;
  const queued = (await detail(retryId)).snapshot.run;
  expect(queued.status).toBe('queued');

  // Another project: K is another key there. Its own run, recording what ran where it ran.
  const elsewhere = await exec(
    other,
    other,
    'echo different >> different; runwarden effect --key other -- sh -c "echo other >> ledger"',
  );
  expect(elsewhere.code, elsewhere.stderr).toBe(0);
  const elsewhereId = /run (run_\S+)/.exec(elsewhere.stderr)?.[1] as string;
  expect(elsewhereId).not.toBe(retryId);
  const elsewhereRun = (await detail(elsewhereId)).snapshot.run;
  expect(elsewhereRun).toMatchObject({ projectPath: other, requestKey: 'K', status: 'completed' });
  expect(elsewhereRun.command?.argv[2]).toContain('echo different');
  expect(elsewhereRun.command?.cwd).toBe(other);
  expect(readFileSync(join(other, 'ledger'), 'utf8')).toBe('other\n');

  // The same project, another command: refused before anything runs, the run and both commands named.
  const otherArgv = await exec(project, project, 'echo different >> different');
  expect(otherArgv.code, otherArgv.stderr).toBe(5);
  expect(otherArgv.stderr).toContain(
    `The key K names run ${retryId} (queued) in ${project}, another piece of work: its command is ${JSON.stringify(['sh', '-c', SCRIPT])}, this one ["sh","-c","echo different >> different"]. Nothing was run.`,
  );
  expect(existsSync(join(project, 'different'))).toBe(false);

  // The same command from another folder of the project: refused, the folders named.
  const otherFolder = await exec(project, join(project, 'sub'), SCRIPT);
  expect(otherFolder.code, otherFolder.stderr).toBe(5);
  expect(otherFolder.stderr).toContain(
    `The key K names run ${retryId} (queued) in ${project}, another piece of work: it runs in the folder ${project}, this one in ${join(project, 'sub')}. Nothing was run.`,
  );
  expect(existsSync(join(project, 'sub', 'ledger'))).toBe(false);
  expect(existsSync(join(project, 'sub', 'made'))).toBe(false);

  // Nothing changed: the retry is still queued at the same revision, with the recorded command.
  const still = (await detail(retryId)).snapshot.run;
  expect(still).toMatchObject({ status: 'queued', revision: queued.revision, command: queued.command });

  // The same line from the same folder runs the retry: the payment is not made again.
  writeFileSync(join(project, 'fixed'), '');
  const same = await exec(project, project, SCRIPT);
  expect(same.code, same.stderr).toBe(0);
  expect(same.stderr).toContain(`runwarden: run ${retryId}`);
  expect(readFileSync(join(project, 'ledger'), 'utf8')).toBe('paid\n');
  expect(existsSync(join(project, 'made'))).toBe(true);
  expect((await detail(retryId)).snapshot.run.status).toBe('completed');
});
