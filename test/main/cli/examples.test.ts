/**
 * Each example in examples/ runs to the end under `runwarden exec` as a real process: it asks, is answered,
 * records its steps and publishes exactly once; a retry of the finished run (through `worker`) is asked
 * again but does not publish again, because the effect's key was applied in the run it retries.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../main/store';
import {
  runCli,
  runJson,
  spawnCli,
  tempDir,
  waitFor,
  type CliProcess,
  type TempDir,
} from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';

let dir: TempDir;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => dir.remove());

const EXAMPLES = [
  { name: 'bash', argv: ['bash', join(REPO_ROOT, 'examples/bash/release.sh')], steps: ['build', 'test'] },
  {
    name: 'make',
    argv: ['make', '--no-print-directory', '-f', join(REPO_ROOT, 'examples/make/Makefile'), 'release'],
    steps: ['build', 'test'],
  },
  { name: 'python', argv: ['python3', join(REPO_ROOT, 'examples/python/release.py')], steps: ['build'] },
];

async function answerWhenAsked(runId: string, store: string, choice: string): Promise<void> {
  const question = await waitFor('the question', async () => {
    const { body } = await runJson<RunDetail>(['show', runId], { store });
    return body.ok ? body.value.snapshot.interactions.find((i) => i.status === 'pending') : undefined;
  });
  const answered = await runCli(['answer', question.id, choice], { store });
  expect(answered.code).toBe(0);
}

describe.each(EXAMPLES)('the $name example', ({ name, argv, steps }) => {
  it('asks, records its steps and publishes once; its retry asks again and does not publish again', async () => {
    const project = join(dir.path, `proj-${name}`);
    const out = join(project, 'out');
    mkdirSync(project);
    const store = dir.store;
    const env = { RELEASE_DIR: out, VERSION: '3.1.0' };
    const exec: CliProcess = spawnCli(
      ['exec', '--project', project, '--title', `Release (${name})`, '--json', '--', ...argv],
      {
        store,
        cwd: project,
        env,
      },
    );
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    await answerWhenAsked(runId, store, 'publish');
    const result = await exec.done;
    expect(result.code, result.stderr).toBe(0);
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '');
    expect(last).toEqual({
      ok: true,
      value: {
        runId,
        outcome: 'completed',
        exitCode: 0,
        message: `run ${runId} completed`,
        unresolvedEffects: [],
      },
    });
    expect(readFileSync(join(out, 'published.txt'), 'utf8')).toBe('3.1.0\n');

    const { body } = await runJson<RunDetail>(['show', runId], { store });
    if (!body.ok) throw new Error(body.error.message);
    expect(body.value.snapshot.run.status).toBe('completed');
    expect(body.value.attempts.map((a) => [a.step, a.status])).toEqual(steps.map((s) => [s, 'completed']));
    expect(body.value.snapshot.effects).toMatchObject([
      { idempotencyKey: 'publish-3.1.0', type: 'publish', status: 'applied', attemptCount: 1 },
    ]);

    // The retry runs the same command under a worker; the effect is skipped, named in its output.
    const retry = await runJson<{ id: string }>(['retry', runId], { store });
    expect(retry.code).toBe(0);
    const retryId = retry.body.ok ? retry.body.value.id : '';
    const worker = spawnCli(['worker', '--once', '--project', project, '--json'], {
      store,
      cwd: project,
      env,
    });
    await answerWhenAsked(retryId, store, 'publish');
    const done = await worker.done;
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout.trim().split('\n').at(-1) ?? '')).toMatchObject({
      ok: true,
      value: { runId: retryId, outcome: 'completed', exitCode: 0 },
    });
    expect(done.stderr).toContain(
      `effect publish-3.1.0 was already applied in run ${runId}; not running it again`,
    );
    expect(readFileSync(join(out, 'published.txt'), 'utf8')).toBe('3.1.0\n');
    // The skipped effect leaves its trace on the retry: an applied effect carried from the first run.
    const retried = await runJson<RunDetail>(['show', retryId, '--events', '200'], { store });
    expect(retried.body.ok).toBe(true);
    if (!retried.body.ok) return;
    expect(retried.body.value.snapshot.effects).toMatchObject([
      { idempotencyKey: 'publish-3.1.0', status: 'applied' },
    ]);
    expect(retried.body.value.events.map((e) => e.type)).toContain('effect.carried');
  });
});
