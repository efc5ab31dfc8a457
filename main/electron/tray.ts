/**
 * The tray (docs/DESKTOP-CHECKLIST.md#tray): the icon shows the worst state (needs-answer > stale > failed >
 * running > idle), the tooltip the count of runs that need you, and the menu lists them: each open question
 * as a submenu whose choices answer it (quick-answers.ts; a decision's choices, or the options of a single
 * choice with their descriptions), with its deadline and default when they matter, and an item that opens
 * the run at the question, saying why when only the window can answer it (several picks or questions, the
 * person's own words, fields);
 * every other run (stale, orphaned, an effect to resolve) as an item that opens it. Then the notification
 * pause switch, Open and Quit. `trayModel` is pure; `createRunwardenTray` only renders it with Electron.
 */
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import { worstTrayState, type TrayState } from '../../shared/display-status';
import type { Interaction } from '../../shared/domain';
import { quickForm } from '../../shared/quick-choices';
import type { AttentionSummary } from '../../shared/views';
import type { Disposer } from './disposables';
import type { QuickAnswer } from './quick-answers';
import { templateTrayImage } from './template-image';
import { TRAY_ICON_PNGS } from './tray-icons';

/** At most this many runs in the menu; the rest are one "and N more" line that opens the window. */
export const TRAY_MENU_RUNS = 8;
const MAX_LABEL = 60;
/** Choices shown per question; a question with more is answered in the window. */
export const TRAY_MAX_CHOICES = 8;
/** A default that applies within this long is shown next to a choice question. */
export const DEFAULT_SOON_MS = 60 * 60_000;

const STATE_WORDS: Record<TrayState, string> = {
  'needs-answer': 'waiting for an answer',
  stale: 'a runner stopped responding',
  failed: 'a run failed',
  running: 'runs in progress',
  idle: 'nothing running',
};

/**
 * Run titles are untrusted text (a runner writes them). Native menus treat `&` as a mnemonic marker, so it is doubled;
 * control characters and line breaks are flattened; long titles are cut.
 */
export function menuLabelText(text: string): string {
  // oxlint-disable-next-line no-control-regex -- stripping control characters is the point
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  const cut = flat.length > MAX_LABEL ? `${flat.slice(0, MAX_LABEL - 1)}…` : flat;
  return cut.replace(/&/g, '&&');
}

export interface TrayChoice {
  label: string;
  answer: QuickAnswer;
}

export type TrayMenuEntry =
  | { kind: 'run'; label: string; runId: string }
  | {
      kind: 'question';
      label: string;
      runId: string;
      interactionId: string;
      /** Empty for a form (several picks or questions, fields or free text): it is answered in the window. */
      choices: TrayChoice[];
      /** The last item, which opens the run at its question: says why when the tray cannot answer it. */
      open: string;
      /** "default 'no' at 14:05", when the deadline and default are worth knowing here. */
      note: string | null;
    }
  | { kind: 'more'; label: string }
  | { kind: 'heading'; label: string }
  | { kind: 'separator' }
  | { kind: 'notice'; label: string }
  | { kind: 'toggle-notifications'; label: string; paused: boolean }
  | { kind: 'open'; label: string }
  | { kind: 'quit'; label: string };

export interface TrayModel {
  state: TrayState;
  tooltip: string;
  /** Short text next to the icon where the platform shows one (macOS). */
  title: string;
  entries: TrayMenuEntry[];
}

/** What the tray knows besides the summary: the open questions of its runs, and the clock. */
export interface TrayExtras {
  /** Open questions of the summary's runs (one read with the summary, see app-host.ts). */
  questions?: readonly Interaction[];
  /** Questions just answered from here: not shown again while the store catches up. */
  hidden?: ReadonlySet<string>;
  now?: number;
  /** Why notifications cannot be shown, when they cannot (macOS without a signed build): said in the menu. */
  notificationsUnavailable?: string | null;
}

