import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type RunDetail } from '../../../main/store';
import { runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
beforeAll(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  mkdirSync(project);
});
afterAll(() => dir.remove());

function queueCommand(argv: string[]): string {
  const store = openStore(dir.store);
  try {
    return store.reserveRun(
      { projectPath: project, workflow: 'job', title: argv.join(' '), command: { argv, cwd: project } },
      { type: 'system', id: 'test', surface: 'cli' },
    ).id;
  } finally {
    store.close();
  }
}

describe('runwarden worker', () => {
  it('--once exits 0 when nothing is queued', async () => {
    const result = await runCli(['worker', '--once'], { store: dir.store });
    expect(result.code).toBe(0);
  });

  it('runs queued commands in their folder and records how they ended', async () => {
    const ok = queueCommand(['sh', '-c', 'test "$PWD" = "$(pwd -P)" && echo "ran in $PWD"']);
    const result = await runCli(['worker', '--once'], { store: dir.store });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`ran in ${project}\n`);
    const { body } = await runJson<RunDetail>(['show', ok], { store: dir.store });
    expect(body.ok && body.value.snapshot.run.status).toBe('completed');
  });

  it('Ctrl-C stops the command and parks its run (runnerExited), then the worker exits 0', async () => {
    const runId = queueCommand(['sleep', '30']);
    const worker = spawnCli(['worker', '--poll-ms', '100', '--project', project], { store: dir.store });
    await waitFor('the run to be running', async () => {
      const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
      return body.ok && body.value.display.status === 'running';
    });
    worker.child.kill('SIGINT');
    const result = await worker.done;
    expect(result.code).toBe(0);
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    expect(body.ok && body.value.display).toMatchObject({ status: 'parked', parkReason: 'runnerExited' });
  });
});
