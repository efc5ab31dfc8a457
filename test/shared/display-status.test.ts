import { describe, expect, it } from 'vitest';
import { displayStatus, worstTrayState } from '../../shared/display-status';
import type { Effect, Interaction, Lease, QueueEntry, Run, RunSnapshot } from '../../shared/domain';

const NOW = 1_000_000;

function snapshot(over: {
  run?: Partial<Run>;
  queue?: Partial<QueueEntry>;
  lease?: Partial<Lease> | null;
  interactions?: ReadonlyArray<Partial<Interaction>>;
  effects?: ReadonlyArray<Partial<Effect>>;
}): RunSnapshot {
  const run: Run = {
    id: 'run_1',
    projectId: 1,
    projectPath: '/p',
    workflow: 'w',
    title: 't',
    status: 'queued',
    paused: false,
    statusDetail: null,
    executionMode: 'interactive',
    originSession: null,
    parentRunId: null,
    lineage: null,
    input: null,
    output: null,
    error: null,
    command: null,
    requestKey: null,
    cancelRequested: false,
    pauseRequested: false,
    currentStep: null,
    revision: 1,
    createdAt: 0,
    updatedAt: 0,
    finishedAt: null,
    ...over.run,
  };
  const queue: QueueEntry = {
    runId: 'run_1',
    status: 'queued',
    availableAt: NOW,
    errorCode: null,
    errorDetail: null,
    consecutiveErrors: 0,
    updatedAt: 0,
    ...over.queue,
  };
  const lease: Lease | null =
    over.lease === null
      ? null
      : {
          runId: 'run_1',
          name: 'run:run_1',
          generation: 1,
          ownerType: null,
          ownerId: null,
          ownerPid: null,
          ownerHostname: null,
          ownerStartId: null,
          acquiredAt: null,
          heartbeatAt: null,
          expiresAt: null,
          ...over.lease,
        };
  const interactions = (over.interactions ?? []).map(
    (i, n) =>
      ({
        id: `int_${n}`,
        runId: 'run_1',
        attemptId: null,
        kind: 'decision',
        title: `q${n}`,
        prompt: '',
        choices: ['a'],
        fields: null,
        defaultResponse: null,
        hasDefault: false,
        deadlineAt: null,
        status: 'pending',
        revision: 1,
        presenterId: null,
        presenterExpiresAt: null,
        response: null,
        provenance: null,
        createdAt: 0,
        settledAt: null,
        ...i,
      }) as Interaction,
  );
  const effects = (over.effects ?? []).map(
    (e, n) =>
      ({
        id: n,
        runId: 'run_1',
        attemptId: null,
        type: 't',
        idempotencyKey: `k${n}`,
        summary: `effect ${n}`,
        status: 'ambiguous',
        attemptCount: 1,
        resolution: null,
        resolutionNote: null,
        resolvedBy: null,
        createdAt: 0,
        updatedAt: 0,
        ...e,
      }) as Effect,
  );
  return { run, queue, lease, interactions, effects };
}

const live = { ownerType: 'runner' as const, ownerId: 'r1', expiresAt: NOW + 1 };
const expired = { ownerType: 'runner' as const, ownerId: 'r1', expiresAt: NOW };

