import { describe, expect, it } from 'vitest';
import type { EventType, RunEvent } from '../../../shared/domain';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/views';
import {
  catchUpNotice,
  COALESCE_ABOVE,
  coalesce,
  noticesFor,
  ruleAllows,
} from '../../../main/services/notification-rules';

let seq = 0;
function event(type: EventType, runId: string, extra: Partial<RunEvent> = {}): RunEvent {
  seq += 1;
  return {
    seq,
    runId,
    runRevision: 1,
    type,
    actorType: 'runner',
    actorId: 'r1',
    surface: 'sdk',
    leaseGeneration: 1,
    payload: {},
    at: 1_000 + seq,
    ...extra,
  };
}

const labels: Record<string, { title: string; projectPath: string }> = {
  a: { title: 'Deploy api', projectPath: '/home/me/api' },
  b: { title: 'Nightly ETL', projectPath: '/home/me/data' },
};
const label = (id: string) => labels[id] ?? { title: `Run ${id}`, projectPath: '/home/me/other' };

function settings(patch: Partial<Settings> = {}): Settings {
  return { ...DEFAULT_SETTINGS, ...patch };
}

describe('notification rules', () => {
  it('notifies a new question, a lost runner and a failure by default, not a completion', () => {
    const notices = noticesFor(
      [
        event('interaction.requested', 'a'),
        event('run.runner_lost', 'b', { actorType: 'host' }),
        event('run.failed', 'a'),
        event('run.completed', 'b'),
        event('run.progress', 'a'),
      ],
      settings(),
      label,
    );
    expect(notices.map((n) => [n.title, n.level, n.runId])).toEqual([
      ['Needs an answer: Deploy api', 'attention', 'a'],
      ['Runner lost: Nightly ETL', 'attention', 'b'],
      ['Failed: Deploy api', 'failure', 'a'],
    ]);
  });

  it("quotes a failure's reason (a command's last stderr lines) in the notice body", () => {
    const failed = event('run.failed', 'a', {
      payload: { error: 'sh exited with code 2; last stderr: oops' },
    });
    expect(noticesFor([failed], settings(), label)).toMatchObject([
      {
        title: 'Failed: Deploy api',
        body: 'api — sh exited with code 2; last stderr: oops',
        level: 'failure',
      },
    ]);
  });

  it('follows per-project rules over the defaults', () => {
    const s = settings({
      notificationRules: {
        defaults: DEFAULT_SETTINGS.notificationRules.defaults,
        projects: { '/home/me/data': { completed: true, failed: false } },
      },
    });
    expect(ruleAllows(s, '/home/me/data', 'completed')).toBe(true);
    expect(ruleAllows(s, '/home/me/data', 'failed')).toBe(false);
    expect(ruleAllows(s, '/home/me/api', 'completed')).toBe(false);
    const notices = noticesFor([event('run.completed', 'b'), event('run.failed', 'b')], s, label);
    expect(notices.map((n) => n.title)).toEqual(['Completed: Nightly ETL']);
  });

  it('is silent while notifications are paused from the tray', () => {
    expect(noticesFor([event('run.failed', 'a')], settings({ notificationsPaused: true }), label)).toEqual(
      [],
    );
  });

  it('shows one notice per run and kind in a tick, and coalesces a burst into one summary', () => {
    const burst = ['c', 'd', 'e', 'f', 'g'].flatMap((id) => [
      event('interaction.requested', id),
      event('interaction.requested', id),
    ]);
    const notices = noticesFor(burst, settings(), label);
    expect(notices).toHaveLength(5);
    const shown = coalesce(notices);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.title).toBe('5 runs need you');
    expect(shown[0]?.runId).toBeNull();
    expect(coalesce(notices.slice(0, COALESCE_ABOVE))).toHaveLength(COALESCE_ABOVE);
  });

  it('links each notice to what it announces: its question, the effects an ending left of unknown outcome', () => {
    const asked = event('interaction.requested', 'a', { payload: { interactionId: 'q1', title: 'Ship?' } });
    const failed = event('run.failed', 'b', {
      payload: { error: 'boom', ambiguousEffects: [4, 5], reason: 'Effects 4, 5 were…' },
    });
    const lost = event('run.runner_lost', 'c', {
      actorType: 'host',
      payload: { ambiguousEffects: ['x', -1] },
    });
    const notices = noticesFor([asked, failed, lost], settings(), label);
    expect(notices.map((n) => [n.title, n.interactionId, n.effectIds])).toEqual([
      ['Needs an answer: Ship?', 'q1', undefined],
      ['Failed: Nightly ETL', undefined, [4, 5]],
      ['Runner lost: Run c', undefined, undefined],
    ]);
    // A burst of questions only is one summary that stands for them; one with a failure stands for nothing.
    const questions = ['c', 'd', 'e', 'f'].map((id, i) =>
      event('interaction.requested', id, { payload: { interactionId: `q${i}` } }),
    );
    expect(coalesce(noticesFor(questions, settings(), label))[0]?.questionIds).toEqual([
      'q0',
      'q1',
      'q2',
      'q3',
    ]);
    const mixed = noticesFor([...questions, failed], settings(), label);
    expect(coalesce(mixed)[0]?.questionIds).toBeUndefined();
    expect(catchUpNotice(noticesFor(questions, settings(), label))[0]?.questionIds).toHaveLength(4);
  });

  it("passes a runner's own notify through as plain text, but not the host's echo of its own notices", () => {
    const payload = { level: 'success', title: '<b>Shipped</b>', body: 'v1.2.3' };
    const notices = noticesFor(
      [event('notification', 'a', { payload }), event('notification', 'b', { payload, actorType: 'host' })],
      settings(),
      label,
    );
    expect(notices).toEqual([
      { title: '<b>Shipped</b>', body: 'v1.2.3', level: 'success', runId: 'a', recorded: true },
    ]);
  });
});

describe('orphans and the catch-up summary (docs/LIVENESS.md)', () => {
  it('an orphaned command is its own attention notice', () => {
    const [notice] = noticesFor([event('run.orphaned', 'b', { actorType: 'host' })], settings(), label);
    expect(notice).toMatchObject({
      title: 'Runner gone, command still running: Nightly ETL',
      level: 'attention',
      runId: 'b',
    });
  });

  it('what happened while no host acted is one summary, counted by kind', () => {
    const notices = noticesFor(
      [
        event('run.failed', 'a'),
        event('run.failed', 'b'),
        event('interaction.requested', 'c'),
        event('run.orphaned', 'd', { actorType: 'host' }),
      ],
      settings(),
      label,
    );
    const shown = catchUpNotice(notices);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({
      title: 'While Runwarden was closed: 2 runs failed, 1 question asked, 1 command left running',
      level: 'attention',
      runId: null,
    });
    expect(catchUpNotice([])).toEqual([]);
  });
});
