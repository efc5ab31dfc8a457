import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail, RunListPage } from '../../../main/store';
import { runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
beforeAll(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  mkdirSync(project);
});
afterAll(() => dir.remove());

async function startedRun(exec: ReturnType<typeof spawnCli>): Promise<string> {
  const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
  await waitFor('the run to be running', async () => {
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    return body.ok && body.value.display.status === 'running';
  });
  return runId;
}

describe('controlling a live exec', () => {
  it('forwards SIGTERM to the command and ends the run cancelled', async () => {
    const exec = spawnCli(['exec', '--project', project, '--', 'sleep', '30'], { store: dir.store });
    const runId = await startedRun(exec);
    exec.child.kill('SIGTERM');
    const result = await exec.done;
    expect(result.code).toBe(143);
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    expect(body.ok && body.value.snapshot.run).toMatchObject({ status: 'cancelled' });
  });

  it('a pause request stops the command and parks the run paused; resume queues it again', async () => {
    const exec = spawnCli(['exec', '--project', project, '--lease-ms', '600', '--', 'sleep', '30'], {
      store: dir.store,
    });
    const runId = await startedRun(exec);
    const refused = await runCli(['pause', runId], { store: dir.store });
    expect(refused.code).toBe(3);
    // Message, hint and recovery name the cooperative form of pause, not cancel.
    expect(refused.stderr).toContain('Ask it to pause instead ("pause --request")');
    expect(refused.stderr).toContain(`runwarden pause --request ${runId}`);
    expect(refused.stderr).not.toContain('cancel');
    const refusedJson = await runJson(['pause', runId], { store: dir.store });
    expect(refusedJson.body).toMatchObject({
      ok: false,
      error: { code: 'LIVE_OWNER', recovery: { kind: 'requestPause', runId } },
    });
    expect((await runCli(['pause', '--request', runId], { store: dir.store })).code).toBe(0);
    const result = await exec.done;
    expect(result.code).toBe(130);
    const paused = await runJson<RunListPage>(['ls', '--status', 'paused'], { store: dir.store });
    expect(paused.body.ok && paused.body.value.items.map((i) => i.run.id)).toEqual([runId]);
    const stale = await runCli(['resume', runId, '--revision', '1'], { store: dir.store });
    expect(stale.code).toBe(5);
    const resumed = await runJson<{ status: string }>(['resume', runId], { store: dir.store });
    expect(resumed).toMatchObject({
      code: 0,
      body: { ok: true, value: { status: 'queued', paused: false } },
    });
  });

  it('answering twice with the same key is adopted, not doubled', async () => {
    const exec = spawnCli(
      ['exec', '--project', project, '--', 'sh', '-c', 'runwarden ask --title Go --choice a --choice b'],
      { store: dir.store },
    );
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    const question = await waitFor('the question', async () => {
      const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
      return body.ok ? body.value.snapshot.interactions.find((i) => i.status === 'pending') : undefined;
    });
    const first = await runCli(['answer', question.id, 'a', '--key', 'k-1', '--json-result'], {
      store: dir.store,
    });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ ok: true, value: { outcome: 'accepted' } });
    const again = await runCli(
      ['answer', question.id, 'a', '--key', 'k-1', '--revision', String(question.revision)],
      { store: dir.store },
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Already answered');
    expect((await exec.done).stdout).toBe('a\n');
  });
});