describe('displayStatus', () => {
  it.each([
    [
      'completed',
      { run: { status: 'completed' as const }, queue: { status: 'done' as const } },
      'completed',
      false,
    ],
    [
      'failed',
      { run: { status: 'failed' as const, error: 'boom\nstack' }, queue: { status: 'failed' as const } },
      'failed',
      false,
    ],
    [
      'stale (lease expired at exactly now)',
      { run: { status: 'running' as const }, queue: { status: 'running' as const }, lease: expired },
      'stale',
      true,
    ],
    [
      'needs-answer beats ambiguous',
      {
        run: { status: 'waiting' as const },
        queue: { status: 'running' as const },
        lease: live,
        interactions: [{}],
        effects: [{}],
      },
      'needs-answer',
      true,
    ],
    [
      'paused hides the question',
      {
        run: { status: 'waiting' as const, paused: true },
        queue: { status: 'parked' as const, errorCode: 'paused' as const },
        interactions: [{}],
      },
      'paused',
      false,
    ],
    [
      'ambiguous',
      {
        run: { status: 'waiting' as const },
        queue: { status: 'parked' as const, errorCode: 'effectAmbiguous' as const },
        effects: [{}],
      },
      'ambiguous',
      true,
    ],
    [
      'parked runnerExited needs a decision',
      {
        run: { status: 'running' as const },
        queue: { status: 'parked' as const, errorCode: 'runnerExited' as const },
      },
      'parked',
      true,
    ],
    [
      'running with a live owner',
      { run: { status: 'running' as const }, queue: { status: 'running' as const }, lease: live },
      'running',
      false,
    ],
    [
      'waiting while its runner holds it (the answer is in, not read yet)',
      { run: { status: 'waiting' as const }, queue: { status: 'running' as const }, lease: live },
      'waiting',
      false,
    ],
    [
      'waiting, nobody holding it',
      { run: { status: 'waiting' as const }, queue: { status: 'running' as const } },
      'waiting',
      false,
    ],
    [
      'running, nobody holding it',
      { run: { status: 'running' as const }, queue: { status: 'running' as const } },
      'stale',
      true,
    ],
    ['queued, fresh', { queue: { availableAt: NOW } }, 'queued', false],
    ['queued, unattended for 5 min', { queue: { availableAt: NOW - 5 * 60_000 } }, 'queued', true],
  ] as const)('%s', (_name, over, status, needsYou) => {
    const d = displayStatus(snapshot(over), NOW);
    expect(d.status).toBe(status);
    expect(d.needsYou).toBe(needsYou);
  });

  it('offers requestCancel, never cancel, while a live owner holds the run', () => {
    const d = displayStatus(
      snapshot({ run: { status: 'running' }, queue: { status: 'running' }, lease: live }),
      NOW,
    );
    expect(d.liveOwner).toBe(true);
    expect(d.actions).toEqual(['requestCancel', 'requestPause']);
    expect(
      displayStatus(
        snapshot({ run: { status: 'running' }, queue: { status: 'running' }, lease: expired }),
        NOW,
      ).actions,
    ).toEqual(['cancel']);
  });

  it('ignores settled and cancelled interactions and non-ambiguous effects', () => {
    const d = displayStatus(
      snapshot({
        run: { status: 'running' },
        queue: { status: 'running' },
        lease: live,
        interactions: [{ status: 'settled' }, { status: 'cancelled' }],
        effects: [{ status: 'applied' }],
      }),
      NOW,
    );
    expect(d.status).toBe('running');
  });

  it('sourceChanged offers resume anyway', () => {
    const d = displayStatus(
      snapshot({ run: { status: 'running' }, queue: { status: 'parked', errorCode: 'sourceChanged' } }),
      NOW,
    );
    expect(d).toMatchObject({
      status: 'parked',
      parkReason: 'sourceChanged',
      actions: ['resumeAnyway', 'pause', 'cancel'],
    });
  });
});

describe('worstTrayState', () => {
  it('orders needs-answer > stale > failed > running > idle', () => {
    expect(worstTrayState({ running: 1, failed: 1, stale: 1, 'needs-answer': 1 })).toBe('needs-answer');
    expect(worstTrayState({ running: 1, failed: 1, stale: 1 })).toBe('stale');
    expect(worstTrayState({ running: 1, failed: 1 })).toBe('failed');
    expect(worstTrayState({ running: 1 })).toBe('running');
    expect(worstTrayState({ completed: 3 })).toBe('idle');
  });
});

