import { beforeEach, describe, expect, it, vi } from 'vitest';
import { TRAY_STATE_ORDER, type DisplayStatus } from '../../../shared/display-status';
import type { Interaction, InteractionField } from '../../../shared/domain';
import type { AttentionSummary, RunListItem, StatusCounts } from '../../../shared/views';
import {
  createRunwardenTray,
  menuLabelText,
  trayMenuTemplate,
  trayModel,
  TRAY_MENU_RUNS,
  type TrayActions,
} from '../../../main/electron/tray';
import { TRAY_ICON_PNGS } from '../../../main/electron/tray-icons';
import { Tray, resetFakeElectron, type FakeImage, type FakeMenuItem } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

function item(id: string, title: string, status: DisplayStatus = 'needs-answer'): RunListItem {
  return {
    run: { id, title, workflow: 'deploy' },
    display: { status, needsYou: true },
  } as unknown as RunListItem;
}

function summary(counts: StatusCounts, items: RunListItem[], needsYou = items.length): AttentionSummary {
  return { counts, needsYou, items };
}

function actions(): TrayActions & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    openRun: (runId) => calls.push(`open-run ${runId}`),
    answer: (answer) => calls.push(`answer ${answer.interactionId} r${answer.revision} ${answer.choice}`),
    openWindow: () => calls.push('open-window'),
    setNotificationsPaused: (paused) => calls.push(`paused ${paused}`),
    quit: () => calls.push('quit'),
  };
}

function toggle(paused: boolean) {
  return trayModel(summary({}, []), paused).entries.find((e) => e.kind === 'toggle-notifications');
}

function trayOf(platform: NodeJS.Platform = 'linux') {
  const a = actions();
  const created = createRunwardenTray(a, platform);
  const tray = Tray.created[0];
  if (tray === undefined) throw new Error('no tray');
  const labels = () => (tray.menu?.items ?? []).map((i: FakeMenuItem) => i.label ?? `(${i.type})`);
  return { a, created, tray, labels };
}

describe('trayModel', () => {
  it.each([
    [{ 'needs-answer': 1, stale: 2, failed: 3, running: 4 }, 'needs-answer'],
    [{ stale: 2, failed: 3, running: 4 }, 'stale'],
    [{ failed: 3, running: 4, queued: 9 }, 'failed'],
    [{ running: 4, completed: 10 }, 'running'],
    [{ completed: 10, cancelled: 1 }, 'idle'],
    [{}, 'idle'],
  ] as Array<[StatusCounts, string]>)('counts %j → %s icon', (counts, state) => {
    expect(trayModel(summary(counts, []), false).state).toBe(state);
  });

  it('says what needs the person, with the count, in the tooltip and the macOS title', () => {
    const model = trayModel(
      summary({ 'needs-answer': 1, stale: 1 }, [item('r1', 'A'), item('r2', 'B', 'stale')]),
      false,
    );
    expect(model.tooltip).toBe('Runwarden: 2 runs need you (waiting for an answer)');
    expect(model.title).toBe('2');
    const one = trayModel(summary({ stale: 1 }, [item('r1', 'A', 'stale')]), false);
    expect(one.tooltip).toBe('Runwarden: 1 run needs you (a runner stopped responding)');
    const none = trayModel(summary({ running: 3 }, []), false);
    expect(none.tooltip).toBe('Runwarden: nothing needs you (runs in progress)');
    expect(none.title).toBe('');
  });

  it('before the first summary: idle and starting', () => {
    const model = trayModel(null, false);
    expect(model.state).toBe('idle');
    expect(model.tooltip).toMatch(/starting/);
    expect(model.entries.map((e) => e.kind)).toEqual(['toggle-notifications', 'separator', 'open', 'quit']);
  });

  it('lists the runs that need the person, then "and N more", then the fixed items', () => {
    const items = Array.from({ length: TRAY_MENU_RUNS + 3 }, (_, i) => item(`r${i}`, `Run ${i}`));
    const model = trayModel(summary({ 'needs-answer': items.length }, items, 20), false);
    const runs = model.entries.filter((e) => e.kind === 'run');
    expect(runs).toHaveLength(TRAY_MENU_RUNS);
    expect(runs[0]).toEqual({ kind: 'run', runId: 'r0', label: 'needs answer: Run 0' });
    expect(model.entries[0]).toEqual({ kind: 'heading', label: '20 runs need you' });
    expect(model.entries.find((e) => e.kind === 'more')).toEqual({
      kind: 'more',
      label: `and ${20 - TRAY_MENU_RUNS} more…`,
    });
    expect(model.entries.slice(-4).map((e) => e.kind)).toEqual([
      'toggle-notifications',
      'separator',
      'open',
      'quit',
    ]);
  });

  it('offers to pause or resume notifications according to the setting', () => {
    expect(toggle(false)).toMatchObject({ label: 'Pause notifications', paused: false });
    expect(toggle(true)).toMatchObject({ label: 'Resume notifications', paused: true });
  });
});

