/**
 * Another machine's question in the tray (docs/REMOTES.md#tray-and-notifications), the Electron layer with
 * fakes (fake Tray/Menu/Notification): the host's tray read with box's runs and questions added
 * (withRemoteAttention) draws box's question under its run, named box:…; a click on a choice and a click on a
 * notification's button answer it with box's ids through interactions:answer, and "Open in Runwarden…" opens
 * box's run. The same path over a real sshd is test/main/services/remote-tray.test.ts.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RemoteMachineView } from '../../../shared/remotes';
import type { ShellAttention } from '../../../main/services/host-types';
import { createNotifier } from '../../../main/electron/notifier';
import { createQuickAnswers } from '../../../main/electron/quick-answers';
import { createRunwardenTray } from '../../../main/electron/tray';
import { withRemoteAttention } from '../../../main/services/remote/remote-attention';
import { Notification, Tray, resetFakeElectron, type FakeMenuItem } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

beforeEach(() => resetFakeElectron());

const box = {
  name: 'box',
  state: 'connected',
  readAt: 1,
  counts: { 'needs-answer': 1 },
  needsYouTotal: 1,
  needsYou: [
    {
      run: {
        id: 'run_01ab',
        title: 'Deploy billing',
        projectPath: '/srv/app',
        workflow: 'deploy',
        createdAt: 1,
      },
      display: { status: 'needs-answer', actions: ['answer'] },
      openInteractions: 1,
    },
  ],
  questions: [
    {
      id: 'int_01cd',
      runId: 'run_01ab',
      kind: 'decision',
      title: 'Deploy to production?',
      prompt: 'Deploy?',
      choices: ['yes', 'no'],
      revision: 3,
      status: 'pending',
      hasDefault: false,
      defaultResponse: null,
      deadlineAt: null,
      createdAt: 1,
    },
  ],
} as unknown as RemoteMachineView;

const local: ShellAttention = {
  summary: { counts: {}, needsYou: 0, items: [] },
  questions: [],
  closed: [],
};

describe('a remote question in the tray', () => {
  it('is drawn with box ids, answered from the menu and from a notification, and opens box runs', async () => {
    const sent: Array<{ interactionId: string; interactionRevision: number; payload: unknown }> = [];
    const opened: string[] = [];
    const answers = createQuickAnswers({
      dispatch: async (_channel, input) => {
        sent.push(input);
        return { ok: true, value: {} };
      },
      changed: () => {},
      failed: () => {},
    });
    const attention = withRemoteAttention(local, [box], 10);
    expect(attention.summary.needsYou).toBe(1);
    expect(attention.questions.map((q) => q.id)).toEqual(['box:int_01cd']);
    const tray = createRunwardenTray(
      {
        openRun: (runId) => opened.push(runId),
        openWindow: () => {},
        answer: (answer) => void answers.answer(answer),
        setNotificationsPaused: () => {},
        quit: () => {},
      },
      'linux',
    );
    tray.update(attention.summary, false, { questions: attention.questions, hidden: answers.hidden, now: 2 });
    const menu = (): FakeMenuItem[] => Tray.created[0]?.menu?.items ?? [];
    const item = menu().find((i) => i.submenu !== undefined);
    expect(item?.label).toContain('Deploy to production?');
    item?.submenu?.find((i) => i.label === 'yes')?.click?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent).toEqual([
      expect.objectContaining({ interactionId: 'box:int_01cd', interactionRevision: 3 }),
    ]);
    item?.submenu?.find((i) => i.label === 'Open in Runwarden…')?.click?.();
    expect(opened).toEqual(['box:run_01ab']);

    // A notification for box's question: its buttons answer with box's ids too.
    const notifier = createNotifier({
      create: (options) => new Notification(options as Record<string, unknown>),
      isSupported: () => true,
      openRun: (runId) => opened.push(runId),
      openWindow: () => {},
      paused: () => false,
      platform: 'darwin',
      questionById: (id) => attention.questions.find((q) => q.id === id) ?? null,
      answer: (answer) => void answers.answer({ ...answer, revision: 3 }),
    });
    notifier.show({
      title: 'Needs an answer: Deploy to production?',
      body: 'box: Deploy billing — on box',
      level: 'attention',
      runId: 'box:run_01ab',
      interactionId: 'box:int_01cd',
    });
    const shown = Notification.created.at(-1);
    expect(shown).toBeDefined();
    shown?.emit('action', { actionIndex: 1 }, 1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent.at(-1)).toMatchObject({ interactionId: 'box:int_01cd', payload: 'no' });
    shown?.emit('click', {});
    expect(opened.at(-1)).toBe('box:run_01ab');
  });
});
