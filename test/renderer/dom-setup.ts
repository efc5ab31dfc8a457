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
