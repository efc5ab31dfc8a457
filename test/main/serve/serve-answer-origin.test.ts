/**
 * docs/LIVENESS.md#what-cannot-be-told with real processes: a question asked inside `runwarden exec`,
 * answered through `runwarden serve`'s API with the Bearer token. Nothing tells which process a Bearer
 * client is — it may run inside the run — so the answer is accepted and recorded unchecked, as the CLI
 * records an answer whose caller the check could not place: `callerUnchecked` in the result and on the
 * `interaction.answered` event.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Result } from '../../../shared/errors';
import type { AnswerOutcome, RunDetail } from '../../../shared/views';
import { killQuietly, spawnCli, tempDir, waitFor, type CliProcess, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let serve: CliProcess;
let base = '';
let token = '';

beforeAll(async () => {
  dir = tempDir();
  serve = spawnCli(['serve', '--json', '--port', '0'], { store: dir.store, timeoutMs: 180_000 });
  const line = await waitFor('serve to say where it listens', () => {
    const nl = serve.stdout.indexOf('\n');
    return nl >= 0 ? serve.stdout.slice(0, nl) : undefined;
  });
  const info = JSON.parse(line) as { port: number; token: string };
  base = `http://127.0.0.1:${info.port}`;
  token = info.token;
});

afterAll(async () => {
  killQuietly(serve?.child.pid, 'SIGTERM');
  await serve?.done.catch(() => undefined);
  dir?.remove();
});

async function invoke<T>(channel: string, input: unknown): Promise<Result<T>> {
  const res = await fetch(`${base}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Result<T>;
}

it('an answer through the serve API with the Bearer token is accepted and recorded unchecked', async () => {
  const exec = spawnCli(
    ['exec', '--', 'runwarden', 'ask', '--title', 'Ship it?', '--choice', 'yes', '--choice', 'no'],
    { store: dir.store, timeoutMs: 120_000 },
  );
  try {
    const runId = await waitFor('the run id', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    const question = await waitFor('the question', async () => {
      const detail = await invoke<RunDetail>('runs:detail', { runId, eventsLimit: 10 });
      const asked = detail.ok ? detail.value.snapshot.interactions[0] : undefined;
      return asked?.status === 'pending' || asked?.status === 'presenting' ? asked : undefined;
    });
    const answered = await invoke<AnswerOutcome>('interactions:answer', {
      interactionId: question.id,
      interactionRevision: question.revision,
      idempotencyKey: 'bearer-answer-1',
      payload: 'yes',
    });
    expect(answered.ok && answered.value.outcome).toBe('accepted');
    expect(answered.ok && answered.value.callerUnchecked).toContain('Bearer token');
    const end = await exec.done;
    expect(end.code, end.stderr).toBe(0);
    expect(end.stdout.trim()).toBe('yes');
    const detail = await invoke<RunDetail>('runs:detail', { runId, eventsLimit: 100 });
    const event = detail.ok ? detail.value.events.find((e) => e.type === 'interaction.answered') : undefined;
    expect(event?.payload).toMatchObject({ callerUnchecked: expect.stringContaining('Bearer token') });
  } finally {
    killQuietly(exec.child.pid);
  }
}, 180_000);
