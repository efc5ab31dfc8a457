/** Short, visible results of what a person did ("Cancelled…", "Settings saved."), gone after a few seconds. */
import type { Tone } from '$lib/format/status-look';

export interface Toast {
  id: number;
  text: string;
  tone: Tone;
}

/** How long a toast stays; long enough to read two lines. */
export const TOAST_MS = 6000;
const MAX_TOASTS = 4;

export class ToastsState {
  items = $state.raw<Toast[]>([]);
  #seq = 0;
  readonly #setTimer: (fn: () => void, ms: number) => unknown;

  constructor(setTimer: (fn: () => void, ms: number) => unknown = (fn, ms) => setTimeout(fn, ms)) {
    this.#setTimer = setTimer;
  }

  show(text: string, tone: Tone = 'info'): void {
    const toast = { id: ++this.#seq, text, tone };
    this.items = [...this.items, toast].slice(-MAX_TOASTS);
    this.#setTimer(() => this.dismiss(toast.id), TOAST_MS);
  }

  dismiss(id: number): void {
    this.items = this.items.filter((t) => t.id !== id);
  }
}
