import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRunwardenError } from '../../../shared/errors';
import {
  attachEnclosingRun,
  claimRun,
  EffectRejected,
  runnerEnv,
  runnerOwner,
  startRun,
  waitForInteraction,
} from '../../../main/runner';
import { openStore, type RunStore } from '../../../main/store';
import { tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
let now: number;
let store: RunStore;
const person = { type: 'human', id: 'tester', surface: 'cli' } as const;

beforeEach(() => {
  dir = tempDir();
  project = join(dir.path, 'p');
  mkdirSync(project);
  now = 1_800_000_000_000;
  store = openStore(dir.store, { clock: () => now });
});
afterEach(() => {
  store.close();
  dir.remove();
});

function start(leaseMs = 3000, owner = runnerOwner('runner')) {
  return startRun(store, { projectPath: project, workflow: 'wf', title: 'kit' }, { leaseMs, owner });
}

/** An owner recorded on this machine with a pid nobody has: verifiably gone (docs/LIVENESS.md). */
const GONE_PID = 2 ** 22 + 4321;

describe('runner kit', () => {
  it('a request key names one command: the kit refuses it with another, and another project has its own', () => {
    const command = { argv: ['make', 'deploy'], cwd: project };
    const input = { projectPath: project, workflow: 'wf', title: 'keyed', requestKey: 'deploy', command };
    const first = startRun(store, input);
    first.complete({});
    const before = store.getRun(first.runId).revision;
    let refused: unknown;
    try {
      startRun(store, { ...input, command: { ...command, argv: ['make', 'clean'] } });
    } catch (error) {
      refused = error;
    }
    expect(isRunwardenError(refused) && refused.code).toBe('CONFLICT');
    expect((refused as Error).message).toContain(
      `The key deploy names run ${first.runId} (completed) in ${project}, another piece of work: its command is ["make","deploy"], this one ["make","clean"]`,
    );
    expect(store.getRun(first.runId).revision).toBe(before);
    const elsewhere = join(dir.path, 'q');
    mkdirSync(elsewhere);
    const there = startRun(store, {
      ...input,
      projectPath: elsewhere,
      command: { ...command, cwd: elsewhere },
    });
    expect(there.runId).not.toBe(first.runId);
    there.complete({});
  });

  it('records steps as attempts and finishes the run', async () => {
    const session = start();
    session.markRunning();
    const value = await session.step('build', () => 42);
    await expect(session.step('test', () => Promise.reject(new Error('red')))).rejects.toThrow('red');
    session.complete({ value });
    const detail = store.getRunDetail(session.runId, { eventsLimit: 50 });
    expect(detail.snapshot.run.status).toBe('completed');
    expect(detail.attempts.map((a) => [a.step, a.status, a.error])).toEqual([
      ['build', 'completed', null],
      ['test', 'failed', 'red'],
    ]);
  });

  it('applies an effect once per key, and marks an unknown outcome ambiguous', async () => {
    const session = start();
    const first = await session.effect({ type: 'mail', idempotencyKey: 'k1', summary: 'send' }, () => 'sent');
    expect(first).toMatchObject({
      result: 'sent',
      alreadyApplied: false,
      effect: { status: 'applied', attemptCount: 1 },
    });
    const again = await session.effect(
      { type: 'mail', idempotencyKey: 'k1', summary: 'send' },
      () => 'twice',
    );
    expect(again).toMatchObject({ result: null, alreadyApplied: true });
    await expect(
      session.effect({ type: 'mail', idempotencyKey: 'k2', summary: 'refused' }, () => {
        throw new EffectRejected('bounced');
      }),
    ).rejects.toThrow('bounced');
    await expect(
      session.effect({ type: 'pay', idempotencyKey: 'k3', summary: 'charge' }, () => {
        throw new Error('timeout');
      }),
    ).rejects.toThrow('timeout');
    const effects = store.getSnapshot(session.runId).effects.map((e) => [e.idempotencyKey, e.status]);
    expect(effects).toEqual([
      ['k1', 'applied'],
      ['k2', 'rejected'],
      ['k3', 'ambiguous'],
    ]);
  });

  it('never repeats an effect whose outcome is unknown: it parks the run for a person instead', async () => {
    const session = start();
    await expect(
      session.effect({ type: 'pay', idempotencyKey: 'charge-1', summary: 'charge $5' }, () => {
        throw new Error('socket hang up');
      }),
    ).rejects.toThrow('socket hang up');
    let calls = 0;
    await expect(
      session.effect({ type: 'pay', idempotencyKey: 'charge-1', summary: 'charge $5' }, () => {
        calls += 1;
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(calls).toBe(0);
    expect(store.getSnapshot(session.runId).queue).toMatchObject({
      status: 'parked',
      errorCode: 'effectAmbiguous',
    });
  });

  it('heartbeat reports a cancel request, and the runner ends its run cancelled', () => {
    const session = start();
    const events: string[] = [];
    session.on((event) => events.push(event.kind));
    store.requestCancel(session.runId, {
      expectedRevision: store.getRun(session.runId).revision,
      reason: 'stop',
      actor: person,
    });
    expect(session.heartbeat.beat()).toBe(true);
    expect(session.cancelRequested).toBe(true);
    expect(events).toEqual(['cancelRequested']);
    const outcome = session.cancelled('asked to stop');
    expect(outcome.run.status).toBe('cancelled');
  });

  it('is fenced once its lease expired and a new owner claimed: its writes are refused and it never revives', () => {
    // The first owner's process is gone (this process would count as alive, and keep the run).
    const session = start(1000, runnerOwner('gone', GONE_PID));
    now += 1500;
    const other = claimRun(store, session.runId, { leaseMs: 1000, owner: runnerOwner('other') });
    expect(other.claim.generation).toBeGreaterThan(session.claim.generation);
    const events: string[] = [];
    session.on((event) => events.push(event.kind));
    expect(session.heartbeat.beat()).toBe(false);
    expect(session.fenced).toBe(true);
    expect(events).toEqual(['fenced']);
    expect(session.heartbeat.lost).toBe('takenOver');
    let code = '';
    try {
      session.setProgress('zombie');
    } catch (error) {
      code = isRunwardenError(error) ? error.code : 'raw';
    }
    expect(code).toBe('FENCED');
    expect(store.getRun(session.runId).statusDetail).not.toBe('zombie');
    expect(other.heartbeat.beat()).toBe(true);
  });

  it('a lapsed lease nobody took over renews (a suspend), and says how long it had lapsed', () => {
    const session = start(1000);
    const events: Array<{ kind: string; lapsedMs?: number }> = [];
    session.on((event) => events.push(event));
    now += 45_000;
    expect(session.heartbeat.beat()).toBe(true);
    expect(session.fenced).toBe(false);
    expect(events).toEqual([{ kind: 'lapsed', lapsedMs: 44_000 }]);
    expect(store.getRunDetail(session.runId, { eventsLimit: 1 }).events[0]?.type).toBe(
      'run.lease_renewed_late',
    );
    session.setProgress('still here');
    expect(store.getRun(session.runId).statusDetail).toBe('still here');
  });

  it.each(['sdk', 'cli'] as const)(
    'labels every event of a %s session with that surface, its late heartbeat too',
    (surface) => {
      const session = startRun(
        store,
        { projectPath: project, workflow: 'wf', title: 'kit' },
        { leaseMs: 1000, surface },
      );
      session.markRunning();
      session.setProgress('half way');
      now += 5_000;
      expect(session.heartbeat.beat()).toBe(true);
      session.complete({ done: true });
      const events = store.getRunDetail(session.runId, { eventsLimit: 50 }).events;
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining(['run.reserved', 'run.claimed', 'run.lease_renewed_late', 'run.completed']),
      );
      expect(new Set(events.map((e) => e.surface))).toEqual(new Set([surface]));
    },
  );

  it("refuses a claim whose surface is not a runner's, and writes nothing", () => {
    const session = start();
    const revision = store.getRun(session.runId).revision;
    const bad = { ...session.claim, surface: 'tray' } as unknown as typeof session.claim;
    let code = '';
    try {
      store.setProgress(bad, 'spoofed');
    } catch (error) {
      code = isRunwardenError(error) ? error.code : 'raw';
    }
    expect(code).toBe('VALIDATION');
    expect(store.getRun(session.runId).revision).toBe(revision);
  });

  it('an owner verified gone never renews its lapsed lease', () => {
    const session = start(1000, runnerOwner('gone', GONE_PID));
    expect(store.markRunnerGone(session.runId, session.claim.generation, 'gone', person)).toBe(true);
    now += 1001;
    expect(session.heartbeat.beat()).toBe(false);
    expect(session.fenced).toBe(true);
  });

  it('waits for an answer to a question and resumes the run', async () => {
    const session = start();
    session.markRunning();
    const interaction = store.requestInteraction(session.claim, {
      kind: 'decision',
      title: 'Ship?',
      choices: ['yes', 'no'],
    });
    expect(store.getRun(session.runId).status).toBe('waiting');
    const waiting = waitForInteraction(store, session.claim, interaction.id, {
      pollMs: 10,
      actor: session.actor,
    });
    store.answerInteraction(interaction.id, {
      interactionRevision: interaction.revision,
      idempotencyKey: 'k',
      payload: 'yes',
      actor: person,
    });
    await expect(waiting).resolves.toMatchObject({ status: 'answered', response: 'yes' });
    expect(store.getRun(session.runId).status).toBe('running');
  });

  it('applies the question’s deadline itself: default → answered, none → expired', async () => {
    const session = start(60_000);
    const withDefault = store.requestInteraction(session.claim, {
      kind: 'decision',
      title: 'A or B?',
      choices: ['a', 'b'],
      defaultResponse: 'b',
      hasDefault: true,
      deadlineAt: now - 1,
    });
    await expect(
      waitForInteraction(store, session.claim, withDefault.id, { pollMs: 10, actor: session.actor }),
    ).resolves.toMatchObject({ status: 'answered', response: 'b' });
    const noDefault = store.requestInteraction(session.claim, {
      kind: 'decision',
      title: 'C?',
      choices: ['c'],
      deadlineAt: now - 1,
    });
    await expect(
      waitForInteraction(store, session.claim, noDefault.id, { pollMs: 10, actor: session.actor }),
    ).resolves.toMatchObject({ status: 'expired' });
  });

  it('a command inside exec attaches to the enclosing run with the claim from its environment', async () => {
    expect(attachEnclosingRun(store, {})).toBeNull();
    const owner = start();
    owner.markRunning();
    const child = attachEnclosingRun(store, runnerEnv(dir.store, owner.claim));
    if (child === null) throw new Error('not attached');
    expect(child.runId).toBe(owner.runId);
    expect(() => child.startHeartbeat()).toThrow(/heartbeats it/);
    await child.step('from-child', () => undefined);
    child.notify('info', 'hello from the child');
    expect(store.getRunDetail(owner.runId, { eventsLimit: 50 }).attempts.map((a) => a.step)).toEqual([
      'from-child',
    ]);
    // Once the exec's claim is gone, the child is fenced too.
    now += 4000;
    expect(() => child.setProgress('late')).toThrow(/lease|fenced/i);
  });
});
