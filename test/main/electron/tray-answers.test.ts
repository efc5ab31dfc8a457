/**
 * Answering from the tray and from a notification, end to end below Electron: the real host over a real
 * store in a temp folder, a runner's question, the tray drawn from the host's own attention read (fake
 * Tray/Menu), and a click on a choice going through `interactions:answer` like the window's answer does.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppHost } from '../../../main/services/app-host';
import type { AppHost, DesktopNotice, ShellAttention } from '../../../main/services/host-types';
import { createNotifier, openQuestionsOf } from '../../../main/electron/notifier';
import { createQuickAnswers, quickAnswerKey } from '../../../main/electron/quick-answers';
import { createRunwardenTray, TRAY_MENU_RUNS } from '../../../main/electron/tray';
import type { ErrorInfo } from '../../../shared/errors';
import { createTempStore, reserveAndClaim, type TempStore } from '../../helpers/temp-store';
import { Notification, Tray, resetFakeElectron, type FakeMenuItem } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

let t: TempStore;
let host: AppHost | null = null;

beforeEach(() => resetFakeElectron());
afterEach(() => {
  host?.dispose();
  host = null;
  t?.cleanup();
});

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

function shell(platform: NodeJS.Platform = 'linux') {
  const reads: ShellAttention[] = [];
  const notices: DesktopNotice[] = [];
  const failures: Array<{ interactionId: string; error: ErrorInfo }> = [];
  let latest: ShellAttention | null = null;
  const answers = createQuickAnswers({
    dispatch: (channel, input) => (host as AppHost).dispatch(channel, input),
    changed: () => redraw(),
    failed: (answer, error) => failures.push({ interactionId: answer.interactionId, error }),
  });
  const tray = createRunwardenTray(
    {
      openRun: () => {},
      openWindow: () => {},
      answer: (answer) => void answers.answer(answer),
      setNotificationsPaused: () => {},
      quit: () => {},
    },
    platform,
  );
  const notifier = createNotifier({
    create: (options) => new Notification(options as Record<string, unknown>),
    isSupported: () => true,
    openRun: () => {},
    openWindow: () => {},
    paused: () => false,
    platform,
    questionById: (id) =>
      answers.hidden.has(id) ? null : (latest?.questions.find((q) => q.id === id) ?? null),
    answer: (answer) => void answers.answer(answer),
  });
  const redraw = () =>
    tray.update(latest?.summary ?? null, false, {
      questions: latest?.questions ?? [],
      hidden: answers.hidden,
      now: t.clock.now(),
    });
  host = createAppHost({
    storePath: t.path,
    surface: 'app',
    actorId: 'alice',
    clock: t.clock,
    notifier: {
      show: (notice) => {
        notices.push(notice);
        notifier.show(notice);
      },
    },
    push: () => {},
    attention: {
      items: TRAY_MENU_RUNS,
      watching: () => notifier.shownQuestionIds(),
      onAttention: (attention) => {
        reads.push(attention);
        latest = attention;
        answers.reconcile(attention.questions.map((q) => q.id));
        notifier.retire(openQuestionsOf(attention));
        redraw();
      },
    },
  });
  host.start();
  const menu = (): FakeMenuItem[] => Tray.created[0]?.menu?.items ?? [];
  return { reads, notices, failures, answers, menu, notifier };
}

/** A runner asks; a harmless write makes the host tick at once (as a person's click would). */
async function ask(choices = ['yes', 'no']) {
  const claim = reserveAndClaim(t, 600_000);
  const question = t.store.requestInteraction(claim, {
    kind: 'decision',
    title: 'Deploy to prod?',
    choices,
    hasDefault: true,
    defaultResponse: 'no',
    deadlineAt: t.clock.now() + 10 * 60_000,
  });
  await (host as AppHost).dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 } });
  return { claim, question };
}

