/**
 * docs/LIVENESS.md#questions-and-their-askers, with real processes: a question lives only while its `ask`
 * waits. SIGTERM of `ask` (what an agent hook's timeout sends) withdraws its question before it exits 130
 * and a later answer is refused NOBODY_WAITING; a SIGKILLed `ask` is withdrawn by the sweeper; on an orphan
 * whose asker is dead an answer is refused; an answer from inside the run is refused SELF_ANSWER and
 * changes nothing (docs/LIVENESS.md#only-a-person-outside-the-run-answers).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { Interaction } from '../../shared/domain';
import type { RunDetail } from '../../main/store';
import { runCli, runJson } from '../helpers/cli';
import { inProcessSweeper, pidAlive, runIdOf, spawnRunwarden, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-askers-');

function readNumber(file: string): number | undefined {
  try {
    return Number(readFileSync(join(project, file), 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(join(project, file), 'utf8');
  } catch {
    return undefined;
  }
}

async function detail(runId: string): Promise<RunDetail> {
  const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
  if (!body.ok) throw new Error(JSON.stringify(body.error));
  return body.value;
}

async function openQuestion(runId: string): Promise<Interaction> {
  return waitFor('an open question', async () =>
    (await detail(runId)).snapshot.interactions.find((i) => i.status === 'pending'),
  );
}

/** `answer --json-result`: its exit code and JSON envelope. */
async function answerJson(id: string, value: string) {
  const result = await runCli(['answer', id, value, '--json-result'], { store: dir.store });
  return { code: result.code, body: JSON.parse(result.stdout) as unknown };
}

/**
 * `exec` of a script whose `ask` runs in the background: its pid in NAME.pid, its stderr in NAME.err, its
 * exit status in NAME.ask.
 */
function execAsking(name: string, after: string, extra: string[] = [], before = '') {
  const script =
    `${before}runwarden ask --title "${name}?" --choice yes --choice no 2> ${name}.err & echo $! > ${name}.pid; ` +
    `wait $!; echo $? > ${name}.ask; ${after}`;
  return spawnRunwarden(['exec', '--project', project, ...extra, '--', 'sh', '-c', script], {
    store: dir.store,
    cwd: project,
  });
}

it('SIGTERM of ask withdraws its question before it exits 130; a later answer is refused', async () => {
  const exec = execAsking('term', 'echo went on > term.after');
  const runId = await runIdOf(exec);
  const question = await openQuestion(runId);
  const askPid = await waitFor('the ask pid', () => readNumber('term.pid'));
  process.kill(askPid, 'SIGTERM');
  expect(await waitFor('ask to exit', () => readText('term.ask'))).toBe('130\n');
  const end = await exec.done;
  expect(end.code, end.stderr).toBe(0);
  expect(readText('term.err')).toContain(
    'ask was interrupted (SIGTERM); it was withdrawn, nobody is waiting',
  );

  const after = await detail(runId);
  expect(after.snapshot.interactions[0]).toMatchObject({
    id: question.id,
    status: 'cancelled',
    provenance: 'asker_interrupted',
  });
  expect(after.snapshot.run.status).toBe('completed');
  expect(after.snapshot.run.statusDetail ?? '').not.toContain('Waiting for an answer');
  expect(after.events.map((e) => e.type)).toContain('interaction.withdrawn');

  const answer = await answerJson(question.id, 'yes');
  expect(answer.code).toBe(5);
  expect(answer.body).toMatchObject({ ok: false, error: { code: 'NOBODY_WAITING' } });
  const human = await runCli(['answer', question.id, 'yes'], { store: dir.store });
  expect(human.stderr).toContain('Nobody is waiting for an answer to "term?"');
  expect((await detail(runId)).snapshot.interactions[0]?.response).toBeNull();
});

it('SIGINT and SIGHUP withdraw too', async () => {
  for (const signal of ['SIGINT', 'SIGHUP'] as const) {
    const name = signal.toLowerCase();
    const exec = execAsking(name, 'true');
    const runId = await runIdOf(exec);
    await openQuestion(runId);
    process.kill(await waitFor('the ask pid', () => readNumber(`${name}.pid`)), signal);
    expect(await waitFor('ask to exit', () => readText(`${name}.ask`))).toBe('130\n');
    await exec.done;
    expect((await detail(runId)).snapshot.interactions[0]?.provenance).toBe('asker_interrupted');
  }
});

