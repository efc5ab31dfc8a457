/**
 * A retry runs the same work (docs/CLI.md#what-exec-records): `exec` records argv, folder and
 * environment; `retry` + `worker` run with them, taking secret-named variables from the worker; their
 * values never reach the store file. Real processes: exec, the bash example, the worker.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../main/store';
import { runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';

let dir: TempDir;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => dir.remove());

const SECRET = 'hunter2-do-not-store-7f3a';

async function detail(runId: string): Promise<RunDetail> {
  const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
  if (!body.ok) throw new Error(body.error.message);
  return body.value;
}

/** Answers the run's pending question with `choice`, once it is asked. */
async function answer(runId: string, choice: string): Promise<void> {
  const question = await waitFor('the question', async () =>
    (await detail(runId)).snapshot.interactions.find((i) => i.status === 'pending'),
  );
  expect((await runCli(['answer', question.id, choice], { store: dir.store })).code).toBe(0);
}

describe('retry runs with the environment exec recorded', () => {
  it('VERSION=3.1.0 exec, then retry and worker: the retry publishes 3.1.0; a secret value is never stored', async () => {
    const project = join(dir.path, 'proj');
    const out = join(project, 'out');
    mkdirSync(project);
    const argv = ['bash', join(REPO_ROOT, 'examples/bash/release.sh')];
    const exec = spawnCli(['exec', '--project', project, '--', ...argv], {
      store: dir.store,
      cwd: project,
      env: { RELEASE_DIR: out, VERSION: '3.1.0', DEPLOY_TOKEN: SECRET },
      timeoutMs: 60_000,
    });
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    // Not published the first time: the retry is what publishes.
    await answer(runId, 'skip');
    expect((await exec.done).code).toBe(0);
    const first = await detail(runId);
    expect(first.snapshot.run.command?.env?.VERSION).toBe('3.1.0');
    expect(first.snapshot.run.command?.env?.DEPLOY_TOKEN).toBeNull();

    const preview = await runCli(['retry', runId, '--dry-run'], {
      store: dir.store,
      env: { VERSION: undefined, DEPLOY_TOKEN: undefined },
    });
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain(`bash ${join(REPO_ROOT, 'examples/bash/release.sh')}`);
    expect(preview.stdout).toContain(`in ${project}`);
    expect(preview.stdout).toMatch(/VERSION=3\.1\.0 \(here: not set\)/);
    expect(preview.stdout).toMatch(/DEPLOY_TOKEN: secret-named, never stored; taken from the worker/);

    const retried = await runJson<{ id: string }>(['retry', runId], { store: dir.store });
    expect(retried.body.ok).toBe(true);
    const retryId = retried.body.ok ? retried.body.value.id : '';
    // The worker runs elsewhere, with another VERSION and its own token.
    const worker = spawnCli(['worker', '--once', '--project', project], {
      store: dir.store,
      cwd: dir.path,
      env: { VERSION: '1.0.0', RELEASE_DIR: join(dir.path, 'elsewhere'), DEPLOY_TOKEN: 'from-the-worker' },
      timeoutMs: 60_000,
    });
    await answer(retryId, 'publish');
    expect((await worker.done).code).toBe(0);
    expect(worker.stderr).toContain(
      'secret-named variables taken from this worker’s environment: DEPLOY_TOKEN',
    );
    expect(readFileSync(join(out, 'published.txt'), 'utf8')).toBe('3.1.0\n');
    expect((await detail(retryId)).snapshot.effects.map((e) => e.idempotencyKey)).toEqual(['publish-3.1.0']);

    // Neither the secret's value nor the worker's shows up anywhere in the store's files; its name does.
    const files = ['', '-wal'].flatMap((suffix) => {
      try {
        return [readFileSync(`${dir.store}${suffix}`)];
      } catch {
        return [];
      }
    });
    const bytes = Buffer.concat(files);
    expect(bytes.includes(SECRET)).toBe(false);
    expect(bytes.includes('from-the-worker')).toBe(false);
    expect(bytes.includes('DEPLOY_TOKEN')).toBe(true);
  });
});