describe('the tray answers questions through interactions:answer', () => {
  it("gets the summary and the runs' open questions from the host's one attention read", async () => {
    t = createTempStore();
    const { reads, menu } = shell();
    const { question } = await ask();
    const last = reads.at(-1);
    expect(last?.summary.needsYou).toBe(1);
    expect(last?.questions.map((q) => q.id)).toEqual([question.id]);
    const item = menu().find((i) => i.submenu !== undefined);
    expect(item?.label).toMatch(/^Deploy to prod\? \(/);
    expect(item?.submenu?.map((i) => i.label ?? `(${i.type})`)).toEqual([
      'yes',
      'no (default)',
      '(separator)',
      expect.stringMatching(/^default 'no' at \d\d:\d\d$/),
      'Open in Runwarden…',
    ]);
  });

  it('a single choice field is answered from the menu with its option; several picks open the run', async () => {
    t = createTempStore();
    const { menu, failures } = shell();
    const claim = reserveAndClaim(t, 600_000);
    const options = [{ label: 'Vitest', description: 'fast, ESM first' }, { label: 'Jest' }];
    const single = t.store.requestInteraction(claim, {
      kind: 'input',
      title: 'Which test runner?',
      fields: [{ name: 'q1', type: 'choice', required: true, options, allowOther: true }],
    });
    const multi = t.store.requestInteraction(claim, {
      kind: 'input',
      title: 'Which checks?',
      fields: [{ name: 'q1', type: 'choice', required: true, options, multi: true }],
    });
    await (host as AppHost).dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 } });
    const submenu = (title: string) =>
      menu()
        .find((i) => i.label?.startsWith(title) === true)
        ?.submenu?.map((i) => i) ?? [];
    await until(() => submenu('Which checks?').length > 0);
    expect(submenu('Which checks?').map((i) => i.label)).toEqual(['Pick several in Runwarden…']);
    const items = submenu('Which test runner?');
    expect(items.map((i) => i.label ?? `(${i.type})`)).toEqual([
      'Vitest — fast, ESM first',
      'Jest',
      '(separator)',
      'Answer in your own words in Runwarden…',
    ]);
    items[0]?.click?.();
    await until(() => t.store.getInteraction(single.id).status === 'settled');
    expect(t.store.getInteraction(single.id)).toMatchObject({
      status: 'settled',
      response: { q1: 'Vitest' },
      provenance: 'human',
    });
    expect(failures).toEqual([]);
    expect(t.store.getInteraction(multi.id).status).toBe('pending');
  });

  it('a click answers with compare-and-set; the question leaves the menu at once; a repeat is adopted', async () => {
    t = createTempStore();
    const { menu, answers, failures } = shell();
    const { question } = await ask();
    const yes = menu()
      .find((i) => i.submenu !== undefined)
      ?.submenu?.find((i) => i.label === 'yes');
    expect(yes?.click).toBeDefined();
    yes?.click?.();
    // Gone before the store has even answered.
    expect(menu().some((i) => i.submenu !== undefined)).toBe(false);
    expect(menu()[0]?.label).toBe('Nothing needs you');
    await until(() => t.store.getInteraction(question.id).status === 'settled');
    const settled = t.store.getInteraction(question.id);
    expect(settled).toMatchObject({ status: 'settled', response: 'yes', provenance: 'human' });
    // The same item clicked again (a stale menu): the same key, adopted, not a second answer.
    yes?.click?.();
    const submissions = () =>
      t.store
        .getRunDetail(question.runId, { eventsLimit: 10 })
        .submissions.map((s) => [s.idempotencyKey, s.outcome]);
    await until(() => submissions().length === 2);
    await flush();
    expect(failures).toEqual([]);
    expect(answers.hidden.has(question.id)).toBe(true);
    const key = quickAnswerKey({ interactionId: question.id, revision: question.revision, index: 0 });
    expect(submissions()).toEqual([
      [key, 'accepted'],
      [key, 'adopted'],
    ]);
  });

  it('another choice on a stale menu is refused by the store, and the person is told', async () => {
    t = createTempStore();
    const { menu, failures } = shell();
    const { question } = await ask();
    const items = menu().find((i) => i.submenu !== undefined)?.submenu ?? [];
    items.find((i) => i.label === 'yes')?.click?.();
    await until(() => t.store.getInteraction(question.id).status === 'settled');
    items.find((i) => i.label === 'no (default)')?.click?.();
    await until(() => failures.length > 0);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.interactionId).toBe(question.id);
    expect(failures[0]?.error.code).not.toBe('INTERNAL');
    expect(t.store.getInteraction(question.id).response).toBe('yes');
  });
});