it('SIGKILL of the asking process: its supervisor withdraws the question at once, no sweeper needed', async () => {
  const exec = execAsking('kill', 'while [ ! -e kill.go ]; do sleep 0.1; done');
  const runId = await runIdOf(exec);
  const question = await openQuestion(runId);
  const askPid = await waitFor('the ask pid', () => readNumber('kill.pid'));
  try {
    expect((await detail(runId)).display.status).toBe('needs-answer');
    process.kill(askPid, 'SIGKILL');
    expect(await waitFor('ask to be reaped', () => readText('kill.ask'))).toBe('137\n');
    // No sweeper runs: exec looks at its run's askers every second while its command runs.
    const after = await waitFor('the supervisor to withdraw', async () => {
      const d = await detail(runId);
      return d.snapshot.interactions[0]?.status === 'cancelled' ? d : undefined;
    });
    expect(after.snapshot.interactions[0]).toMatchObject({ id: question.id, provenance: 'asker_gone' });
    expect(after.snapshot.run.status).toBe('running');
    expect(after.display.status).toBe('running');
  } finally {
    writeFileSync(join(project, 'kill.go'), '');
  }
  expect((await exec.done).code).toBe(0);
  expect((await detail(runId)).snapshot.interactions[0]).toMatchObject({ provenance: 'asker_gone' });
});

it('the sweeper withdraws a SIGKILLed asker of a run whose supervisor cannot look', async () => {
  // The supervisor is stopped (SIGSTOP), so only the sweeper can notice the asker's death.
  const exec = execAsking('sweep', 'while [ ! -e sweep.go ]; do sleep 0.1; done');
  const runId = await runIdOf(exec);
  const question = await openQuestion(runId);
  const askPid = await waitFor('the ask pid', () => readNumber('sweep.pid'));
  const sweeper = inProcessSweeper(dir.store);
  exec.child.kill('SIGSTOP');
  try {
    expect(sweeper.tick().questionsWithdrawn).toBe(0);
    process.kill(askPid, 'SIGKILL');
    const withdrawn = await waitFor('the sweeper to withdraw', () => {
      const n = sweeper.tick().questionsWithdrawn;
      return n > 0 ? n : undefined;
    });
    expect(withdrawn).toBe(1);
    expect((await detail(runId)).snapshot.interactions[0]).toMatchObject({
      id: question.id,
      provenance: 'asker_gone',
    });
  } finally {
    sweeper.close();
    exec.child.kill('SIGCONT');
    writeFileSync(join(project, 'sweep.go'), '');
  }
  expect((await exec.done).code).toBe(0);
});

it('an orphaned run whose asking script is dead: answer is refused, nobody is waiting', async () => {
  // A background keeper outlives the supervisor (the run is orphaned); the asking process is killed.
  const exec = execAsking(
    'orphan',
    'true',
    ['--lease-ms', '1500'],
    '(exec sleep 600) & echo $! > orphan.keeper; ',
  );
  const runId = await runIdOf(exec);
  const question = await openQuestion(runId);
  const askPid = await waitFor('the ask pid', () => readNumber('orphan.pid'));
  const keeper = await waitFor('the keeper pid', () => readNumber('orphan.keeper'));
  exec.child.kill('SIGKILL');
  await exec.done;
  process.kill(askPid, 'SIGKILL');
  await waitFor('ask to be gone', () => !pidAlive(askPid));
  expect(pidAlive(keeper)).toBe(true);
  // No sweeper runs: the answer itself finds the asker gone, withdraws the question and is refused.
  const answer = await answerJson(question.id, 'yes');
  expect(answer.code).toBe(5);
  expect(answer.body).toMatchObject({ ok: false, error: { code: 'NOBODY_WAITING' } });
  expect((await detail(runId)).snapshot.interactions[0]).toMatchObject({
    status: 'cancelled',
    provenance: 'asker_gone',
    response: null,
  });
  process.kill(keeper, 'SIGKILL');
});