describe('menuLabelText (untrusted run titles)', () => {
  it.each([
    ['Deploy & verify', 'Deploy && verify'],
    ['line one\nline two\r\n\tthree', 'line one line two three'],
    ['<b>bold</b> <a href="https://x">link</a>', '<b>bold</b> <a href="https://x">link</a>'],
    ['zero\u0000width\u2028sep', 'zero width sep'],
    ['x'.repeat(100), `${'x'.repeat(59)}…`],
  ])('%j → %j', (input, output) => {
    expect(menuLabelText(input)).toBe(output);
  });
});

describe('trayMenuTemplate', () => {
  it('wires each entry to its action', () => {
    const a = actions();
    const model = trayModel(summary({ 'needs-answer': 1 }, [item('r7', 'Ask me')], 2), false);
    const template = trayMenuTemplate(model.entries, a);
    const click = (label: string) => {
      const entry = template.find((t) => t.label === label);
      if (entry?.click === undefined) throw new Error(`no clickable ${label}`);
      (entry.click as () => void)();
    };
    click('needs answer: Ask me');
    click('and 1 more…');
    click('Pause notifications');
    click('Open Runwarden');
    click('Quit Runwarden');
    expect(a.calls).toEqual(['open-run r7', 'open-window', 'paused true', 'open-window', 'quit']);
    expect(template.find((t) => t.label === '2 runs need you')).toMatchObject({ enabled: false });
    expect(template.filter((t) => t.type === 'separator')).toHaveLength(2);
  });
});

describe('createRunwardenTray (fake Tray)', () => {
  beforeEach(() => resetFakeElectron());

  it('starts idle with a menu, and a click on the icon opens the window (not macOS)', () => {
    const { tray, a, labels } = trayOf();
    expect((tray.image as FakeImage).buffers[0]).toEqual(Buffer.from(TRAY_ICON_PNGS.idle.x1, 'base64'));
    expect(labels()).toEqual(['Pause notifications', '(separator)', 'Open Runwarden', 'Quit Runwarden']);
    tray.emit('click');
    expect(a.calls).toEqual(['open-window']);
  });

  it('switches the icon (1x and 2x), tooltip and menu with each summary', () => {
    const { created, tray, labels } = trayOf();
    created.update(summary({ stale: 1, running: 2 }, [item('r1', 'Nightly ETL', 'stale')]), true);
    const image = tray.image as FakeImage;
    expect(image.scaleFactors).toEqual([1, 2]);
    expect(image.buffers).toEqual([
      Buffer.from(TRAY_ICON_PNGS.stale.x1, 'base64'),
      Buffer.from(TRAY_ICON_PNGS.stale.x2, 'base64'),
    ]);
    expect(tray.tooltip).toBe('Runwarden: 1 run needs you (a runner stopped responding)');
    expect(labels()).toContain('stale: Nightly ETL');
    expect(labels()).toContain('Resume notifications');
    expect(tray.title).toBe('');
  });

  it('sets the count as the title on macOS, where a click shows the menu instead', () => {
    const { created, tray, a } = trayOf('darwin');
    created.update(summary({ 'needs-answer': 3 }, [item('r1', 'A')], 3), false);
    expect(tray.title).toBe('3');
    tray.emit('click');
    expect(a.calls).toEqual([]);
  });

  it('has an icon for every tray state', () => {
    expect(Object.keys(TRAY_ICON_PNGS).toSorted()).toEqual([...TRAY_STATE_ORDER].toSorted());
  });

  it('dispose destroys the tray; later updates are ignored', () => {
    const { created, tray } = trayOf();
    created.dispose();
    expect(tray.destroyed).toBe(true);
    expect(tray.listenerCount('click')).toBe(0);
    created.update(summary({ failed: 1 }, []), false);
    expect(tray.tooltip).not.toMatch(/failed/);
  });
});