describe('a question notification', () => {
  it('on macOS offers the choices as buttons; a button answers; the notification is one per question', async () => {
    t = createTempStore();
    const { notices } = shell('darwin');
    const { question } = await ask();
    expect(notices.map((n) => n.title)).toEqual(['Needs an answer: Deploy to prod?']);
    const shown = Notification.created.at(-1);
    expect(shown?.options).toMatchObject({
      id: `runwarden-question-${question.id}`,
      actions: [
        { type: 'button', text: 'yes' },
        { type: 'button', text: 'no' },
      ],
    });
    shown?.emit('action', { actionIndex: 1 }, 1);
    await until(() => t.store.getInteraction(question.id).status === 'settled');
    expect(t.store.getInteraction(question.id).response).toBe('no');
  });

  it('is closed once the question is answered elsewhere (the window)', async () => {
    t = createTempStore();
    const { notifier } = shell('win32');
    const { question } = await ask();
    const shown = Notification.created.at(-1);
    expect(notifier.questionsShown).toBe(1);
    const answered = await (host as AppHost).dispatch('interactions:answer', {
      interactionId: question.id,
      interactionRevision: question.revision,
      idempotencyKey: 'window-answer-1',
      payload: 'yes',
    });
    expect(answered.ok).toBe(true);
    await until(() => shown?.closed === true);
    expect(shown?.closed).toBe(true);
    expect(notifier.questionsShown).toBe(0);
  });

  it('is closed when answered from the CLI though its run is beyond what the tray lists; the menu and history agree', async () => {
    t = createTempStore();
    const { notifier, menu, reads } = shell('linux');
    const { question } = await ask();
    const first = Notification.created.at(-1);
    // More runs need you than the tray lists, each with a sooner deadline: the first question's run is left out.
    for (let i = 0; i < TRAY_MENU_RUNS + 1; i++) {
      const claim = reserveAndClaim(t, 600_000);
      t.store.requestInteraction(claim, {
        kind: 'decision',
        title: `Sooner ${i}?`,
        choices: ['yes', 'no'],
        deadlineAt: t.clock.now() + 60_000,
      });
    }
    await (host as AppHost).dispatch('settings:set', { patch: { sweepIntervalMs: 2_000 } });
    expect(reads.at(-1)?.summary.items.map((i) => i.run.id)).not.toContain(question.runId);
    // The burst is one summary toast; the first question keeps its own.
    expect(notifier.questionsShown).toBe(1);
    // `runwarden answer` from another process: the store alone knows.
    t.store.answerInteraction(question.id, {
      interactionRevision: question.revision,
      idempotencyKey: 'cli-answer-1',
      payload: 'yes',
      actor: { type: 'human', id: 'alice', surface: 'cli' },
    });
    await (host as AppHost).dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 } });
    await until(() => first?.closed === true);
    expect(first?.closed).toBe(true);
    expect(reads.at(-1)?.closed).toEqual([question.id]);
    expect(notifier.questionsShown).toBe(0);
    expect(Notification.created.filter((n) => n.closed)).toEqual([first]);
    const labels = menu().map((i) => i.label ?? '');
    expect(labels.some((label) => label.startsWith('Deploy to prod?'))).toBe(false);
    const history = await (host as AppHost).dispatch('notifications:list', {});
    const mine = history.ok ? history.value.find((n) => n.interactionId === question.id) : undefined;
    expect(mine).toMatchObject({ resolution: 'answered', readAt: expect.any(Number) });
  });
});
