import { mkdirSync, writeFileSync } from 'node:fs';
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

async function runIdFromStderr(getStderr: () => string): Promise<string> {
  return waitFor('the run id on stderr', () => /run (run_[A-Za-z0-9_]+)/.exec(getStderr())?.[1]);
}

async function openQuestion(store: string, runId: string) {
  return waitFor('an open question', async () => {
    const { body } = await runJson<RunDetail>(['show', runId], { store });
    if (!body.ok) return undefined;
    return body.value.snapshot.interactions.find((i) => i.status === 'pending' || i.status === 'presenting');
  });
}

describe('runwarden exec + ask + answer', () => {
  it('blocks `ask` inside exec until another process answers, then prints the choice', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--title',
        'Deploy',
        '--',
        'sh',
        '-c',
        'runwarden ask --title Deploy? --choice yes --choice no',
      ],
      { store: dir.store, timeoutMs: 30_000 },
    );
    const runId = await runIdFromStderr(() => exec.stderr);
    const question = await openQuestion(dir.store, runId);
    expect(question).toMatchObject({ title: 'Deploy?', kind: 'decision', choices: ['yes', 'no'] });

    const needsYou = await runJson<RunListPage>(['ls', '--needs-you'], { store: dir.store });
    expect(needsYou.body.ok && needsYou.body.value.items.map((i) => [i.run.id, i.display.status])).toEqual([
      [runId, 'needs-answer'],
    ]);
    // Still blocked: nothing printed yet.
    expect(exec.child.exitCode).toBeNull();
    expect(exec.stdout).toBe('');

    const wrong = await runCli(['answer', question.id, 'maybe'], { store: dir.store });
    expect(wrong.code).toBe(2);
    const answer = await runCli(['answer', question.id, 'yes'], { store: dir.store });
    expect(answer.code).toBe(0);

    const result = await exec.done;
    expect(result.stdout).toBe('yes\n');
    expect(result.code).toBe(0);
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    expect(body.ok && body.value.snapshot.run.status).toBe('completed');
    expect(body.ok && body.value.snapshot.interactions[0]).toMatchObject({
      status: 'settled',
      response: 'yes',
      provenance: 'human',
    });
  });

  it('asks a multi-select with own words; answer takes one VALUE per pick and refuses a wrong one', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        "runwarden ask --title Checks --field 'checks:choices=Tests|Lint|Types|*' --field 'runner:choice=Vitest|Jest'",
      ],
      { store: dir.store, timeoutMs: 30_000 },
    );
    const runId = await runIdFromStderr(() => exec.stderr);
    const question = await openQuestion(dir.store, runId);
    expect(question.fields).toEqual([
      {
        name: 'checks',
        type: 'choice',
        required: true,
        multi: true,
        allowOther: true,
        options: [{ label: 'Tests' }, { label: 'Lint' }, { label: 'Types' }],
      },
      { name: 'runner', type: 'choice', required: true, options: [{ label: 'Vitest' }, { label: 'Jest' }] },
    ]);
    const show = await runCli(['show', runId], { store: dir.store });
    expect(show.stdout).toContain(`${question.id} checks: any of: Tests | Lint | Types | or your own words`);
    expect(show.stdout).toContain(`${question.id} runner: one of: Vitest | Jest`);
    // Bare VALUEs need a single field; a list in field order, one answer each; each mismatch is exit 2.
    for (const [args, message] of [
      [['Tests', 'Lint'], /checks:choices, runner:choice: give them with --json/],
      [['--json', '[["Tests"]]'], /gives 1 answers; this question has 2 fields/],
      [['--json', '[["Tests", "mine", "also mine"], "Vitest"]'], /one answer in your own words at most/],
      [['--json', '[["Tests"], "Bun"]'], /Field runner must be one of: Vitest, Jest\./],
    ] as const) {
      const refused = await runCli(['answer', question.id, ...args], { store: dir.store });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
    const answer = await runCli(
      ['answer', question.id, '--json', '[["Types", "Tests", "fast ones"], "Jest"]'],
      {
        store: dir.store,
      },
    );
    expect(answer.code, answer.stderr).toBe(0);
    const result = await exec.done;
    expect(JSON.parse(result.stdout)).toEqual({ checks: ['Types', 'Tests', 'fast ones'], runner: 'Jest' });
  });

  it('describes options with --option NAME:LABEL=DESCRIPTION; a bad one is refused and asks nothing', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        // A refused ask first, then one question with two described options.
        "runwarden ask --title Runner --field 'runner:choice=Vitest|Jest' --option 'runner:Bun=x'; " +
          'echo "bad=$?" >&2; ' +
          "runwarden ask --title Runner --field 'runner:choice=Vitest|a=b|*' --field notes " +
          "--option 'runner:Vitest=fast, ESM first' --option 'runner:a=b=c: label a=b'",
      ],
      { store: dir.store, timeoutMs: 30_000 },
    );
    const runId = await runIdFromStderr(() => exec.stderr);
    const question = await openQuestion(dir.store, runId);
    expect(exec.stderr).toContain('bad=2');
    expect(exec.stderr).toContain(
      '--option runner: no option of runner is named before "=" (its options: Vitest, Jest)',
    );
    expect(question.fields?.[0]).toEqual({
      name: 'runner',
      type: 'choice',
      required: true,
      allowOther: true,
      options: [
        { label: 'Vitest', description: 'fast, ESM first' },
        // The longest label that fits: "a=b", not "a".
        { label: 'a=b', description: 'c: label a=b' },
      ],
    });
    // The refused ask wrote nothing: this is the run's only question.
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    expect(body.ok && body.value.snapshot.interactions.length).toBe(1);
    const show = await runCli(['show', runId], { store: dir.store });
    expect(show.stdout).toContain(
      `${question.id} runner: one of: Vitest (fast, ESM first) | a=b (c: label a=b) | or your own words`,
    );
    const answer = await runCli(['answer', question.id, '--json', '{"runner":"a=b","notes":"x"}'], {
      store: dir.store,
    });
    expect(answer.code, answer.stderr).toBe(0);
    expect((await exec.done).code).toBe(0);
  });

  it.each([
    [
      ['--field', 'r:choice=A|B', '--option', 'q:A=x'],
      /--option must be NAME:LABEL=DESCRIPTION for a choice field \(r\)/,
    ],
    [['--field', 'n:number', '--option', 'n:A=x'], /--option n: n is not a choice field/],
    [['--field', 'r:choice=A|B', '--option', 'r:A=x', '--option', 'r:A=y'], /A is described twice/],
    [['--field', 'r:choice=A|B', '--option', 'r:A='], /--option r:A must not be empty/],
    [['--field', 'r:choice=A|B', '--option', 'r:A=' + 'd'.repeat(2001)], /at most 2000 are allowed/],
    [['--choice', 'yes', '--option', 'yes=x'], /given with --field NAME:choice=A\|B/],
  ])('refuses a bad --option with exit 2 (%#)', async (args, message) => {
    const refused = await runCli(['ask', '--title', 'T', ...args], { store: dir.store });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(message);
  });

  it('a single multi-select field takes one VALUE per pick', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        "runwarden ask --title Checks --field 'checks:choices=Tests|Lint'",
      ],
      { store: dir.store, timeoutMs: 30_000 },
    );
    const runId = await runIdFromStderr(() => exec.stderr);
    const question = await openQuestion(dir.store, runId);
    const refused = await runCli(['answer', question.id, 'Tests', 'Docs'], { store: dir.store });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/Field checks must be picked from: Tests, Lint\./);
    const answer = await runCli(['answer', question.id, 'Lint', 'Tests'], { store: dir.store });
    expect(answer.code, answer.stderr).toBe(0);
    expect(JSON.parse((await exec.done).stdout)).toEqual({ checks: ['Lint', 'Tests'] });
  });

  it('prints the fields of an input question as JSON', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        'runwarden ask --title Config --field replicas:number --field region',
      ],
      { store: dir.store },
    );
    const runId = await runIdFromStderr(() => exec.stderr);
    const question = await openQuestion(dir.store, runId);
    const answer = await runCli(['answer', question.id, '--json', '{"replicas":3,"region":"eu-west-1"}'], {
      store: dir.store,
    });
    expect(answer.code).toBe(0);
    const result = await exec.done;
    expect(JSON.parse(result.stdout)).toEqual({ replicas: 3, region: 'eu-west-1' });
  });

  it('exits 124 when the question expires without a default, and the default when it has one', async () => {
    const expired = await runCli(
      ['exec', '--project', project, '--', 'sh', '-c', 'runwarden ask --title Hurry --choice a --timeout 1s'],
      {
        store: dir.store,
      },
    );
    expect(expired.code).toBe(124);
    expect(expired.stderr).toContain('expired');

    const withDefault = await runCli(
      [
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        'runwarden ask --title Hurry --choice a --choice b --default b --timeout 1s',
      ],
      { store: dir.store },
    );
    expect(withDefault.code).toBe(0);
    expect(withDefault.stdout).toBe('b\n');
  });

  it('a cooperative cancel stops the command, ends the run cancelled, and ask exits 130 inside', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--lease-ms',
        '900',
        '--',
        'sh',
        '-c',
        'runwarden ask --title Wait --choice ok; echo ask-exit=$?',
      ],
      { store: dir.store },
    );
    const runId = await runIdFromStderr(() => exec.stderr);
    await openQuestion(dir.store, runId);
    const refused = await runJson(['cancel', runId], { store: dir.store });
    expect(refused.code).toBe(3);
    expect(refused.body).toMatchObject({
      ok: false,
      error: { code: 'LIVE_OWNER', recovery: { kind: 'requestCancel', runId } },
    });
    const requested = await runCli(['cancel', '--request', runId], { store: dir.store });
    expect(requested.code).toBe(0);
    const result = await exec.done;
    expect(result.code).toBe(130);
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    expect(body.ok && body.value.snapshot.run.status).toBe('cancelled');
    expect(body.ok && body.value.snapshot.interactions.every((i) => i.status === 'cancelled')).toBe(true);
  });

  it('exits with the command’s code and records the run failed or completed', async () => {
    const failed = await runCli(
      ['exec', '--project', project, '--workflow', 'build', '--', 'sh', '-c', 'exit 7'],
      { store: dir.store },
    );
    expect(failed.code).toBe(7);
    const ok = await runCli(['exec', '--project', project, '--', 'true'], { store: dir.store });
    expect(ok.code).toBe(0);
    const missing = await runCli(['exec', '--project', project, '--', 'no-such-command-xyz'], {
      store: dir.store,
    });
    expect(missing.code).toBe(127);
    const { body } = await runJson<RunListPage>(['ls', '--project', project, '--limit', '3'], {
      store: dir.store,
    });
    expect(body.ok && body.value.items.map((i) => i.display.status)).toEqual([
      'failed',
      'completed',
      'failed',
    ]);
    expect(body.ok && body.value.items[2]?.run.error).toContain('exited with code 7');
  });

  it('passes the run id and a claim to the command, and puts runwarden on its PATH', async () => {
    const result = await runCli(
      [
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        'echo "$RUNWARDEN_RUN_ID $RUNWARDEN_LEASE_GENERATION ${#RUNWARDEN_RUN_TOKEN}"; command -v runwarden',
      ],
      { store: dir.store },
    );
    expect(result.code).toBe(0);
    const [ids, where] = result.stdout.trim().split('\n');
    expect(ids).toMatch(/^run_\S+ \d+ \d{2,}$/);
    expect(where).toMatch(/bin\/runwarden$/);
  });

  it('a worker runs the retry of a failed run', async () => {
    const marker = join(project, 'marker');
    const failed = await runCli(
      ['exec', '--project', project, '--', 'sh', '-c', `test -f ${marker} || exit 3`],
      { store: dir.store },
    );
    expect(failed.code).toBe(3);
    const runId = /run (run_\S+)/.exec(failed.stderr)?.[1] ?? '';
    writeFileSync(marker, '');
    const retry = await runJson<{ id: string }>(['retry', runId], { store: dir.store });
    expect(retry.code).toBe(0);
    const retryId = retry.body.ok ? retry.body.value.id : '';
    const worker = await runCli(['worker', '--once', '--project', project], { store: dir.store });
    expect(worker.code).toBe(0);
    expect(worker.stderr).toContain(retryId);
    const { body } = await runJson<RunDetail>(['show', retryId], { store: dir.store });
    expect(body.ok && body.value.snapshot.run).toMatchObject({
      status: 'completed',
      parentRunId: runId,
      lineage: 'retry',
    });
  });
});