/** "14:05" today, "Dec 2 14:05" on another day (the person's local time). */
export function clockTime(at: number, now: number): string {
  const date = new Date(at);
  const hhmm = `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
  if (date.toDateString() === new Date(now).toDateString()) return hhmm;
  return `${date.toLocaleDateString('en-US', { month: 'short', day: 'numeric' })} ${hhmm}`;
}

function defaultText(value: unknown): string | null {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return `'${String(value)}'`;
  return null;
}

/**
 * The line under a question: a form always says when its default applies (or when it expires); a choice
 * question only when that is soon, since its choices are right there.
 */
export function questionNote(question: Interaction, now: number): string | null {
  if (question.deadlineAt === null) return null;
  const isForm = question.choices === null || question.choices.length === 0;
  if (!isForm && question.deadlineAt - now > DEFAULT_SOON_MS) return null;
  const at = clockTime(question.deadlineAt, now);
  if (!question.hasDefault) return `expires at ${at} without an answer`;
  const value = defaultText(question.defaultResponse);
  return value === null ? `default applies at ${at}` : `default ${value} at ${at}`;
}

/** The item that opens the run, for a question only the window can answer: it says why. */
const WINDOW_ITEM: Record<'several-picks' | 'several-questions' | 'fields', (count: number) => string> = {
  'several-picks': () => 'Pick several in Runwarden…',
  'several-questions': (count) => `Answer its ${count} questions in Runwarden…`,
  fields: () => 'Answer in Runwarden…',
};

/** Whether `value` is the question's default (a decision's choice, or the one field's value). */
function isDefault(question: Interaction, field: string | null, value: string): boolean {
  if (!question.hasDefault) return false;
  const d = question.defaultResponse;
  if (field === null) return d === value;
  return d !== null && typeof d === 'object' && (d as Record<string, unknown>)[field] === value;
}

function questionEntry(question: Interaction, runTitle: string, now: number): TrayMenuEntry {
  const form = quickForm(question);
  const fits = form.kind === 'choices' && form.choices.length <= TRAY_MAX_CHOICES;
  const note = questionNote(question, now);
  const choices: TrayChoice[] = !fits
    ? []
    : form.choices.map((choice, index) => {
        const text = choice.description === null ? choice.value : `${choice.value} — ${choice.description}`;
        return {
          label: menuLabelText(isDefault(question, form.field, choice.value) ? `${text} (default)` : text),
          answer: {
            runId: question.runId,
            interactionId: question.id,
            revision: question.revision,
            field: form.field,
            choice: choice.value,
            index,
          },
        };
      });
  return {
    kind: 'question',
    runId: question.runId,
    interactionId: question.id,
    label: menuLabelText(`${question.title || question.prompt || 'A question'} (${runTitle})`),
    choices,
    // What the item that opens the run says: why this question is answered there, when it is.
    open:
      form.kind === 'window'
        ? WINDOW_ITEM[form.need](form.count)
        : !fits
          ? `Choose among ${form.choices.length} in Runwarden…`
          : form.otherInWindow
            ? 'Answer in your own words in Runwarden…'
            : 'Open in Runwarden…',
    // The default is the runner's text: a label like any other.
    note: note === null ? null : menuLabelText(note),
  };
}

/** What the tray shows for an attention summary (null before the first one arrives). */
export function trayModel(
  summary: AttentionSummary | null,
  notificationsPaused: boolean,
  extras: TrayExtras = {},
): TrayModel {
  const now = extras.now ?? Date.now();
  const hidden = extras.hidden ?? new Set<string>();
  const state = summary === null ? 'idle' : worstTrayState(summary.counts);

  const byRun = new Map<string, Interaction[]>();
  for (const question of extras.questions ?? []) {
    if (question.status !== 'pending' && question.status !== 'presenting') continue;
    const list = byRun.get(question.runId) ?? [];
    list.push(question);
    byRun.set(question.runId, list);
  }
  // A run whose every open question was just answered here leaves the menu (and the count) at once.
  const answeredHere = (summary?.items ?? []).filter((item) => {
    const open = byRun.get(item.run.id) ?? [];
    return open.length > 0 && open.every((q) => hidden.has(q.id));
  });
  const needsYou = Math.max(0, (summary?.needsYou ?? 0) - answeredHere.length);
  const tooltip =
    summary === null
      ? 'Runwarden: starting…'
      : needsYou > 0
        ? `Runwarden: ${needsYou} ${needsYou === 1 ? 'run needs' : 'runs need'} you (${STATE_WORDS[state]})`
        : `Runwarden: nothing needs you (${STATE_WORDS[state]})`;

  const entries: TrayMenuEntry[] = [];
  if (needsYou > 0 && summary !== null) {
    entries.push({
      kind: 'heading',
      label: needsYou === 1 ? '1 run needs you' : `${needsYou} runs need you`,
    });
    const shown = summary.items.filter((item) => !answeredHere.includes(item)).slice(0, TRAY_MENU_RUNS);
    for (const item of shown) {
      const title = item.run.title || item.run.workflow;
      const open = (byRun.get(item.run.id) ?? []).filter((q) => !hidden.has(q.id));
      if (open.length > 0) {
        for (const question of open) entries.push(questionEntry(question, title, now));
        continue;
      }
      entries.push({
        kind: 'run',
        runId: item.run.id,
        label: menuLabelText(`${item.display.status.replace(/[-_]/g, ' ')}: ${title}`),
      });
    }
    const rest = needsYou - shown.length;
    if (rest > 0) entries.push({ kind: 'more', label: `and ${rest} more…` });
    entries.push({ kind: 'separator' });
  } else if (summary !== null) {
    entries.push({ kind: 'heading', label: 'Nothing needs you' }, { kind: 'separator' });
  }
  if (extras.notificationsUnavailable) {
    entries.push({
      kind: 'notice',
      label: menuLabelText(`Notifications unavailable: ${extras.notificationsUnavailable}`),
    });
  }
  entries.push(
    {
      kind: 'toggle-notifications',
      paused: notificationsPaused,
      label: notificationsPaused ? 'Resume notifications' : 'Pause notifications',
    },
    { kind: 'separator' },
    { kind: 'open', label: 'Open Runwarden' },
    { kind: 'quit', label: 'Quit Runwarden' },
  );
  // The count next to the icon (macOS) is also the fallback when notifications cannot be shown.
  return { state, tooltip, title: needsYou > 0 ? String(needsYou) : '', entries };
}

export interface TrayActions {
  openRun(runId: string): void;
  /** Answer a question with one of its choices (quick-answers.ts). */
  answer(answer: QuickAnswer): void;
  openWindow(): void;
  setNotificationsPaused(paused: boolean): void;
  quit(): void;
}

/** Turns the model's entries into Electron menu items wired to the actions. */
export function trayMenuTemplate(
  entries: TrayMenuEntry[],
  actions: TrayActions,
): MenuItemConstructorOptions[] {
  return entries.map((entry): MenuItemConstructorOptions => {
    switch (entry.kind) {
      case 'run':
        return { label: entry.label, click: () => actions.openRun(entry.runId) };
      case 'question': {
        const submenu: MenuItemConstructorOptions[] = entry.choices.map((choice) => ({
          label: choice.label,
          click: () => actions.answer(choice.answer),
        }));
        if (submenu.length > 0) submenu.push({ type: 'separator' });
        if (entry.note !== null) submenu.push({ label: entry.note, enabled: false });
        submenu.push({ label: entry.open, click: () => actions.openRun(entry.runId) });
        return { label: entry.label, submenu };
      }
      case 'notice':
        return { label: entry.label, enabled: false };
      case 'more':
        return { label: entry.label, click: () => actions.openWindow() };
      case 'heading':
        return { label: entry.label, enabled: false };
      case 'separator':
        return { type: 'separator' };
      case 'toggle-notifications':
        return { label: entry.label, click: () => actions.setNotificationsPaused(!entry.paused) };
      case 'open':
        return { label: entry.label, click: () => actions.openWindow() };
      case 'quit':
        return { label: entry.label, click: () => actions.quit() };
    }
  });
}

/** The tray icon of a state, with its 2x representation for high-DPI screens. */
export function trayIcon(state: TrayState): NativeImage {
  const pngs = TRAY_ICON_PNGS[state];
  const image = nativeImage.createFromBuffer(Buffer.from(pngs.x1, 'base64'), { scaleFactor: 1 });
  image.addRepresentation({ scaleFactor: 2, buffer: Buffer.from(pngs.x2, 'base64') });
  return image;
}

export interface RunwardenTray {
  update(summary: AttentionSummary | null, notificationsPaused: boolean, extras?: TrayExtras): void;
  /** The menu as last drawn (read by the real-Electron tests through test-hooks.ts). */
  readonly menu: MenuItemConstructorOptions[];
  /** The native side, for the real-Electron tests: the Tray is alive, and the labels of the Menu it was given. */
  native(): { alive: boolean; menuLabels: string[] };
  dispose: Disposer;
}

export function createRunwardenTray(
  actions: TrayActions,
  platform: NodeJS.Platform = process.platform,
): RunwardenTray {
  const icons = new Map<TrayState, NativeImage>();
  const iconFor = (state: TrayState): NativeImage => {
    let icon = icons.get(state);
    if (icon === undefined) {
      icon = platform === 'darwin' ? templateTrayImage(trayIcon(state)) : trayIcon(state);
      icons.set(state, icon);
    }
    return icon;
  };
  const tray = new Tray(iconFor('idle'));
  let shownState: TrayState = 'idle';
  const onClick = (): void => actions.openWindow();
  // Windows and Linux open the window on a click; macOS shows the menu on click instead.
  if (platform !== 'darwin') tray.on('click', onClick);

  const update = (
    summary: AttentionSummary | null,
    notificationsPaused: boolean,
    extras: TrayExtras = {},
  ): void => {
    if (tray.isDestroyed()) return;
    const model = trayModel(summary, notificationsPaused, extras);
    if (model.state !== shownState) {
      tray.setImage(iconFor(model.state));
      shownState = model.state;
    }
    tray.setToolTip(model.tooltip);
    if (platform === 'darwin') tray.setTitle(model.title);
    menu = trayMenuTemplate(model.entries, actions);
    nativeMenu = Menu.buildFromTemplate(menu);
    tray.setContextMenu(nativeMenu);
  };
  let menu: MenuItemConstructorOptions[] = [];
  let nativeMenu: Menu | null = null;
  update(null, false);

  return {
    update,
    get menu() {
      return menu;
    },
    native: () => ({
      alive: !tray.isDestroyed(),
      menuLabels: tray.isDestroyed() ? [] : (nativeMenu?.items ?? []).map((item) => item.label),
    }),
    dispose: () => {
      tray.off('click', onClick);
      if (!tray.isDestroyed()) tray.destroy();
    },
  };
}
