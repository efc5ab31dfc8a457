/**
 * Disposables registered where they are created and disposed together on quit (docs/ARCHITECTURE.md#electron-shell).
 */

export type Disposer = () => void;

export class DisposableStore {
  readonly #disposers: Disposer[] = [];
  #disposed = false;

  constructor(private readonly onError: (error: unknown) => void = (error) => console.error(error)) {}

  /** Registers a disposer; if the store is already disposed it runs at once. Returns the same disposer. */
  add(disposer: Disposer): Disposer {
    if (this.#disposed) this.#run(disposer);
    else this.#disposers.push(disposer);
    return disposer;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Runs every disposer once, newest first; one failing does not stop the rest. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    while (this.#disposers.length > 0) this.#run(this.#disposers.pop() as Disposer);
  }

  #run(disposer: Disposer): void {
    try {
      disposer();
    } catch (error) {
      this.onError(error);
    }
  }
}
