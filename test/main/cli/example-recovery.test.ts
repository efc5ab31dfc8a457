/**
 * The runner contract end to end, from bash and from Python alone: a workflow records steps and a
 * publish effect, its runner is SIGKILLed inside the effect, the stale cancel makes the effect ambiguous,
 * `runwarden resolve EFFECT --not-happened --note ...` (the very command `show` printed) resolves it, and
 * the run leaves Needs you. Real processes throughout: exec, the example, its effect command.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail, RunListPage } from '../../../main/store';
import type { BulkResult } from '../../../shared/views';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';

let dir: TempDir;
const groups: number[] = [];
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => {
  for (const pid of groups) killQuietly(pid, 'SIGKILL', true);
  dir.remove();
});

const EXAMPLES = [
  { name: 'bash', argv: ['bash', join(REPO_ROOT, 'examples/bash/release.sh')] },
  { name: 'python', argv: ['python3', join(REPO_ROOT, 'examples/python/release.py')] },
];

describe.each(EXAMPLES)('the $name example, its runner killed inside the effect', ({ name, argv }) => {
  it('goes stale, the stale cancel makes the effect ambiguous, resolve --not-happened takes it out of Needs you', async () => {
    const project = join(dir.path, `proj-${name}`);
    const out = join(project, 'out');
    mkdirSync(project);
    const store = dir.store;
    const exec = spawnCli(
      ['exec', '--project', project, '--title', `Release from ${name}`, '--lease-ms', '1500', '--', ...argv],
      {
        store,
        cwd: project,
        env: { RELEASE_DIR: out, VERSION: '2.0.0', PUBLISH_SECONDS: '120' },
        timeoutMs: 60_000,
      },
    );
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    const detail = async (): Promise<RunDetail> => {
      const { body } = await runJson<RunDetail>(['show', runId], { store });
      if (!body.ok) throw new Error(body.error.message);
      return body.value;
    };

    // The question, answered as a person would (the exact command show prints).
    const question = await waitFor('the question', async () => (await detail()).snapshot.interactions[0]);
    expect(question.title).toBe('Publish 2.0.0?');
    const shown = await runCli(['show', runId], { store });
    expect(shown.stdout).toContain(`runwarden answer ${question.id} publish`);
    expect((await runCli(['answer', question.id, 'publish'], { store })).code).toBe(0);

    // Inside the effect: steps recorded, the effect applying, its command sleeping.
    const applying = await waitFor('the effect to be applying', async () => {
      const value = await detail();
      return value.snapshot.effects.find((e) => e.status === 'applying') ? value : undefined;
    });
    expect(applying.attempts.map((a) => [a.step, a.status])).toEqual(
      name === 'bash'
        ? [
            ['build', 'completed'],
            ['test', 'completed'],
          ]
        : [['build', 'completed']],
    );
    const effect = applying.snapshot.effects[0];
    expect(effect).toMatchObject({ idempotencyKey: 'publish-2.0.0', type: 'publish', status: 'applying' });

    // SIGKILL the runner and everything it started (exec runs the command in its own process group).
    const commandPid = await waitFor('the command process', () => {
      const pid = exec.child.pid;
      return pid === undefined ? undefined : childOf(pid);
    });
    groups.push(commandPid);
    exec.child.kill('SIGKILL');
    killQuietly(commandPid, 'SIGKILL', true);
    await exec.done;

    // Stale once the lease lapses; a dry-run of the bulk cancel says what would happen, then it happens.
    await waitFor(
      'the run to show stale',
      async () => {
        const { body } = await runJson<RunListPage>(['ls', '--status', 'stale'], { store });
        return body.ok && body.value.items.some((i) => i.run.id === runId);
      },
      20_000,
      200,
    );
    const dry = await runJson<BulkResult>(['cancel', '--stale', '--project', project, '--dry-run'], {
      store,
    });
    expect(dry.code).toBe(0);
    expect(dry.body).toMatchObject({
      ok: true,
      value: { dryRun: true, succeeded: 1, items: [{ runId, ok: true }] },
    });
    expect(dry.body.ok && dry.body.value.items[0]?.message).toMatch(
      /1 applying effect would become ambiguous/,
    );
    expect((await detail()).snapshot.run.status).not.toBe('cancelled');
    const cancel = await runCli(['cancel', '--stale', '--project', project], { store });
    expect(cancel.code).toBe(0);
    // The bulk table: RUN, TITLE, RESULT, WHAT (docs/CLI.md).
    expect(cancel.stdout).toMatch(new RegExp(`${runId}\\s+Release from \\w+\\s+done\\s+Cancelled`));

    const cancelled = await detail();
    expect(cancelled.snapshot.run.status).toBe('cancelled');
    expect(cancelled.snapshot.effects[0]?.status).toBe('ambiguous');
    // Cancelled, but what may have happened keeps it in front of a person.
    expect(cancelled.display.needsYou).toBe(true);
    const before = await runJson<RunListPage>(['ls', '--needs-you'], { store });
    expect(before.body.ok && before.body.value.items.map((i) => i.run.id)).toContain(runId);
    const hints = await runCli(['show', runId], { store });
    const resolveLine = hints.stdout
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith(`runwarden resolve ${effect?.id} --not-happened`));
    expect(resolveLine).toBeDefined();

    // A person checked: nothing was published. The printed command, with the note filled in.
    const resolved = await runCli(
      ['resolve', String(effect?.id), '--not-happened', '--note', 'published.txt was never written'],
      { store },
    );
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain('it did not happen');
    const after = await detail();
    expect(after.snapshot.effects[0]).toMatchObject({ status: 'rejected', resolution: 'not_applied' });
    expect(after.display.needsYou).toBe(false);
    const needsYou = await runJson<RunListPage>(['ls', '--needs-you'], { store });
    expect(needsYou.body.ok && needsYou.body.value.items.map((i) => i.run.id)).not.toContain(runId);
    expect(existsSync(join(out, 'published.txt'))).toBe(false);
    // Resolving twice is refused: it is no longer ambiguous.
    const again = await runCli(['resolve', String(effect?.id), '--happened', '--note', 'x'], { store });
    expect(again.code).toBe(5);
  });
});

/** The one direct child of `pid` (exec's command), from /proc. */
function childOf(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
    const first = text.trim().split(/\s+/)[0];
    return first === undefined || first === '' ? undefined : Number(first);
  } catch {
    return undefined;
  }
}
