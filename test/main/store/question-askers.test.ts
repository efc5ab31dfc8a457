/**
 * A question lives only while someone waits for it, and only a person outside the run answers it
 * (docs/LIVENESS.md#questions-and-their-askers): the asker recorded with the question, its withdrawal when
 * interrupted or verifiably gone (real processes), NOBODY_WAITING and SELF_ANSWER refusals, migration 0010.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunwardenError } from '../../../shared/errors';
import { migrate } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0009 } from '../../../main/store/migrations/0009-question-askers';
import {
  machineIdentity,
  processAncestry,
  processStartId,
  thisProcessAsAsker,
} from '../../../main/store/process-identity';
import type { AskerIdentity } from '../../../main/store/question-askers';
import type { Claim } from '../../../main/store/store-types';
import {
  createTempStore,
  HUMAN,
  makeTempDir,
  reserveAndClaim,
  runnerOwner,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { EventLogWatch, expectHealthy, expectInvariants } from './invariants';

let t: TempStore;
let log: EventLogWatch;
const children: ChildProcess[] = [];

beforeAll(() => {
  t = createTempStore();
  log = new EventLogWatch(t.store);
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  expectInvariants(t.store);
  log.check();
});
afterAll(() => {
  expectHealthy(t.store);
  t.cleanup();
});

function errorOf(fn: () => unknown): RunwardenError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunwardenError) return error;
    throw error;
  }
  throw new Error('expected a RunwardenError');
}

/** A real process that lives until killed, and its identity as an asker on this machine. */
async function liveProcess(argv = ['sleep', '600']): Promise<{ child: ChildProcess; asker: AskerIdentity }> {
  const [command = 'sleep', ...args] = argv;
  const child = spawn(command, args, { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  const pid = child.pid as number;
  // The start identity is read once the process exists (it never changes afterwards).
  let startId: string | null = null;
  while (startId === null) startId = processStartId(pid);
  return { child, asker: { pid, startId, ...machineIdentity() } };
}

async function killAndReap(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function ask(claim: Claim, asker: AskerIdentity | null, title = 'Deploy?') {
  return t.store.requestInteraction(claim, {
    kind: 'decision',
    title,
    choices: ['yes', 'no'],
    ...(asker !== null && { asker }),
  });
}

const answer = (id: string, extra: Partial<Parameters<TempStore['store']['answerInteraction']>[1]> = {}) =>
  t.store.answerInteraction(id, {
    interactionRevision: t.store.getInteraction(id).revision,
    idempotencyKey: `k-${id}-${Math.random()}`,
    payload: 'yes',
    actor: HUMAN,
    ...extra,
  });

describe('an interrupted asker withdraws its question', () => {
  it('cancelled with provenance asker_interrupted, the run goes on, an answer is refused NOBODY_WAITING', () => {
    const claim = reserveAndClaim(t);
    t.store.markRunning(claim);
    const question = ask(claim, thisProcessAsAsker());
    expect(t.store.getRun(claim.runId).statusDetail).toBe('Waiting for an answer: Deploy?');
    expect(t.store.getRun(claim.runId).status).toBe('waiting');

    expect(t.store.withdrawInteraction(question.id, 'asker_interrupted', SWEEPER)).toBe(true);
    const withdrawn = t.store.getInteraction(question.id);
    expect(withdrawn).toMatchObject({ status: 'cancelled', provenance: 'asker_interrupted' });
    expect(withdrawn.revision).toBe(question.revision + 1);
    const run = t.store.getRun(claim.runId);
    expect(run).toMatchObject({ status: 'running', statusDetail: null });
    const events = t.store.getRunDetail(claim.runId, { eventsLimit: 5 }).events;
    expect(events[0]).toMatchObject({
      type: 'interaction.withdrawn',
      payload: { interactionId: question.id, provenance: 'asker_interrupted' },
    });
    // Twice: nothing more to withdraw, nothing written.
    expect(t.store.withdrawInteraction(question.id, 'asker_interrupted', SWEEPER)).toBe(false);
    expect(t.store.getRun(claim.runId).revision).toBe(run.revision);

    const refused = errorOf(() => answer(question.id));
    expect(refused.code).toBe('NOBODY_WAITING');
    expect(refused.message).toContain('Nobody is waiting');
    expect(refused.message).toContain('was interrupted');
    expect(t.store.getInteraction(question.id).status).toBe('cancelled');
    expect(t.store.getRun(claim.runId).revision).toBe(run.revision);
    t.store.completeRun(claim, null);
  });

  it('a bad withdrawal reason or asker is refused and writes nothing', () => {
    const claim = reserveAndClaim(t);
    const question = ask(claim, null);
    const before = t.store.getRun(claim.runId).revision;
    expect(
      errorOf(() => t.store.withdrawInteraction(question.id, 'bored' as 'asker_gone', SWEEPER)).code,
    ).toBe('VALIDATION');
    expect(
      errorOf(() =>
        t.store.requestInteraction(claim, {
          kind: 'decision',
          title: 'x',
          choices: ['a'],
          asker: { pid: -1 } as AskerIdentity,
        }),
      ).code,
    ).toBe('VALIDATION');
    expect(t.store.getRun(claim.runId).revision).toBe(before);
    t.store.completeRun(claim, null);
  });
});

describe('a gone asker: the sweeper withdraws, an answer is refused', () => {
  it('withdrawGoneAskers leaves a live asker alone and withdraws it once it is killed', async () => {
    const claim = reserveAndClaim(t);
    t.store.markRunning(claim);
    const { child, asker } = await liveProcess();
    const question = ask(claim, asker);
    const before = t.store.getRun(claim.runId).revision;
    expect(t.store.withdrawGoneAskers(100, SWEEPER)).toBe(0);
    // Nothing to withdraw writes nothing.
    expect(t.store.getRun(claim.runId).revision).toBe(before);
    expect(t.store.getInteraction(question.id).status).toBe('pending');

    await killAndReap(child);
    expect(t.store.withdrawGoneAskers(100, SWEEPER)).toBe(1);
    expect(t.store.getInteraction(question.id)).toMatchObject({
      status: 'cancelled',
      provenance: 'asker_gone',
    });
    expect(t.store.getRun(claim.runId).status).toBe('running');
    expect(t.store.withdrawGoneAskers(100, SWEEPER)).toBe(0);
    t.store.completeRun(claim, null);
  });

  it('an asker recorded on another boot is not trusted: its question stays', async () => {
    const claim = reserveAndClaim(t);
    const { child, asker } = await liveProcess();
    const question = ask(claim, { ...asker, bootId: 'another-boot' });
    await killAndReap(child);
    expect(t.store.withdrawGoneAskers(100, SWEEPER)).toBe(0);
    expect(t.store.getInteraction(question.id).status).toBe('pending');
    // Nothing says nobody waits: a person's answer is taken.
    expect(answer(question.id).outcome).toBe('accepted');
    t.store.completeRun(claim, null);
  });

  it('an answer to a question whose asker is gone is refused and withdraws it', async () => {
    const claim = reserveAndClaim(t);
    t.store.markRunning(claim);
    const { child, asker } = await liveProcess();
    const question = ask(claim, asker, 'Ship it?');
    await killAndReap(child);
    const refused = errorOf(() => answer(question.id));
    expect(refused.code).toBe('NOBODY_WAITING');
    expect(refused.message).toContain('"Ship it?"');
    expect(refused.message).toContain('is gone');
    expect(t.store.getInteraction(question.id)).toMatchObject({
      status: 'cancelled',
      provenance: 'asker_gone',
      response: null,
    });
    const submissions = t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).submissions;
    expect(submissions.map((s) => s.outcome)).toEqual(['rejected']);
    t.store.completeRun(claim, null);
  });
});

describe('no self-answers', () => {
  it('RUNWARDEN_RUN_ID of the run: SELF_ANSWER and nothing changes', () => {
    const claim = reserveAndClaim(t);
    const question = ask(claim, null);
    const revision = t.store.getRun(claim.runId).revision;
    const refused = errorOf(() => answer(question.id, { caller: { runId: claim.runId, ancestry: [] } }));
    expect(refused.code).toBe('SELF_ANSWER');
    expect(refused.message).toContain('Only a person outside run');
    expect(t.store.getInteraction(question.id)).toMatchObject({
      status: 'pending',
      revision: question.revision,
    });
    expect(t.store.getRun(claim.runId).revision).toBe(revision);
    expect(
      t.store.db.prepare(`SELECT count(*) AS n FROM submissions WHERE interaction_id = ?`).get(question.id),
    ).toEqual({
      n: 0,
    });
    // Another run's id is not this run: a person's shell inside some other run answers.
    expect(answer(question.id, { caller: { runId: 'run_other', ancestry: [] } }).outcome).toBe('accepted');
    t.store.completeRun(claim, null);
  });

  it('a descendant of the run’s command (real processes) is refused; an outsider is not', async () => {
    // The command: a shell with a child; the caller is that child (its ancestry includes the shell).
    const { child: command, asker: commandProcess } = await liveProcess(['sh', '-c', 'sleep 600 & wait']);
    const here = machineIdentity();
    const claim = reserveAndClaim(
      t,
      30_000,
      runnerOwner('runner-self', {
        pid: process.pid,
        startId: processStartId(process.pid),
        hostname: here.hostname,
        bootId: here.bootId,
        pidNs: here.pidNs,
      }),
    );
    t.store.recordCommand(claim, { pid: commandProcess.pid, pgid: null, startId: commandProcess.startId });
    const question = ask(claim, null);
    let grandchild: number | undefined;
    while (grandchild === undefined) {
      const list = fs
        .readFileSync(`/proc/${commandProcess.pid}/task/${commandProcess.pid}/children`, 'utf8')
        .trim();
      if (list !== '') grandchild = Number(list.split(' ')[0]);
    }
    const inside = processAncestry(grandchild);
    expect(inside.map((a) => a.pid)).toContain(commandProcess.pid);
    const refused = errorOf(() => answer(question.id, { caller: { runId: null, ancestry: inside } }));
    expect(refused.code).toBe('SELF_ANSWER');
    expect(refused.message).toContain(`process ${commandProcess.pid}`);
    expect(t.store.getInteraction(question.id).status).toBe('pending');

    // A pid reused by another process (same number, other start identity) is not the command.
    const reused = [{ pid: commandProcess.pid, startId: 'not-the-same-start' }];
    const outsider = processAncestry(process.pid).filter((a) => a.pid !== process.pid);
    expect(answer(question.id, { caller: { runId: null, ancestry: [...reused, ...outsider] } }).outcome).toBe(
      'accepted',
    );
    await killAndReap(command);
    t.store.completeRun(claim, null);
  });
});

it('a run that ends with a question open does not read "Waiting for an answer"', () => {
  const claim = reserveAndClaim(t);
  t.store.markRunning(claim);
  ask(claim, null, 'Left open');
  expect(t.store.getRun(claim.runId).statusDetail).toBe('Waiting for an answer: Left open');
  t.store.completeRun(claim, null);
  const run = t.store.getRun(claim.runId);
  expect(run.status).toBe('completed');
  expect(run.statusDetail).toBeNull();
});

it('a run that ends with a killed asker records asker_gone, not a cancel nobody made', async () => {
  const claim = reserveAndClaim(t);
  t.store.markRunning(claim);
  const { child, asker } = await liveProcess();
  const gone = ask(claim, asker, 'Killed asker');
  const live = ask(claim, thisProcessAsAsker(), 'Live asker');
  await killAndReap(child);
  t.store.completeRun(claim, null);
  expect(t.store.getInteraction(gone.id)).toMatchObject({ status: 'cancelled', provenance: 'asker_gone' });
  expect(t.store.getInteraction(live.id)).toMatchObject({
    status: 'cancelled',
    provenance: 'explicit_cancel',
  });
});

/** A claim held by this test process (a live supervisor on this machine), its command recorded. */
function claimHeldHere(containment?: { subreaper: true } | { subreaper: false; why: string }): Claim {
  const here = machineIdentity();
  const owner = runnerOwner('runner-here', {
    pid: process.pid,
    startId: processStartId(process.pid),
    hostname: here.hostname,
    bootId: here.bootId,
    pidNs: here.pidNs,
  });
  const claim = reserveAndClaim(t, 30_000, owner);
  t.store.recordCommand(claim, {
    pid: process.pid,
    pgid: null,
    startId: processStartId(process.pid),
    ...(containment !== undefined && { containment }),
  });
  return claim;
}

describe('what the self-answer check could not tell is recorded with the answer', () => {
  // An ancestry of a process outside the run: neither this process (the "supervisor") nor its command.
  const outsider = [{ pid: 999_999, startId: '1' }];

  it('a subreaper supervisor alive here: checked, nothing extra recorded', () => {
    const claim = claimHeldHere({ subreaper: true });
    const question = ask(claim, null);
    const result = answer(question.id, { caller: { runId: null, ancestry: outsider } });
    expect(result.outcome).toBe('accepted');
    expect(result.callerUnchecked).toBeUndefined();
    const answered = t.store.getRunDetail(claim.runId, { eventsLimit: 5 }).events[0];
    expect(answered).toMatchObject({ type: 'interaction.answered' });
    expect(answered?.payload).not.toHaveProperty('callerUnchecked');
    t.store.completeRun(claim, null);
  });

  it('no subreaper, or no ancestry: accepted, with why in the result and the event', () => {
    const claim = claimHeldHere({ subreaper: false, why: 'no python3 was found to set the child subreaper' });
    const loose = answer(ask(claim, null, 'Loose').id, { caller: { runId: null, ancestry: outsider } });
    expect(loose.callerUnchecked).toBe(
      "the run's supervisor is not a child subreaper: no python3 was found to set the child subreaper",
    );
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 5 }).events[0]?.payload).toMatchObject({
      callerUnchecked: loose.callerUnchecked,
    });
    const blind = answer(ask(claim, null, 'Blind').id, { caller: { runId: null, ancestry: [] } });
    expect(blind.callerUnchecked).toBe("the caller's process ancestry could not be read here");
    // The window answers for a person: nothing to check.
    const person = answer(ask(claim, null, 'Person').id);
    expect(person.callerUnchecked).toBeUndefined();
    t.store.completeRun(claim, null);
  });
});

