import { describe, expect, it } from 'vitest';
import type { NotificationConstructorOptions } from 'electron';
import {
  addBounded,
  isRetired,
  createNotifier,
  notificationBody,
  notificationOptions,
  openQuestionsOf,
  plainNotificationText,
  questionActivation,
  type NotifierDeps,
} from '../../../main/electron/notifier';
import type { DesktopNotice } from '../../../main/services/host-types';
import type { Interaction } from '../../../shared/domain';
import { Notification } from './fake-electron';

const notice = (overrides: Partial<DesktopNotice> = {}): DesktopNotice => ({
  title: 'Run needs an answer',
  body: 'Deploy to prod? <a href="https://evil.example">yes</a> & more',
  level: 'attention',
  runId: 'run_1',
  ...overrides,
});

function notifier(overrides: Partial<NotifierDeps> = {}) {
  const calls: string[] = [];
  const created: Notification[] = [];
  const deps: NotifierDeps = {
    create: (options: NotificationConstructorOptions) => {
      const n = new Notification(options as Record<string, unknown>);
      created.push(n);
      return n;
    },
    isSupported: () => true,
    openRun: (runId) => calls.push(`open-run ${runId}`),
    openWindow: () => calls.push('open-window'),
    paused: () => false,
    platform: 'linux',
    ...overrides,
  };
  return { n: createNotifier(deps), calls, created };
}

describe('notification text (plain text)', () => {
  it('on Linux escapes markup in the body, so servers with body-markup show it as typed', () => {
    expect(notificationBody('<b>x</b> & <a href="u">l</a>', 'linux')).toBe(
      '&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href="u"&gt;l&lt;/a&gt;',
    );
  });

  it.each(['darwin', 'win32'] as const)(
    'on %s leaves the text as it is (rendered as text there)',
    (platform) => {
      expect(notificationBody('<b>x</b> & y', platform)).toBe('<b>x</b> & y');
    },
  );

  it('never escapes the title (not markup anywhere), but strips control characters and caps length', () => {
    expect(plainNotificationText('a\u0000b\u001bc <i>', 100)).toBe('a b c <i>');
    expect(plainNotificationText('x'.repeat(500), 120)).toHaveLength(120);
    // A right-to-left override in a folder name shows, instead of reversing what follows it.
    expect(plainNotificationText('Build in /tmp/\u202egpj.exe', 100)).toBe('Build in /tmp/<U+202E>gpj.exe');
    expect(notificationOptions(notice({ title: '<b>t</b>' }), 'linux').title).toBe('<b>t</b>');
  });

  it.each([
    ['attention', false, 'critical'],
    ['failure', false, 'normal'],
    ['success', true, 'normal'],
    ['info', true, 'normal'],
  ] as const)('%s: silent %s, urgency %s', (level, silent, urgency) => {
    expect(notificationOptions(notice({ level }), 'linux')).toMatchObject({ silent, urgency });
  });
});

describe('createNotifier (fake Notification)', () => {
  it('shows the notice; a click opens its run', () => {
    const { n, calls, created } = notifier();
    n.show(notice());
    expect(created).toHaveLength(1);
    const shown = created[0] as Notification;
    expect(shown.shown).toBe(true);
    expect(shown.options.body).not.toContain('<a');
    shown.emit('click');
    expect(calls).toEqual(['open-run run_1']);
  });

  it('a click on a notice without a run opens the window', () => {
    const { n, calls, created } = notifier();
    n.show(notice({ runId: null }));
    created[0]?.emit('click');
    expect(calls).toEqual(['open-window']);
  });

  it('shows nothing while notifications are paused, or where the platform has none', () => {
    const paused = notifier({ paused: () => true });
    paused.n.show(notice());
    expect(paused.created).toHaveLength(0);
    const unsupported = notifier({ isSupported: () => false });
    unsupported.n.show(notice());
    expect(unsupported.created).toHaveLength(0);
  });
});

