/**
 * jsdom lacks layout and a few browser APIs the window uses; stub them for component tests (import first).
 * The ResizeObserver stub reports 600 px for a scroll viewport and 34 px for each absolutely placed list
 * item, so virtua's VList measures rows as a browser would and shows the ones that fit.
 */
type Callback = (entries: Array<{ target: Element; contentRect: { width: number; height: number } }>) => void;

class ResizeObserverStub {
  readonly #callback: Callback;
  constructor(callback: Callback) {
    this.#callback = callback;
  }
  observe(target: Element): void {
    const height = target instanceof HTMLElement && target.style.position === 'absolute' ? 34 : 600;
    queueMicrotask(() => this.#callback([{ target, contentRect: { width: 800, height } }]));
  }
  unobserve(): void {}
  disconnect(): void {}
}
globalThis.ResizeObserver = ResizeObserverStub as unknown as typeof ResizeObserver;
Element.prototype.scrollIntoView ??= function scrollIntoView() {};
Element.prototype.scrollTo ??= function scrollTo() {};
// virtua measures only items with an offsetParent; jsdom has no layout, so use the parent element.
Object.defineProperty(HTMLElement.prototype, 'offsetParent', {
  configurable: true,
  get(this: HTMLElement) {
    return this.parentElement;
  },
});
// user-event's radio-group arrow keys use CSS.escape, which jsdom does not provide.
const css = (globalThis.CSS ?? {}) as { escape?: (value: string) => string };
css.escape ??= (value: string) => value.replace(/[^a-zA-Z0-9_-]/g, (c) => `\\${c}`);
(globalThis as { CSS?: unknown }).CSS = css;
// jsdom has <dialog> but not showModal()/close() nor Escape → `cancel`; a minimal stand-in with the same
// events, so components run their real close and focus paths (Chromium's real behaviour is in the e2e suite).
const dialogProto = HTMLDialogElement.prototype as HTMLDialogElement & { showModal?: () => void };
if (typeof dialogProto.showModal !== 'function') {
  dialogProto.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '');
    this.dataset.modal = 'true';
    const first = this.querySelector<HTMLElement>(
      'button:not(:disabled), input:not(:disabled), textarea:not(:disabled), select:not(:disabled), [href]',
    );
    (first ?? this).focus();
  };
  dialogProto.close = function close(this: HTMLDialogElement) {
    if (!this.hasAttribute('open')) return;
    this.removeAttribute('open');
    delete this.dataset.modal;
    queueMicrotask(() => this.dispatchEvent(new Event('close')));
  };
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    const top = [...document.querySelectorAll<HTMLDialogElement>('dialog[data-modal]')].at(-1);
    if (top === undefined) return;
    const cancel = new Event('cancel', { cancelable: true });
    if (top.dispatchEvent(cancel)) top.close();
  });
}
