/**
 * Renews a claim every leaseMs/3. A heartbeat that changes nothing means the runner was fenced
 * (SPEC §3): the loop stops for good and tells its listeners; an expired owner never revives itself.
 * Cancel and pause requests ride on the heartbeat answer.
 */
import type { Claim, RunStore } from '../store';

export type HeartbeatEvent =
  | { kind: 'fenced' }
  | { kind: 'cancelRequested' }
  | { kind: 'pauseRequested' }
  | { kind: 'error'; error: unknown };

export interface HeartbeatLoopOptions {
  leaseMs: number;
  /** Defaults to leaseMs / 3. */
  intervalMs?: number;
}

export class HeartbeatLoop {
  #timer: NodeJS.Timeout | null = null;
  #fenced = false;
  #cancelRequested = false;
  #pauseRequested = false;
  #expiresAt: number | null = null;
  readonly #listeners = new Set<(event: HeartbeatEvent) => void>();
  readonly #intervalMs: number;

  constructor(
    private readonly store: RunStore,
    private readonly claim: Pick<Claim, 'runId' | 'generation' | 'token' | 'ownerType'>,
    private readonly options: HeartbeatLoopOptions,
  ) {
    this.#intervalMs = options.intervalMs ?? Math.max(50, Math.floor(options.leaseMs / 3));
  }

  get fenced(): boolean {
    return this.#fenced;
  }
  get cancelRequested(): boolean {
    return this.#cancelRequested;
  }
  get pauseRequested(): boolean {
    return this.#pauseRequested;
  }
  get expiresAt(): number | null {
    return this.#expiresAt;
  }
  get running(): boolean {
    return this.#timer !== null;
  }

  /** Subscribes to fencing and requests; returns the unsubscribe. */
  on(listener: (event: HeartbeatEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  start(): void {
    if (this.#timer !== null || this.#fenced) return;
    this.#timer = setInterval(() => this.beat(), this.#intervalMs);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** One heartbeat now. Returns false once fenced. */
  beat(): boolean {
    if (this.#fenced) return false;
    let answer;
    try {
      answer = this.store.heartbeat(this.claim, this.options.leaseMs);
    } catch (error) {
      // BUSY survived the store's retries: the lease may still be valid; try again next tick.
      this.#emit({ kind: 'error', error });
      return true;
    }
    if (!answer.ok) {
      this.#fenced = true;
      this.stop();
      this.#emit({ kind: 'fenced' });
      return false;
    }
    this.#expiresAt = answer.expiresAt;
    if (answer.cancelRequested && !this.#cancelRequested) {
      this.#cancelRequested = true;
      this.#emit({ kind: 'cancelRequested' });
    }
    if (answer.pauseRequested && !this.#pauseRequested) {
      this.#pauseRequested = true;
      this.#emit({ kind: 'pauseRequested' });
    }
    return true;
  }

  #emit(event: HeartbeatEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}