it('a run whose supervisor is verifiably gone: an answer is refused, nothing would act on it', async () => {
  const { child, asker: supervisor } = await liveProcess();
  const claim = reserveAndClaim(
    t,
    30_000,
    runnerOwner('runner-gone', {
      pid: supervisor.pid,
      startId: supervisor.startId,
      hostname: supervisor.hostname,
      bootId: supervisor.bootId,
      pidNs: supervisor.pidNs,
    }),
  );
  t.store.markRunning(claim);
  const question = ask(claim, thisProcessAsAsker());
  await killAndReap(child);
  const refused = errorOf(() => answer(question.id));
  expect(refused.code).toBe('CONFLICT');
  expect(refused.message).toContain('Nothing would act on this answer');
  expect(refused.message).toContain(`is stale (its runner runner-gone is gone`);
  expect(refused.message).toContain(`runwarden cancel ${claim.runId}`);
  expect(t.store.getInteraction(question.id)).toMatchObject({
    status: 'pending',
    revision: question.revision,
  });
  expect(t.store.getRunDetail(claim.runId, { eventsLimit: 5 }).display.actions).not.toContain('answer');
  t.store.cancelRun(claim.runId, {
    expectedRevision: t.store.getRun(claim.runId).revision,
    reason: 'test',
    actor: HUMAN,
  });
});