describe('displayStatus with a liveness verdict (docs/LIVENESS.md)', () => {
  const owned = { ownerType: 'runner', ownerId: 'exec:h:1', ownerPid: 1, expiresAt: NOW - 1 } as const;
  const running = { run: { status: 'running' }, queue: { status: 'running' } } as const;

  it('a verifiably alive owner is live past its lease, with a note; a gone one is stale before it', () => {
    const late = displayStatus(snapshot({ ...running, lease: owned }), NOW, undefined, {
      supervisor: 'alive',
      command: 'unknown',
    });
    expect(late).toMatchObject({
      status: 'running',
      liveOwner: true,
      actions: ['requestCancel', 'requestPause'],
    });
    expect(late.reason).toContain('Heartbeat late');
    const gone = displayStatus(
      snapshot({ ...running, lease: { ...owned, expiresAt: NOW + 3_600_000 } }),
      NOW,
      undefined,
      {
        supervisor: 'gone',
        command: 'gone',
      },
    );
    expect(gone).toMatchObject({ status: 'stale', liveOwner: false, actions: ['cancel'] });
  });

  it('an agent session whose process is gone shows how it ended, never stale (docs/AGENTS.md#died)', () => {
    const gone = { supervisor: 'gone', command: 'unknown' } as const;
    const session = (agent: string, run: Partial<Run>) =>
      snapshot({
        run: { status: 'running', originSession: `agent:${agent}`, ...run },
        queue: { status: 'running' },
        lease: { ...owned, expiresAt: NOW + 86_400_000 },
        interactions: run.status === 'waiting' ? [{ status: 'pending' }] : [],
      });
    // Asking, killed: died at once, its question no longer in front of a person.
    expect(displayStatus(session('claude-code', { status: 'waiting' }), NOW, undefined, gone)).toMatchObject({
      status: 'failed',
      reason: 'Failed: Claude Code died: its process is gone and the session never ended.',
      needsYou: false,
      actions: [],
    });
    // Codex never says a session ended: gone while waiting for a prompt, it completed; in a turn, it died.
    const atPrompt = session('codex', { statusDetail: 'Waiting for your next prompt' });
    expect(displayStatus(atPrompt, NOW, undefined, gone)).toMatchObject({ status: 'completed' });
    const inTurn = session('codex', { statusDetail: 'Working' });
    expect(displayStatus(inTurn, NOW, undefined, gone).reason).toBe(
      'Failed: Codex died: its process is gone and the session never ended.',
    );
    // Alive, or not verifiable: as before.
    const alive = { supervisor: 'alive', command: 'unknown' } as const;
    expect(displayStatus(inTurn, NOW, undefined, alive).status).toBe('running');
    // Any other run whose process is gone is stale, as before.
    expect(displayStatus(snapshot({ ...running, lease: owned }), NOW, undefined, gone).status).toBe('stale');
  });

  it('supervisor gone and command alive is orphaned, under Needs you, with only Stop the command', () => {
    const orphan = displayStatus(
      snapshot({ ...running, lease: { ...owned, commandPgid: 77 } }),
      NOW,
      undefined,
      {
        supervisor: 'gone',
        command: 'alive',
      },
    );
    expect(orphan).toMatchObject({
      status: 'orphaned',
      needsYou: true,
      liveOwner: false,
      actions: ['stopCommand'],
    });
    expect(orphan.reason).toContain('process group 77');
    // Recorded by the sweeper, it stays orphaned whatever the clock, until the command is verified gone.
    const recorded = snapshot({ ...running, lease: { ...owned, orphanedAt: NOW - 5 } });
    expect(displayStatus(recorded, NOW + 3_600_000).status).toBe('orphaned');
    // Where this host cannot see the command (another machine), Stop the command would be refused: nothing
    // is offered, and the reason says where to stop it (the window and `show` give the command).
    const elsewhere = displayStatus(recorded, NOW);
    expect(elsewhere.actions).toEqual([]);
    expect(elsewhere.reason).toContain('where this machine cannot see or stop it');
    expect(elsewhere.reason).toContain('stop it there');
    expect(displayStatus(recorded, NOW, undefined, { supervisor: 'gone', command: 'gone' }).status).toBe(
      'stale',
    );
    expect(worstTrayState({ orphaned: 1 })).toBe('stale');
  });

  it('a finished run with an unresolved ambiguous effect needs you and offers no retry', () => {
    const cancelled = snapshot({
      run: { status: 'cancelled' },
      queue: { status: 'cancelled' },
      effects: [{ status: 'ambiguous', summary: '€4,180 to partners' }],
    });
    expect(displayStatus(cancelled, NOW)).toMatchObject({
      status: 'ambiguous',
      needsYou: true,
      actions: ['resolveEffect'],
    });
    expect(displayStatus(cancelled, NOW).reason).toContain('€4,180 to partners');
    // Its reasons read as sentences, not run together ("…mid-payment Unknown whether…").
    const died = snapshot({
      run: { status: 'cancelled', statusDetail: 'Runner died mid-payment' },
      queue: { status: 'cancelled' },
      effects: [{ status: 'ambiguous', summary: 'Pay out partners' }],
    });
    expect(displayStatus(died, NOW).reason).toBe(
      'Cancelled: Runner died mid-payment. Unknown whether "Pay out partners" happened. Resolve it before retrying.',
    );
    const resolved = snapshot({ run: { status: 'cancelled' }, queue: { status: 'cancelled' } });
    expect(displayStatus(resolved, NOW)).toMatchObject({
      status: 'cancelled',
      needsYou: false,
      actions: ['retry'],
    });
  });
});

describe('messages say what is true, with one next step', () => {
  it('two unknown outcomes on a finished run: "Resolve each", not "Resolve it"', () => {
    const info = displayStatus(
      snapshot({
        run: { status: 'failed', finishedAt: 1 },
        queue: { status: 'failed' },
        effects: [
          { status: 'ambiguous', summary: 'a' },
          { status: 'ambiguous', summary: 'b' },
        ],
      }),
      NOW,
    );
    expect(info.reason).toContain('2 side effects with an unknown outcome. Resolve each before retrying.');
  });

  it('a cancel already requested of a live runner is said, and not offered again', () => {
    const running = {
      run: { status: 'running' as const },
      queue: { status: 'running' as const },
      lease: { ownerType: 'runner' as const, ownerId: 'r', expiresAt: NOW + 10_000 },
    };
    expect(displayStatus(snapshot(running), NOW).actions).toContain('requestCancel');
    const requested = displayStatus(
      snapshot({ ...running, run: { ...running.run, cancelRequested: true } }),
      NOW,
    );
    expect(requested.reason).toBe('Running. A cancel was requested; the runner stops at its next heartbeat.');
    expect(requested.actions).toEqual(['requestPause']);
  });
});
