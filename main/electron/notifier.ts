/**
 * Desktop notifications: the host decides what to show and when (rules, coalescing); this shows it with
 * Electron's Notification, as plain text. A click opens the run (seen); a question's notification is one per
 * question, replaced rather than repeated, with its choices as buttons where the platform has them
 * (answered), and closed once the question is no longer open.
 */
import type { NotificationConstructorOptions } from 'electron';
import type { Interaction } from '../../shared/domain';
import { showInvisible } from '../../shared/terminal-text';
import type { DesktopNotice, Notifier } from '../services/host-types';
import type { QuickAnswer } from './quick-answers';

const MAX_TITLE = 120;
const MAX_BODY = 400;
/** Notifications kept referenced so their click handlers survive garbage collection. */
const MAX_LIVE = 20;

/**
 * Plain text for a notification (strings from the store are untrusted): control characters go, bidi and
 * invisible characters show as `<U+202E>` (a reversed folder name must not read as another), and length
 * is capped.
 */
export function plainNotificationText(text: string, max: number): string {
  // oxlint-disable-next-line no-control-regex -- stripping control characters is the point
  const flat = showInvisible(text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]+/g, ' ')).trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The body as the platform will render it. Electron hands the Linux body to libnotify unchanged, and
 * notification servers with the `body-markup` capability render `<b>`, `<a href>` and entities in it, so
 * on Linux markup characters are escaped: they show as typed and nothing becomes a link. (The summary line
 * is never markup.) macOS and Windows render the body as text already.
 */