describe('trayModel with open questions', () => {
  const NOW = new Date(2026, 11, 1, 14, 0).getTime();
  function question(overrides: Partial<Interaction> = {}): Interaction {
    return {
      id: 'q1',
      runId: 'r1',
      attemptId: null,
      kind: 'decision',
      title: 'Ship it?',
      prompt: '',
      choices: ['yes', 'no'],
      fields: null,
      defaultResponse: null,
      hasDefault: false,
      deadlineAt: null,
      status: 'pending',
      revision: 2,
      presenterId: null,
      presenterExpiresAt: null,
      response: null,
      provenance: null,
      createdAt: NOW - 1000,
      settledAt: null,
      ...overrides,
    };
  }
  const withQuestion = (q: Interaction, extra: RunListItem[] = []) =>
    trayModel(summary({ 'needs-answer': 1 + extra.length }, [item('r1', 'Release 1.4'), ...extra]), false, {
      questions: [q],
      now: NOW,
    });

  it('lists a choice question with its choices as answers (revision kept for the compare-and-set)', () => {
    const model = withQuestion(question());
    const entry = model.entries.find((e) => e.kind === 'question');
    expect(entry).toEqual({
      kind: 'question',
      runId: 'r1',
      interactionId: 'q1',
      label: 'Ship it? (Release 1.4)',
      note: null,
      open: 'Open in Runwarden…',
      choices: [
        {
          label: 'yes',
          answer: { runId: 'r1', interactionId: 'q1', revision: 2, field: null, choice: 'yes', index: 0 },
        },
        {
          label: 'no',
          answer: { runId: 'r1', interactionId: 'q1', revision: 2, field: null, choice: 'no', index: 1 },
        },
      ],
    });
    expect(model.entries.some((e) => e.kind === 'run')).toBe(false);
  });

  it("shows the default and its time when it applies soon: default 'no' at 14:05", () => {
    const soon = withQuestion(
      question({ hasDefault: true, defaultResponse: 'no', deadlineAt: NOW + 5 * 60_000 }),
    );
    const entry = soon.entries.find((e) => e.kind === 'question');
    expect(entry).toMatchObject({ note: "default 'no' at 14:05" });
    expect(entry?.kind === 'question' && entry.choices.map((c) => c.label)).toEqual(['yes', 'no (default)']);
    const later = withQuestion(
      question({ hasDefault: true, defaultResponse: 'no', deadlineAt: NOW + 3 * 3600_000 }),
    );
    expect(later.entries.find((e) => e.kind === 'question')).toMatchObject({ note: null });
    const noDefault = withQuestion(question({ deadlineAt: NOW + 60_000 }));
    expect(noDefault.entries.find((e) => e.kind === 'question')).toMatchObject({
      note: 'expires at 14:01 without an answer',
    });
  });

  it('a form (fields) has no choices: it shows its deadline and default, and is answered in the window', () => {
    const form = question({
      choices: null,
      fields: [{ name: 'reason', type: 'string' }],
      hasDefault: true,
      defaultResponse: { reason: 'n/a' },
      deadlineAt: new Date(2026, 11, 2, 9, 30).getTime(),
    });
    const model = withQuestion(form);
    const entry = model.entries.find((e) => e.kind === 'question');
    expect(entry).toMatchObject({ choices: [], note: 'default applies at Dec 2 09:30' });
    const a = actions();
    const template = trayMenuTemplate(model.entries, a);
    const submenu = template.find((t) => t.label === 'Ship it? (Release 1.4)')?.submenu as Array<{
      label?: string;
      enabled?: boolean;
      click?: () => void;
    }>;
    expect(submenu.map((s) => s.label)).toEqual(['default applies at Dec 2 09:30', 'Answer in Runwarden…']);
    expect(submenu[0]?.enabled).toBe(false);
    submenu[1]?.click?.();
    expect(a.calls).toEqual(['open-run r1']);
  });

  const choiceField = (over: Partial<InteractionField> = {}): InteractionField => ({
    name: 'q1',
    type: 'choice',
    label: 'Which test runner?',
    required: true,
    options: [{ label: 'Vitest', description: 'fast, ESM first' }, { label: 'Jest' }],
    ...over,
  });
  const submenuOf = (model: ReturnType<typeof trayModel>, a: TrayActions) =>
    trayMenuTemplate(model.entries, a).find((t) => t.label === 'Ship it? (Release 1.4)')?.submenu as Array<{
      label?: string;
      click?: () => void;
    }>;

  it('a single choice field is answered from the menu like a decision, its descriptions beside its options', () => {
    const single = question({
      kind: 'input',
      choices: null,
      fields: [choiceField()],
      hasDefault: true,
      defaultResponse: { q1: 'Jest' },
    });
    const a = actions();
    const submenu = submenuOf(withQuestion(single), a);
    expect(submenu.map((s) => s.label)).toEqual([
      'Vitest — fast, ESM first',
      'Jest (default)',
      undefined,
      'Open in Runwarden…',
    ]);
    const entry = withQuestion(single).entries.find((e) => e.kind === 'question');
    // The pick answers the field: the payload the store takes is {q1: 'Vitest'} (quick-answers.ts).
    expect(entry?.kind === 'question' && entry.choices[0]?.answer).toEqual({
      runId: 'r1',
      interactionId: 'q1',
      revision: 2,
      field: 'q1',
      choice: 'Vitest',
      index: 0,
    });
    submenu[0]?.click?.();
    expect(a.calls).toEqual(['answer q1 r2 Vitest']);
    // Its own words too: the options stay, and the last item says the words are given in the window.
    const other = submenuOf(
      withQuestion(question({ choices: null, fields: [choiceField({ allowOther: true })] })),
      a,
    );
    expect(other.map((s) => s.label)).toEqual([
      'Vitest — fast, ESM first',
      'Jest',
      undefined,
      'Answer in your own words in Runwarden…',
    ]);
  });

  it('several picks or several questions open the run, and the item says why; nothing is guessed', () => {
    const a = actions();
    const multi = submenuOf(
      withQuestion(question({ choices: null, fields: [choiceField({ multi: true })] })),
      a,
    );
    expect(multi.map((s) => s.label)).toEqual(['Pick several in Runwarden…']);
    const two = question({
      choices: null,
      fields: [choiceField(), choiceField({ name: 'q2', label: 'Which linter?' })],
    });
    const several = submenuOf(withQuestion(two), a);
    expect(several.map((s) => s.label)).toEqual(['Answer its 2 questions in Runwarden…']);
    several[0]?.click?.();
    multi[0]?.click?.();
    expect(a.calls).toEqual(['open-run r1', 'open-run r1']);
  });

  it('a choice click answers; stale runs and runs with effects to resolve stay items that open them', () => {
    const model = withQuestion(question(), [
      item('r2', 'Nightly ETL', 'stale'),
      item('r3', 'Refund', 'ambiguous'),
    ]);
    const a = actions();
    const template = trayMenuTemplate(model.entries, a);
    const submenu = template.find((t) => t.label === 'Ship it? (Release 1.4)')?.submenu as Array<{
      label?: string;
      click?: () => void;
    }>;
    submenu.find((s) => s.label === 'no')?.click?.();
    const click = (label: string) =>
      (template.find((t) => t.label === label)?.click as (() => void) | undefined)?.();
    click('stale: Nightly ETL');
    click('ambiguous: Refund');
    expect(a.calls).toEqual(['answer q1 r2 no', 'open-run r2', 'open-run r3']);
  });

  it('a question answered here leaves the menu and the count at once', () => {
    const model = trayModel(
      summary({ 'needs-answer': 2 }, [item('r1', 'Release 1.4'), item('r2', 'Other')]),
      false,
      {
        questions: [question(), question({ id: 'q2', runId: 'r2' })],
        hidden: new Set(['q1']),
        now: NOW,
      },
    );
    expect(model.entries[0]).toEqual({ kind: 'heading', label: '1 run needs you' });
    expect(
      model.entries.filter((e) => e.kind === 'question').map((e) => e.kind === 'question' && e.interactionId),
    ).toEqual(['q2']);
    expect(model.title).toBe('1');
  });

  it('questions that are no longer open, or with too many choices for a menu, are not offered as answers', () => {
    const settled = withQuestion(question({ status: 'settled' }));
    expect(settled.entries.some((e) => e.kind === 'question')).toBe(false);
    expect(settled.entries.some((e) => e.kind === 'run')).toBe(true);
    const many = withQuestion(question({ choices: Array.from({ length: 12 }, (_, i) => `c${i}`) }));
    expect(many.entries.find((e) => e.kind === 'question')).toMatchObject({ choices: [] });
  });

  it('says so in the menu when notifications cannot be shown (the count stays as the badge)', () => {
    const model = trayModel(summary({ 'needs-answer': 1 }, [item('r1', 'A')]), false, {
      notificationsUnavailable: 'Notifications are not allowed for this application',
    });
    expect(model.entries.find((e) => e.kind === 'notice')).toEqual({
      kind: 'notice',
      // Cut like every menu label; the full reason is in the log.
      label: menuLabelText('Notifications unavailable: Notifications are not allowed for this application'),
    });
    expect(model.title).toBe('1');
  });
});

describe('createRunwardenTray on macOS', () => {
  beforeEach(() => resetFakeElectron());
  it('uses template images (black + alpha, tinted by the menu bar)', () => {
    const { tray } = trayOf('darwin');
    expect((tray.image as FakeImage).template).toBe(true);
    const { tray: linuxTray } = (() => {
      resetFakeElectron();
      return trayOf('linux');
    })();
    expect((linuxTray.image as FakeImage).template).toBe(false);
  });
});