describe('question notifications', () => {
  const question = (overrides: Partial<Interaction> = {}): Interaction =>
    ({
      id: 'q1',
      runId: 'run_1',
      choices: ['yes', 'no'],
      revision: 1,
      status: 'pending',
      ...overrides,
    }) as Interaction;

  const ask = (overrides: Partial<DesktopNotice> = {}) => notice({ interactionId: 'q1', ...overrides });

  function questionNotifier(platform: NodeJS.Platform, q: Interaction | null = question()) {
    const answered: string[] = [];
    const read: string[] = [];
    const failures: string[] = [];
    const made = notifier({
      platform,
      questionById: () => q,
      answer: (a) => answered.push(`${a.interactionId} r${a.revision} ${a.choice}`),
      markRead: (runId) => read.push(runId),
      failed: (e) => failures.push(e),
      shown: () => failures.push('shown'),
    });
    return { ...made, answered, read, failures };
  }

  it.each(['darwin', 'win32'] as const)(
    'on %s: up to 3 choices as buttons, and a button answers',
    (platform) => {
      const { n, created, answered, read, calls } = questionNotifier(platform);
      n.show(ask());
      const shown = created[0] as Notification;
      expect(shown.options).toMatchObject({
        id: 'runwarden-question-q1',
        actions: [
          { type: 'button', text: 'yes' },
          { type: 'button', text: 'no' },
        ],
      });
      shown.emit('action', { actionIndex: 1 }, 1);
      expect(answered).toEqual(['q1 r1 no']);
      expect(read).toEqual(['run_1']);
      expect(calls).toEqual([]);
    },
  );

  it('on Linux no buttons (Electron has none there): a click opens the question, and is "seen", not answered', () => {
    const { n, created, answered, read, calls } = questionNotifier('linux');
    n.show(ask());
    expect(created[0]?.options.actions).toBeUndefined();
    created[0]?.emit('click');
    expect(calls).toEqual(['open-run run_1']);
    expect(read).toEqual(['run_1']);
    expect(answered).toEqual([]);
  });

  it('more than 3 choices: no buttons (the click opens the question)', () => {
    const { n, created } = questionNotifier('darwin', question({ choices: ['a', 'b', 'c', 'd'] }));
    n.show(ask());
    expect(created[0]?.options.actions).toBeUndefined();
  });

  it('one notification per question: the same notice is not repeated, new text replaces the old one', () => {
    const { n, created } = questionNotifier('win32');
    n.show(ask());
    n.show(ask());
    expect(created).toHaveLength(1);
    n.show(ask({ body: 'Deploy to prod? (asked again)' }));
    expect(created).toHaveLength(2);
    expect(created[0]?.closed).toBe(true);
    expect(created[1]?.options.id).toBe(created[0]?.options.id);
    expect(n.questionsShown).toBe(1);
  });

  it('retire closes notifications of questions no longer open', () => {
    const { n, created } = questionNotifier('darwin');
    n.show(ask());
    n.retire({ open: new Set(['q1']), runs: new Set(['run_1']), complete: true });
    expect(created[0]?.closed).toBe(false);
    n.retire({ open: new Set(), runs: new Set(['run_1']), complete: false });
    expect(created[0]?.closed).toBe(true);
    expect(n.questionsShown).toBe(0);
  });

  it('a question the store says closed is retired whatever the read listed, and only that one', () => {
    const { n, created } = questionNotifier('linux');
    n.show(ask());
    n.show(ask({ interactionId: 'q2', runId: 'run_2' }));
    expect(n.shownQuestionIds()).toEqual(['q1', 'q2']);
    // An incomplete read that left both runs out: only the store's word closes one.
    n.retire({ open: new Set(), runs: new Set(['other']), complete: false, closed: new Set(['q2']) });
    expect(created.map((c) => c.closed)).toEqual([false, true]);
    expect(n.shownQuestionIds()).toEqual(['q1']);
  });

  it('a summary of questions closes once every question it stands for closed; one of failures stays', () => {
    const { n, created } = questionNotifier('linux');
    n.show(notice({ title: '4 runs need you', runId: null, questionIds: ['a', 'b'] }));
    n.show(notice({ title: '5 run updates', runId: null, level: 'info' }));
    expect(n.shownQuestionIds()).toEqual(['a', 'b']);
    n.retire({ open: new Set(), runs: new Set(), complete: false, closed: new Set(['a']) });
    expect(created.map((c) => c.closed)).toEqual([false, false]);
    n.retire({ open: new Set(), runs: new Set(), complete: false, closed: new Set(['a', 'b']) });
    expect(created.map((c) => c.closed)).toEqual([true, false]);
    expect(n.shownQuestionIds()).toEqual([]);
  });

  it('openQuestionsOf reads an attention read: open questions, listed runs, completeness, closed ones', () => {
    const read = openQuestionsOf({
      summary: { items: [{ run: { id: 'r1' } }], needsYou: 2 },
      questions: [{ id: 'q1' }],
      closed: ['q9'],
    });
    expect(read).toEqual({
      open: new Set(['q1']),
      runs: new Set(['r1']),
      complete: false,
      closed: new Set(['q9']),
    });
  });

  it('a read that left the run out (beyond its limit) does not close its question; a complete one does', () => {
    const { n, created } = questionNotifier('win32');
    n.show(ask());
    n.retire({ open: new Set(), runs: new Set(['other']), complete: false });
    expect(created[0]?.closed).toBe(false);
    n.retire({ open: new Set(), runs: new Set(), complete: true });
    expect(created[0]?.closed).toBe(true);
  });

  it('a question beyond the read still gets one notification (keyed by its id), without buttons', () => {
    const { n, created } = questionNotifier('darwin', null);
    n.show(ask());
    n.show(ask());
    expect(created).toHaveLength(1);
    expect(created[0]?.options).toMatchObject({ id: 'runwarden-question-q1' });
    expect(created[0]?.options.actions).toBeUndefined();
  });

  it('other notices about a run with an open question stay plain (no buttons, not keyed)', () => {
    const { n, created } = questionNotifier('darwin');
    n.show(notice({ title: 'Runner lost: Deploy', level: 'attention' }));
    n.show(notice({ title: 'Your answer was not recorded', level: 'failure' }));
    expect(created).toHaveLength(2);
    for (const shown of created) {
      expect(shown.options.id).toBeUndefined();
      expect(shown.options.actions).toBeUndefined();
    }
  });

  it('a failed notification (macOS, unsigned) is reported, so it is logged and the tray says so', () => {
    const { n, created, failures } = questionNotifier('darwin', null);
    n.show(ask());
    created[0]?.emit('failed', {}, 'Notifications are not allowed for this application');
    expect(failures).toEqual(['Notifications are not allowed for this application']);
    // The next one that does show says notifications work again (the tray drops its warning).
    n.show(ask({ body: 'asked again' }));
    created[1]?.emit('show');
    expect(failures).toEqual(['Notifications are not allowed for this application', 'shown']);
  });

  it("Windows: a question's toast that timed out into Action Center is kept until retired, then removed", () => {
    const { n, created, answered } = questionNotifier('win32');
    n.show(ask());
    const toast = created[0] as Notification;
    toast.emit('close', { reason: 'timedOut' });
    expect(n.questionsShown).toBe(1);
    // Its button in Action Center still answers.
    toast.emit('action', { actionIndex: 0 }, 0);
    expect(answered).toEqual(['q1 r1 yes']);
    n.show(ask({ body: 'again' }));
    const second = created[1] as Notification;
    second.emit('close', { reason: 'timedOut' });
    n.retire({ open: new Set(), runs: new Set(['run_1']), complete: true });
    expect(second.closed).toBe(true);
    expect(n.questionsShown).toBe(0);
  });

  it('a toast the person dismissed is let go (nothing left to remove)', () => {
    const { n, created } = questionNotifier('win32');
    n.show(ask());
    created[0]?.emit('close', { reason: 'userCanceled' });
    expect(n.questionsShown).toBe(0);
  });

  it('Windows activation of a toast the app no longer holds answers it (a button) or opens it (a click)', () => {
    const button = questionNotifier('win32');
    button.n.activate({
      type: 'action',
      arguments: 'type=action&action=1&tag=runwarden-question-q1',
      actionIndex: 1,
    });
    expect(button.answered).toEqual(['q1 r1 no']);
    expect(button.read).toEqual(['run_1']);
    // The same activation again (Windows may deliver both) does not answer twice.
    button.n.activate({
      type: 'action',
      arguments: 'type=action&action=1&tag=runwarden-question-q1',
      actionIndex: 1,
    });
    expect(button.answered).toEqual(['q1 r1 no']);

    const click = questionNotifier('win32');
    click.n.activate({ type: 'click', arguments: 'tag=runwarden-question-q1' });
    expect(click.calls).toEqual(['open-run run_1']);
    expect(click.answered).toEqual([]);
  });

  it('activation of a toast the app still holds is left to its own events (no second answer)', () => {
    const { n, created, answered } = questionNotifier('win32');
    n.show(ask());
    const args = {
      type: 'action',
      arguments: 'type=action&action=0&tag=runwarden-question-q1',
      actionIndex: 0,
    };
    n.activate(args);
    expect(answered).toEqual([]);
    created[0]?.emit('action', { actionIndex: 0 }, 0);
    n.activate(args);
    expect(answered).toEqual(['q1 r1 yes']);
  });

  it('ignores activations that are not a question of ours or name no valid button', () => {
    for (const activation of [
      { type: 'action', arguments: 'type=action&action=0&tag=someone-else' },
      { type: 'action', arguments: 'type=action&action=-1&tag=runwarden-question-q1' },
      { type: 'click', arguments: 'tag=runwarden-question-' },
    ]) {
      expect(questionActivation(activation)).toBeNull();
    }
    expect(
      questionActivation({ type: 'action', arguments: 'type=action&action=2&tag=runwarden-question-a%26b' }),
    ).toEqual({
      interactionId: 'a&b',
      actionIndex: 2,
    });
  });
});