export function notificationBody(text: string, platform: NodeJS.Platform): string {
  const plain = plainNotificationText(text, MAX_BODY);
  if (platform !== 'linux') return plain;
  return plain.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function notificationOptions(
  notice: DesktopNotice,
  platform: NodeJS.Platform,
): NotificationConstructorOptions {
  return {
    title: plainNotificationText(notice.title, MAX_TITLE),
    body: notificationBody(notice.body, platform),
    silent: notice.level === 'info' || notice.level === 'success',
    // Only a question is critical (it never times out and passes Do Not Disturb on Linux); a failure is not.
    urgency: notice.level === 'attention' ? 'critical' : 'normal',
  };
}

/** Buttons on a question's notification, at most (more would be cut off by the platforms). */
export const MAX_NOTIFICATION_ACTIONS = 3;

/** The Electron notification id of a question: macOS and Windows replace a shown one with the same id. */
export function questionNotificationId(interactionId: string): string {
  return `${QUESTION_ID_PREFIX}${interactionId}`;
}

/**
 * A question's choices as notification buttons, where Electron shows them: macOS (a signed app whose
 * Info.plist asks for alert-style notifications) and Windows, both emitting `action` with the button's index.
 * Linux notifications get none: a click opens the question.
 */
export function questionActions(
  question: Interaction,
  platform: NodeJS.Platform,
): NotificationConstructorOptions['actions'] {
  if (platform !== 'darwin' && platform !== 'win32') return undefined;
  const choices = question.choices ?? [];
  if (choices.length === 0 || choices.length > MAX_NOTIFICATION_ACTIONS) return undefined;
  return choices.map((choice) => ({ type: 'button' as const, text: plainNotificationText(choice, 40) }));
}

/** The part of Electron's Notification this uses. */
export interface ShownNotification {
  on(event: 'click', listener: () => void): unknown;
  /** Windows says why: `timedOut` means the toast left the screen for Action Center, where it can still be clicked. */
  on(event: 'close', listener: (details?: { reason?: string }) => void): unknown;
  on(event: 'show', listener: () => void): unknown;
  on(event: 'action', listener: (details: { actionIndex?: number }, actionIndex?: number) => void): unknown;
  on(event: 'failed', listener: (event: unknown, error: string) => void): unknown;
  show(): void;
  close(): void;
}

export interface NotifierDeps {
  create(options: NotificationConstructorOptions): ShownNotification;
  isSupported(): boolean;
  openRun(runId: string): void;
  openWindow(): void;
  /** The `notificationsPaused` setting, read at each notice. */
  paused(): boolean;
  platform: NodeJS.Platform;
  /** An open question by id, from the latest attention read (null: not open, or beyond what it read). */
  questionById?(interactionId: string): Interaction | null;
  /** Answer a question with a button's choice (quick-answers.ts). */
  answer?(answer: QuickAnswer): void;
  /** The person saw (clicked) or answered the run's notification: the window lists it as read too. */
  markRead?(runId: string): void;
  /** The platform refused to show it (macOS without a signed build): logged, and the tray says so. */
  failed?(error: string): void;
  /** One was shown: notifications work (again), whatever failed before. */
  shown?(): void;
}

/**
 * A Windows toast activation (`Notification.handleActivation`), as Electron encodes it in the toast's
 * arguments: `type=action&action=<button>&tag=<notification id>` for a button, `type=click`-like arguments
 * with the same tag for the toast itself.
 */
export interface ToastActivation {
  type: string;
  arguments: string;
  actionIndex?: number;
}

const QUESTION_ID_PREFIX = 'runwarden-question-';

/** The question a toast activation is about, and the button pressed (null: the toast itself was clicked). */
export function questionActivation(
  activation: ToastActivation,
): { interactionId: string; actionIndex: number | null } | null {
  const params = new URLSearchParams(activation.arguments);
  const tag = params.get('tag') ?? '';
  if (!tag.startsWith(QUESTION_ID_PREFIX) || tag.length === QUESTION_ID_PREFIX.length) return null;
  const interactionId = tag.slice(QUESTION_ID_PREFIX.length);
  if (activation.type !== 'action') return { interactionId, actionIndex: null };
  const raw = activation.actionIndex ?? Number(params.get('action') ?? Number.NaN);
  return Number.isInteger(raw) && raw >= 0 ? { interactionId, actionIndex: raw } : null;
}

/** Questions whose notification already handled a click or button, so a later activation is not a second. */
const MAX_HANDLED = 50;

/** What the latest attention read says about questions, for closing the notifications of answered ones. */
export interface OpenQuestions {
  /** Open questions of the runs the read listed. */
  open: ReadonlySet<string>;
  /** The runs the read listed. */
  runs: ReadonlySet<string>;
  /** The read listed every run that needs the person (none left out by its limit). */
  complete: boolean;
  /** Questions the store says are no longer open (of those `shownQuestionIds` named): always retired. */
  closed?: ReadonlySet<string>;
}

/** What an attention read says about the questions shown: the shell hands this to `retire`. */
export function openQuestionsOf(read: {
  summary: { items: ReadonlyArray<{ run: { id: string } }>; needsYou: number };
  questions: ReadonlyArray<{ id: string }>;
  closed: readonly string[];
}): OpenQuestions {
  return {
    open: new Set(read.questions.map((q) => q.id)),
    runs: new Set(read.summary.items.map((item) => item.run.id)),
    complete: read.summary.items.length >= read.summary.needsYou,
    closed: new Set(read.closed),
  };
}

export interface DesktopNotifier extends Notifier {
  /**
   * Closes the notifications of questions that are no longer open (answered anywhere, withdrawn, expired,
   * cancelled): those the store says closed, those of a run the read listed, and, when the read was
   * complete, any not among its open questions.
   */
  retire(questions: OpenQuestions): void;
  /** Question notifications on screen. */
  readonly questionsShown: number;
  /** The questions whose notifications are on screen: the next attention read says which closed. */
  shownQuestionIds(): string[];
  /**
   * A toast activation on Windows (`Notification.handleActivation`): a click or button of a question's
   * toast whose Notification object is gone (collected, or from before a restart, still in Action Center).
   * Activations of a toast this notifier still holds are left to that toast's own events.
   */
  activate(activation: ToastActivation): void;
}

interface ShownQuestion {
  notification: ShownNotification;
  runId: string | null;
  /** What it said, so a repeat of the same notice is not shown twice. */
  text: string;
}

/** What the phases of a notifier share: its deps, and the notifications and questions it holds. */
interface NotifierState {
  readonly deps: NotifierDeps;
  /** Notifications kept referenced (at most MAX_LIVE), so their handlers survive garbage collection. */
  readonly live: Set<ShownNotification>;
  /** The notification on screen for each open question. */
  readonly questions: Map<string, ShownQuestion>;
  /** Questions whose notification already handled a click or button (at most MAX_HANDLED). */
  readonly handled: Set<string>;
  /** A summary of questions on screen (a burst, a catch-up), and the questions it stands for. */
  readonly summaries: Map<ShownNotification, readonly string[]>;
}

/**
 * The notifier in phases: show a notice (one per question, replaced when its text changes), wire a shown
 * notification's events, retire answered questions' notifications, and handle Windows toast activations.
 */
export function createNotifier(deps: NotifierDeps): DesktopNotifier {
  const state: NotifierState = {
    deps,
    live: new Set(),
    questions: new Map(),
    handled: new Set(),
    summaries: new Map(),
  };
  return {
    show: (notice) => showNotice(state, notice),
    retire: (open) => retireQuestions(state, open),
    get questionsShown() {
      return state.questions.size;
    },
    shownQuestionIds: () => [
      ...new Set([...state.questions.keys(), ...[...state.summaries.values()].flat()]),
    ],
    activate: (activation) => activateToast(state, activation),
  };
}

/** Adds `value` to an insertion-ordered set, dropping the oldest entry beyond `max`. */
export function addBounded<T>(set: Set<T>, value: T, max: number): void {
  set.add(value);
  if (set.size > max) {
    const oldest = set.values().next().value;
    if (oldest !== undefined) set.delete(oldest);
  }
}

/** Whether a shown question's notification goes, given the latest attention read (see `retire`). */
export function isRetired(interactionId: string, runId: string | null, read: OpenQuestions): boolean {
  if (read.closed?.has(interactionId) === true) return true;
  if (read.open.has(interactionId)) return false;
  return (runId !== null && read.runs.has(runId)) || read.complete;
}

function showNotice(state: NotifierState, notice: DesktopNotice): void {
  const { deps, questions } = state;
  if (deps.paused() || !deps.isSupported()) return;
  const options = notificationOptions(notice, deps.platform);
  const interactionId = notice.interactionId;
  if (interactionId === undefined) {
    const notification = deps.create(options);
    if (notice.questionIds !== undefined && notice.questionIds.length > 0) {
      addBoundedMap(state.summaries, notification, notice.questionIds, MAX_LIVE);
    }
    wireNotification(state, notification, notice, null, null);
    return;
  }
  // One notification per question: the same text again is not repeated; new text replaces the old one.
  const question = deps.questionById?.(interactionId) ?? null;
  const text = `${options.title ?? ''}\u0000${options.body ?? ''}`;
  const previous = questions.get(interactionId);
  if (previous?.text === text) return;
  if (previous !== undefined) closeQuestion(state, interactionId, previous);
  options.id = questionNotificationId(interactionId);
  const actions = question === null ? undefined : questionActions(question, deps.platform);
  if (actions !== undefined) options.actions = actions;
  const notification = deps.create(options);
  questions.set(interactionId, { notification, runId: notice.runId, text });
  wireNotification(state, notification, notice, question, interactionId);
}

function closeQuestion(state: NotifierState, interactionId: string, shown: ShownQuestion): void {
  state.questions.delete(interactionId);
  state.live.delete(shown.notification);
  shown.notification.close();
}

function retireQuestions(state: NotifierState, read: OpenQuestions): void {
  for (const [id, shown] of state.questions) {
    if (isRetired(id, shown.runId, read)) closeQuestion(state, id, shown);
  }
  // A summary of questions goes once the store says every one of them closed.
  for (const [notification, ids] of state.summaries) {
    if (!ids.every((id) => read.closed?.has(id) === true)) continue;
    state.summaries.delete(notification);
    state.live.delete(notification);
    notification.close();
  }
}

/** Sets `key` in an insertion-ordered map, dropping the oldest entry beyond `max`. */
function addBoundedMap<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}