it('answer from inside the run is refused SELF_ANSWER and changes nothing; a person outside answers', async () => {
  // The script asks in the background, then tries to answer its own question twice: with the run's
  // environment, and with RUNWARDEN_RUN_ID removed (its process ancestry still gives it away).
  const script =
    `runwarden ask --title "self?" --choice yes --choice no > self.answer & ` +
    `while [ ! -e self.qid ]; do sleep 0.1; done; q=$(cat self.qid); ` +
    `runwarden answer "$q" yes 2> self.err1; echo $? > self.code1; ` +
    `env -u RUNWARDEN_RUN_ID -u RUNWARDEN_RUN_TOKEN runwarden answer "$q" yes 2> self.err2; echo $? > self.code2; ` +
    // A cleared environment, then the double fork of the issue: setsid -f leaves the shell's session and
    // its parent exits at once, so the answering process is an orphan (kept below the supervisor).
    `env -i PATH="$PATH" RUNWARDEN_STORE="$RUNWARDEN_STORE" HOME="$HOME" runwarden answer "$q" yes 2> self.err3; echo $? > self.code3; ` +
    `setsid -f env -i PATH="$PATH" RUNWARDEN_STORE="$RUNWARDEN_STORE" HOME="$HOME" ` +
    `sh -c "runwarden answer $q yes 2> $PWD/self.err4; echo \\$? > $PWD/self.code4"; ` +
    `wait`;
  const exec = spawnRunwarden(['exec', '--project', project, '--', 'sh', '-c', script], {
    store: dir.store,
    cwd: project,
  });
  const runId = await runIdOf(exec);
  const question = await openQuestion(runId);
  const before = (await detail(runId)).snapshot.run.revision;
  writeFileSync(join(project, 'self.qid'), question.id);
  expect(await waitFor('the first self-answer', () => readText('self.code1'))).toBe('77\n');
  expect(await waitFor('the second self-answer', () => readText('self.code2'))).toBe('77\n');
  expect(readText('self.err1')).toContain(`Only a person outside run ${runId}`);
  expect(readText('self.err2')).toContain('started by process');
  expect(await waitFor('the env -i self-answer', () => readText('self.code3'))).toBe('77\n');
  expect(await waitFor('the double-forked self-answer', () => readText('self.code4'))).toBe('77\n');
  expect(readText('self.err4')).toContain(`Only a person outside run ${runId}`);
  const still = await detail(runId);
  expect(still.snapshot.run.revision).toBe(before);
  expect(still.snapshot.interactions[0]).toMatchObject({ status: 'pending', revision: question.revision });
  expect(still.submissions).toEqual([]);

  const person = await runCli(['answer', question.id, 'no'], { store: dir.store });
  expect(person.code, person.stderr).toBe(0);
  expect(person.stderr).not.toContain('could not check');
  const end = await exec.done;
  expect(end.code, end.stderr).toBe(0);
  expect(readText('self.answer')).toBe('no\n');
});

it('a supervisor that cannot keep its processes (no perl, no python3): a double-forked answer is recorded as unchecked', async () => {
  const script =
    `runwarden ask --title "loose?" --choice yes --choice no > loose.answer & ` +
    `while [ ! -e loose.qid ]; do sleep 0.1; done; q=$(cat loose.qid); ` +
    `setsid -f env -i PATH="$PATH" RUNWARDEN_STORE="$RUNWARDEN_STORE" HOME="$HOME" ` +
    `sh -c "runwarden answer $q yes 2> $PWD/loose.err; echo \\$? > $PWD/loose.code"; ` +
    `wait`;
  const exec = spawnRunwarden(['exec', '--project', project, '--', 'sh', '-c', script], {
    store: dir.store,
    cwd: project,
    env: { RUNWARDEN_PERL: '', RUNWARDEN_PYTHON: '' },
  });
  const runId = await runIdOf(exec);
  const question = await openQuestion(runId);
  writeFileSync(join(project, 'loose.qid'), question.id);
  expect(await waitFor('the double-forked answer', () => readText('loose.code'))).toBe('0\n');
  expect(readText('loose.err')).toContain('could not check that this answer came from outside the run');
  expect(readText('loose.err')).toContain('no perl or python3 was found');
  const end = await exec.done;
  expect(end.code, end.stderr).toBe(0);
  expect(readText('loose.answer')).toBe('yes\n');
  const answered = (await detail(runId)).events.find((e) => e.type === 'interaction.answered');
  expect(answered?.payload).toMatchObject({
    interactionId: question.id,
    callerUnchecked: expect.stringContaining('not a child subreaper'),
  });
});

it('an answer nothing would act on: the supervisor is SIGKILLed, the answer is refused with the next step', async () => {
  // The shell that would act on the answer dies with its supervisor; `ask` lives on in the group.
  const script = `a=$(runwarden ask --title "act?" --choice yes --choice no); echo "$a" > acted`;
  const exec = spawnRunwarden(['exec', '--project', project, '--', 'sh', '-c', script], {
    store: dir.store,
    cwd: project,
  });
  const runId = await runIdOf(exec);
  const question = await openQuestion(runId);
  exec.child.kill('SIGKILL');
  await exec.done;
  const answer = await runCli(['answer', question.id, 'yes'], { store: dir.store });
  expect(answer.code, answer.stderr).toBe(5);
  expect(answer.stderr).toContain('Nothing would act on this answer');
  expect(answer.stderr).toContain(`runwarden cancel --stop-command ${runId}`);
  const after = await detail(runId);
  expect(after.snapshot.interactions[0]).toMatchObject({ status: 'pending', response: null });
  expect(after.display.actions).not.toContain('answer');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(readText('acted')).toBeUndefined();
  // The step it names works: the ask is stopped with the rest, and the run ends cancelled.
  const stop = await runCli(['cancel', '--stop-command', runId, '--yes'], { store: dir.store });
  expect(stop.code, stop.stderr).toBe(0);
  expect((await detail(runId)).snapshot.run.status).toBe('cancelled');
  expect(readText('acted')).toBeUndefined();
});
