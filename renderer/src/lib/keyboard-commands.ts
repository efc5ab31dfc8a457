/**
 * Keyboard-first commands (docs/WINDOW.md#keyboard): j/k, Home/End/PageUp/PageDown, Enter, Esc, /, g-then-view,
 * x, a, ?, Ctrl/Cmd+K. Pure.
 */
import type { RunView } from '$shared/views';
import { VIEW_KEYS } from './format/view-meta';

export type KeyCommand =
  | { kind: 'next' }
  | { kind: 'prev' }
  /** Home, End, PageUp, PageDown: the first or last loaded run, or a screen of rows up or down. */
  | { kind: 'jump'; to: 'first' | 'last' | 'pageUp' | 'pageDown' }
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'focusSearch' }
  | { kind: 'toggleSelect' }
  | { kind: 'help' }
  | { kind: 'palette' }
  | { kind: 'answer' }
  | { kind: 'selectAll' }
  | { kind: 'view'; view: RunView };

export interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The key went to a text field: only Escape counts then. */
  inTextField: boolean;
  /** The key went to a button, link or other control: Enter and arrows belong to it. */
  inControl: boolean;
}

export interface KeyResult {
  command: KeyCommand | null;
  /** `g` was pressed and the next key picks a view. */
  pendingG: boolean;
}

const JUMPS: Readonly<Record<string, 'first' | 'last' | 'pageUp' | 'pageDown'>> = {
  Home: 'first',
  End: 'last',
  PageUp: 'pageUp',
  PageDown: 'pageDown',
};

/** Maps one key press (and whether `g` came just before) to a command. */
export function resolveKey(input: KeyInput, pendingG: boolean): KeyResult {
  // Ctrl/Cmd+K opens the command palette from anywhere, a text field included.
  if ((input.ctrlKey || input.metaKey) && !input.altKey && input.key.toLowerCase() === 'k')
    return { command: { kind: 'palette' }, pendingG: false };
  if (input.ctrlKey || input.metaKey || input.altKey) return { command: null, pendingG: false };
  if (input.key === 'Escape') return { command: { kind: 'close' }, pendingG: false };
  if (input.inTextField) return { command: null, pendingG: false };
  if (pendingG) {
    const view = VIEW_KEYS[input.key];
    return { command: view ? { kind: 'view', view } : null, pendingG: false };
  }
  if (input.inControl && (input.key === 'Enter' || input.key.startsWith('Arrow') || input.key in JUMPS))
    return { command: null, pendingG: false };
  const jump = JUMPS[input.key];
  if (jump !== undefined) return { command: { kind: 'jump', to: jump }, pendingG: false };
  switch (input.key) {
    case 'j':
    case 'ArrowDown':
      return { command: { kind: 'next' }, pendingG: false };
    case 'k':
    case 'ArrowUp':
      return { command: { kind: 'prev' }, pendingG: false };
    case 'Enter':
      return { command: { kind: 'open' }, pendingG: false };
    case '/':
      return { command: { kind: 'focusSearch' }, pendingG: false };
    case 'x':
      return { command: { kind: 'toggleSelect' }, pendingG: false };
    case 'X':
      return { command: { kind: 'selectAll' }, pendingG: false };
    case 'a':
      return { command: { kind: 'answer' }, pendingG: false };
    case '?':
      return { command: { kind: 'help' }, pendingG: false };
    case 'g':
      return { command: null, pendingG: true };
    default:
      return { command: null, pendingG: false };
  }
}

/** The shortcut sheet's rows. */
export const SHORTCUTS: ReadonlyArray<{ keys: string; does: string }> = [
  { keys: 'j / k', does: 'Next / previous run' },
  { keys: 'Home / End', does: 'First / last loaded run' },
  { keys: 'PageUp / PageDown', does: 'A screen of runs up / down' },
  { keys: 'Enter', does: 'Open the run' },
  { keys: 'Esc', does: 'Close the dialog or the run' },
  { keys: '/', does: 'Search' },
  { keys: 'x', does: 'Select the run for a bulk action' },
  { keys: 'Shift+X', does: 'Select every loaded run' },
  { keys: 'a', does: 'Answer the run’s question here' },
  { keys: 'Ctrl+K / ⌘K', does: 'Command palette: every action of the selected run' },
  { keys: 'g n', does: 'Needs you' },
  { keys: 'g r', does: 'Running' },
  { keys: 'g q', does: 'Queued' },
  { keys: 'g p', does: 'Parked' },
  { keys: 'g s', does: 'Stale' },
  { keys: 'g f', does: 'Failed' },
  { keys: 'g a', does: 'All' },
  { keys: '?', does: 'This sheet' },
];

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'email', 'number', 'password', 'url', 'tel', '']);

/** Where a key event landed, for resolveKey. */
export function keyTarget(target: EventTarget | null): { inTextField: boolean; inControl: boolean } {
  if (!(target instanceof HTMLElement)) return { inTextField: false, inControl: false };
  const tag = target.tagName;
  const inTextField =
    tag === 'TEXTAREA' ||
    (tag === 'INPUT' && TEXT_INPUT_TYPES.has((target as HTMLInputElement).type)) ||
    target.isContentEditable;
  const inControl =
    !inTextField &&
    (tag === 'BUTTON' || tag === 'A' || tag === 'INPUT' || tag === 'SELECT' || tag === 'SUMMARY');
  return { inTextField, inControl };
}
