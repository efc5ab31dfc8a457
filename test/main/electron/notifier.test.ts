import { describe, expect, it } from 'vitest';
import type { NotificationConstructorOptions } from 'electron';
import {
  createNotifier,
  notificationBody,
  notificationOptions,
  plainNotificationText,
  type NotifierDeps,
} from '../../../main/electron/notifier';
import type { DesktopNotice } from '../../../main/services/host-types';
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

describe('notification text (SPEC §8: plain text)', () => {
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
    expect(notificationOptions(notice({ title: '<b>t</b>' }), 'linux').title).toBe('<b>t</b>');
  });

  it.each([
    ['attention', false, 'critical'],
    ['failure', false, 'critical'],
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