/** A button's choice answers the question, and its run's notifications count as read. */
function answerQuestion(deps: NotifierDeps, question: Interaction, choice: string, index: number): void {
  deps.answer?.({
    runId: question.runId,
    interactionId: question.id,
    revision: question.revision,
    choice,
    index,
  });
  deps.markRead?.(question.runId);
}

function activateToast(state: NotifierState, activation: ToastActivation): void {
  const { deps } = state;
  const target = questionActivation(activation);
  if (target === null) return;
  const { interactionId, actionIndex } = target;
  if (state.questions.has(interactionId) || state.handled.has(interactionId)) return;
  addBounded(state.handled, interactionId, MAX_HANDLED);
  const question = deps.questionById?.(interactionId) ?? null;
  if (question === null) {
    deps.openWindow();
    return;
  }
  const choice = actionIndex === null ? undefined : question.choices?.[actionIndex];
  if (actionIndex === null || choice === undefined || deps.answer === undefined) {
    deps.markRead?.(question.runId);
    deps.openRun(question.runId);
    return;
  }
  answerQuestion(deps, question, choice, actionIndex);
}

function wireNotification(
  state: NotifierState,
  notification: ShownNotification,
  notice: DesktopNotice,
  question: Interaction | null,
  interactionId: string | null,
): void {
  const { deps } = state;
  const release = (): void => {
    state.live.delete(notification);
    state.summaries.delete(notification);
    if (interactionId !== null && state.questions.get(interactionId)?.notification === notification)
      state.questions.delete(interactionId);
  };
  const handled = (): void => {
    if (interactionId !== null) addBounded(state.handled, interactionId, MAX_HANDLED);
    release();
  };
  notification.on('click', () => {
    // Seen, not answered: the question stays open and stays in the tray.
    handled();
    if (notice.runId !== null) {
      deps.markRead?.(notice.runId);
      deps.openRun(notice.runId);
    } else deps.openWindow();
  });
  notification.on('action', (details, legacyIndex) => {
    const index = details.actionIndex ?? legacyIndex ?? -1;
    const choice = question?.choices?.[index];
    handled();
    if (question === null || choice === undefined || deps.answer === undefined) return;
    answerQuestion(deps, question, choice, index);
  });
  notification.on('failed', (_event, error) => {
    release();
    deps.failed?.(String(error));
  });
  notification.on('close', (details) => {
    // A question's toast that timed out into Windows' Action Center is still there and still clickable:
    // keep it, so that retire() removes it once the question is answered and its clicks still arrive.
    if (interactionId !== null && details?.reason === 'timedOut') return;
    release();
  });
  notification.on('show', () => deps.shown?.());
  addBounded(state.live, notification, MAX_LIVE);
  notification.show();
}
