/**
 * The runner-side commands from a shell, inside real `runwarden exec` processes: step (wrapping and
 * start/end), effect (applied, rejected, outcome unknown → parked, begin/end), progress, park
 * --source-changed; and outside a run, exit 2 with a sentence and no store created.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail, RunListPage } from '../../../main/store';
import { runCli, runJson, tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
beforeAll(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  mkdirSync(project);
});
afterAll(() => dir.remove());

function exec(script: string, extra: string[] = []) {
  return runCli(['exec', '--project', project, ...extra, '--', 'sh', '-c', script], {
    store: dir.store,
    cwd: project,
  });
}

async function detailOf(stderr: string): Promise<RunDetail> {
  const runId = /run (run_\S+)/.exec(stderr)?.[1];
  if (runId === undefined) throw new Error(`no run id in: ${stderr}`);
  const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
  if (!body.ok) throw new Error(body.error.message);
  return body.value;
}

describe('outside a run', () => {
  it.each([
    ['step', 'build', '--', 'true'],
    ['step', 'start', 'build'],
    ['step', 'end'],
    ['effect', '--key', 'k', '--', 'true'],
    ['effect', 'end', '1', '--applied'],
    ['progress', 'half way'],
    ['park', '--source-changed', 'edited'],
    ['ask', '--title', 'Go?', '--choice', 'yes'],
  ])('runwarden %s exits 2 with a sentence and writes nothing', async (...args) => {
    const missing = join(dir.path, 'never-created.sqlite');
    const result = await runCli(args, { store: missing });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^runwarden: runwarden ${args[0]} must run inside a run: start your script with "runwarden exec -- \\.\\.\\."`,
      ),
    );
    expect(existsSync(missing)).toBe(false);
  });
});

describe('step', () => {
  it('wraps a command: completed on 0, failed with the exit code otherwise, and exits with its code', async () => {
    const result = await exec(
      'runwarden step compile -- true && runwarden step lint -- sh -c "exit 3"; echo "lint=$?"',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('lint=3');
    const detail = await detailOf(result.stderr);
    expect(detail.attempts.map((a) => [a.step, a.status, a.error])).toEqual([
      ['compile', 'completed', null],
      ['lint', 'failed', 'lint: exited with code 3'],
    ]);
  });

  it("NAME --json -- CMD ends with one JSON line: the finished step and CMD's code (docs/CLI.md#json-output)", async () => {
    const result = await exec(
      'runwarden step check --json -- sh -c "echo from-cmd; exit 3"; echo "check=$?"; runwarden step ok --json -- true',
    );
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('from-cmd');
    const failed = JSON.parse(lines[1] ?? '') as {
      ok: boolean;
      value: { attempt: { step: string; status: string }; exitCode: number };
    };
    expect(failed).toMatchObject({
      ok: true,
      value: { attempt: { step: 'check', status: 'failed' }, exitCode: 3 },
    });
    expect(lines[2]).toBe('check=3');
    expect(JSON.parse(lines[3] ?? '')).toMatchObject({
      ok: true,
      value: { attempt: { step: 'ok', status: 'completed' }, exitCode: 0 },
    });
  });

  it('a step after the run lost its lease exits 6 (docs/CLI.md#exit-codes)', async () => {
    const result = await exec('RUNWARDEN_LEASE_GENERATION=999 runwarden step late -- true; echo "late=$?"');
    expect(result.stdout).toContain('late=6');
  });

  it('start / end for code that does not wrap, end --failed with the message', async () => {
    const result = await exec(
      'runwarden step start fetch && runwarden step end && runwarden step start parse && runwarden step end --failed "bad row 7"; runwarden step end; echo "end=$?"',
    );
    expect(result.stdout).toContain('end=5');
    expect(result.stderr).toContain('No step is open');
    const detail = await detailOf(result.stderr);
    expect(detail.attempts.map((a) => [a.step, a.status, a.error])).toEqual([
      ['fetch', 'completed', null],
      ['parse', 'failed', 'bad row 7'],
    ]);
  });
});

describe('exec --key', () => {
  it('a key whose run has ended is not started again, and says to retry it', async () => {
    // The same line twice: the second is refused before it runs anything.
    const line = () => exec('echo ran >> ran-ended; exit 3', ['--key', 'nightly-ended']);
    const first = await line();
    expect(first.code).toBe(3);
    const runId = (await detailOf(first.stderr)).snapshot.run.id;
    const again = await line();
    expect(again.code, again.stderr).toBe(5);
    expect(again.stderr).toContain(
      `The run of --key nightly-ended, ${runId}, has ended failed; --key reuses that run, so it is not started again. To run it again, retry it ("runwarden retry ${runId}") and run this command again`,
    );
    expect(readFileSync(join(project, 'ran-ended'), 'utf8')).toBe('ran\n');
  });

  it('a key whose run ended with an effect of unknown outcome says to resolve it before the retry', async () => {
    const line = () =>
      exec('id=$(runwarden effect begin --key pay-8 --summary "Pay invoice 8"); exit 3', ['--key', 'rule-8']);
    const first = await line();
    expect(first.code).toBe(3);
    const detail = await detailOf(first.stderr);
    const effectId = detail.snapshot.effects[0]?.id;
    expect(detail.snapshot.effects[0]?.status).toBe('ambiguous');
    const again = await line();
    expect(again.code).toBe(5);
    expect(again.stderr).toContain(
      `has ended failed; --key reuses that run, so it is not started again. First say whether effect ${effectId} (Pay invoice 8) happened: "runwarden resolve ${effectId} --happened|--not-happened --note TEXT". To run it again, retry it`,
    );
  });

  it('run again after a retry, the key runs the retry here and skips the effects that happened', async () => {
    // As `make` runs a rule again: the same exec line each time; the first one pays, then fails until the
    // person fixes what failed (here: creates fixed-9).
    const rule = () =>
      exec(
        `runwarden effect --key pay-9 -- sh -c "echo paid >> ledger-9"; test -e fixed-9 || exit 4; touch made-9`,
        ['--key', 'rule-9'],
      );
    const first = await rule();
    expect(first.code).toBe(4);
    const runId = (await detailOf(first.stderr)).snapshot.run.id;
    const retried = await runCli(['retry', runId], { store: dir.store });
    expect(retried.code, retried.stderr).toBe(0);
    const retryId = /as (run_\S+)/.exec(retried.stdout)?.[1] as string;
    // `show` names the retry, and points at it rather than at a second retry (refused without --again).
    const shown = await runCli(['show', runId], { store: dir.store });
    expect(shown.stdout).toMatch(new RegExp(`retried as\\s+${retryId} \\(queued\\)`));
    expect(shown.stdout).toContain(`runwarden show ${retryId}  # its retry is queued: look at it`);
    expect(shown.stdout).not.toContain(`runwarden retry ${runId}`);

    writeFileSync(join(project, 'fixed-9'), '');
    const second = await rule();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`runwarden: run ${retryId}`);
    expect(second.stderr).toContain(`effect pay-9 was already applied in run ${runId}`);
    expect(existsSync(join(project, 'made-9'))).toBe(true);
    expect(readFileSync(join(project, 'ledger-9'), 'utf8')).toBe('paid\n');

    // The retry has ended too: the key now stands for it, and says to retry that one.
    const third = await rule();
    expect(third.code).toBe(5);
    expect(third.stderr).toContain(`The run of --key rule-9, ${retryId}, has ended completed`);
    const after = await runCli(['show', runId], { store: dir.store });
    expect(after.stdout).toMatch(new RegExp(`retried as\\s+${retryId} \\(completed\\)`));
    expect(after.stdout).toContain(`runwarden retry ${runId}`);
  });
});

describe('effect', () => {
  it('applies once per key, skips it the second time, and records a rejected one', async () => {
    const result = await exec(
      [
        'runwarden effect --key mail-1 --type email --summary "Mail the team" -- sh -c "echo sent >> sent.txt"',
        'runwarden effect --key mail-1 -- sh -c "echo again >> sent.txt"',
        'runwarden effect --key upload -- sh -c "exit 4"; echo "upload=$?"',
        'cat sent.txt',
      ].join('; '),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('upload=4');
    expect(result.stdout.match(/sent/g)).toHaveLength(1);
    expect(result.stdout).not.toContain('again');
    expect(result.stderr).toContain('effect mail-1 was already applied in this run; not running it again');
    const detail = await detailOf(result.stderr);
    expect(detail.snapshot.effects.map((e) => [e.idempotencyKey, e.type, e.summary, e.status])).toEqual([
      ['mail-1', 'email', 'Mail the team', 'applied'],
      ['upload', 'sh', 'sh -c exit 4', 'rejected'],
    ]);
  });

  it('a command exiting 75 means "outcome unknown": ambiguous, the run parks, effect and exec exit 75', async () => {
    const result = await exec(
      'runwarden effect --key pay-7 --summary "Pay invoice 7" -- sh -c "exit 75"; echo "effect=$?"; exit 0',
    );
    expect(result.code).toBe(75);
    expect(result.stderr).toMatch(/the outcome of effect pay-7 \(\d+\) is unknown; run run_\S+ is parked/);
    expect(result.stderr).toMatch(/parked by its command \(effectAmbiguous/);
    const detail = await detailOf(result.stderr);
    expect(detail.snapshot.effects[0]).toMatchObject({ idempotencyKey: 'pay-7', status: 'ambiguous' });
    expect(detail.snapshot.queue).toMatchObject({ status: 'parked', errorCode: 'effectAmbiguous' });
    expect(detail.display).toMatchObject({ status: 'ambiguous', needsYou: true });

    // Resume is refused until a person says whether it happened; show prints both resolve commands.
    const runId = detail.snapshot.run.id;
    const refused = await runCli(['resume', runId], { store: dir.store });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('runwarden resolve EFFECT --happened|--not-happened --note TEXT');
    const show = await runCli(['show', runId], { store: dir.store });
    const id = detail.snapshot.effects[0]?.id;
    expect(show.stdout).toContain(`runwarden resolve ${id} --happened --note 'how you know'`);
    expect(show.stdout).toContain(`runwarden resolve ${id} --not-happened --note 'how you know'`);
    const resolved = await runCli(['resolve', String(id), '--happened', '--note', 'the bank shows it'], {
      store: dir.store,
    });
    expect(resolved.code).toBe(0);
    const resumed = await runCli(['resume', runId], { store: dir.store });
    expect(resumed.code, resumed.stderr).toBe(0);
  });

  it('begin prints the id to perform it, end records how it went; an applied key prints nothing', async () => {
    const result = await exec(
      [
        'id=$(runwarden effect begin --key tag-1 --type git --summary "Push tag v1")',
        'echo "id=$id"',
        'runwarden effect end "$id" --applied',
        'again=$(runwarden effect begin --key tag-1)',
        'echo "again=[$again]"',
        'id2=$(runwarden effect begin --key tag-2)',
        'runwarden effect end "$id2" --unknown; echo "unknown=$?"',
      ].join('; '),
    );
    expect(result.stdout).toMatch(/id=\d+/);
    expect(result.stdout).toContain('again=[]');
    expect(result.stdout).toContain('unknown=75');
    expect(result.code).toBe(75);
    const detail = await detailOf(result.stderr);
    expect(detail.snapshot.effects.map((e) => [e.idempotencyKey, e.status])).toEqual([
      ['tag-1', 'applied'],
      ['tag-2', 'ambiguous'],
    ]);
  });
});

describe('progress and park', () => {
  it('progress shows in ls; park --source-changed parks the run and exec exits 75', async () => {
    const result = await exec(
      'runwarden progress "copied 40 of 120" && runwarden park --source-changed "workflow.yml edited"; sleep 5',
    );
    expect(result.code).toBe(75);
    expect(result.stdout).toMatch(/Parked run_\S+: the workflow source changed/);
    const detail = await detailOf(result.stderr);
    expect(detail.snapshot.run.statusDetail).toBe('copied 40 of 120');
    expect(detail.snapshot.queue).toMatchObject({
      status: 'parked',
      errorCode: 'sourceChanged',
      errorDetail: 'workflow.yml edited',
    });
    const { body } = await runJson<RunListPage>(['ls', '--needs-you'], { store: dir.store });
    expect(body.ok && body.value.items.map((i) => i.run.id)).toContain(detail.snapshot.run.id);
    const show = await runCli(['show', detail.snapshot.run.id], { store: dir.store });
    expect(show.stdout).toContain(`runwarden resume ${detail.snapshot.run.id} --anyway`);
  });
});

describe('the timeline', () => {
  it('says every write of an exec run and of the commands inside it came through the CLI', async () => {
    const result = await exec(
      'runwarden step build -- true && runwarden effect --key deploy-1 -- true && runwarden progress "almost"',
    );
    expect(result.code).toBe(0);
    const { body } = await runJson<RunDetail>(
      ['show', /run (run_\S+)/.exec(result.stderr)?.[1] ?? '', '--events', '100'],
      {
        store: dir.store,
      },
    );
    if (!body.ok) throw new Error(body.error.message);
    const events = body.value.events;
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['run.reserved', 'run.claimed', 'run.running', 'run.progress', 'run.completed']),
    );
    expect(events.filter((e) => e.surface !== 'cli').map((e) => `${e.type} via ${e.surface}`)).toEqual([]);
  });
});