describe('isRetired (which question notifications an attention read closes)', () => {
  const read = (open: string[], runs: string[], complete: boolean) => ({
    open: new Set(open),
    runs: new Set(runs),
    complete,
  });

  it('keeps a question that is still open, even in a complete read', () => {
    expect(isRetired('q1', 'r1', read(['q1'], ['r1'], true))).toBe(false);
  });

  it('retires a question no longer open when its run was listed', () => {
    expect(isRetired('q1', 'r1', read([], ['r1'], false))).toBe(true);
  });

  it('keeps a question of a run the read left out, unless the read was complete', () => {
    expect(isRetired('q1', 'r9', read([], ['r1'], false))).toBe(false);
    expect(isRetired('q1', null, read([], ['r1'], false))).toBe(false);
    expect(isRetired('q1', 'r9', read([], ['r1'], true))).toBe(true);
    expect(isRetired('q1', null, read([], [], true))).toBe(true);
  });
});

describe('addBounded', () => {
  it('keeps at most max entries, dropping the oldest first', () => {
    const set = new Set<number>();
    for (const n of [1, 2, 3, 4]) addBounded(set, n, 3);
    expect([...set]).toEqual([2, 3, 4]);
    addBounded(set, 3, 3);
    expect([...set]).toEqual([2, 3, 4]);
  });
});