it('migration 0010 adds the asker columns and the withdrawal check to an existing store', () => {
  const dir = makeTempDir();
  try {
    const file = path.join(dir, 's.sqlite');
    const db = new Database(file);
    const at = MIGRATIONS.indexOf(migration0009);
    expect(at).toBeGreaterThan(0);
    expect(migrate(db, MIGRATIONS.slice(0, at))).toBe(at);
    const columns = () =>
      (db.prepare(`SELECT name FROM pragma_table_info('interactions')`).all() as Array<{ name: string }>).map(
        (c) => c.name,
      );
    expect(columns()).not.toContain('asker_pid');
    expect(migrate(db, MIGRATIONS.slice(0, at + 1))).toBe(at + 1);
    expect(columns()).toEqual(
      expect.arrayContaining([
        'asker_pid',
        'asker_start_id',
        'asker_hostname',
        'asker_boot_id',
        'asker_pid_ns',
        'withdrawal',
      ]),
    );
    expect(() => db.prepare(`UPDATE interactions SET withdrawal = 'bored'`).run()).not.toThrow(); // no rows
    db.exec(`PRAGMA foreign_keys = OFF`);
    expect(() =>
      db
        .prepare(
          `INSERT INTO interactions (id, run_id, kind, title, prompt, default_json, status, revision, response_json,
             created_at, withdrawal) VALUES ('i', 'r', 'decision', 't', '', 'null', 'cancelled', 1, 'null', 0, 'bored')`,
        )
        .run(),
    ).toThrow(/CHECK/);
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
