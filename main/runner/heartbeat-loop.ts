/**
 * Renews a claim every leaseMs/3. A heartbeat that changes nothing means the runner was fenced
 * (docs/ARCHITECTURE.md#leases-and-fencing): another owner took the run over, its lease was released, or
 * it lapsed after its owner was recorded as gone. The loop then stops for good and tells its listeners. A
 * lease that merely lapsed (a suspend, a clock step, a full disk) while nobody took over renews, and
 * listeners hear how long it had lapsed (docs/LIVENESS.md#suspend-safe-renewal). Cancel and pause requests
 * ride on the heartbeat answer.
 */
import type { Claim, RunStore } from '../store';

export type HeartbeatEvent =
  | { kind: 'fenced'; lost: 'takenOver' | 'released' | 'lapsed' }
  | { kind: 'lapsed'; lapsedMs: number }
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
  #lost: 'takenOver' | 'released' | 'lapsed' | null = null;
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
  /** Why the loop was fenced: another owner took over, the lease was released, or it lapsed for good. */
  get lost(): 'takenOver' | 'released' | 'lapsed' | null {
    return this.#lost;
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
    return this.renew() !== 'fenced';
  }

  /** One heartbeat now, saying whether it renewed, was fenced, or could not be written (busy, disk full). */
  renew(): 'renewed' | 'fenced' | 'failed' {
    if (this.#fenced) return 'fenced';
    let answer;
    try {
      answer = this.store.heartbeat(this.claim, this.options.leaseMs);
    } catch (error) {
      // BUSY survived the store's retries, or the disk is full: the lease may still be ours; try again.
      this.#emit({ kind: 'error', error });
      return 'failed';
    }
    if (!answer.ok) {
      this.#fenced = true;
      this.#lost = answer.lost ?? 'takenOver';
      this.stop();
      this.#emit({ kind: 'fenced', lost: this.#lost });
      return 'fenced';
    }
    this.#expiresAt = answer.expiresAt;
    if ((answer.lapsedMs ?? 0) > 0) this.#emit({ kind: 'lapsed', lapsedMs: answer.lapsedMs ?? 0 });
    if (answer.cancelRequested && !this.#cancelRequested) {
      this.#cancelRequested = true;
      this.#emit({ kind: 'cancelRequested' });
    }
    if (answer.pauseRequested && !this.#pauseRequested) {
      this.#pauseRequested = true;
      this.#emit({ kind: 'pauseRequested' });
    }
    return 'renewed';
  }

  #emit(event: HeartbeatEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}
