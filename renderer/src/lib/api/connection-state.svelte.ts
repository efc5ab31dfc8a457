/**
 * Whether this browser-mode page is connected to `runwarden serve` (docs/ARCHITECTURE.md#browser-mode),
 * for ConnectionBanner, and the page's clock: while not live, countdowns and ages stop at the moment the
 * connection was lost, since the page can no longer know whether a question was answered or a run moved.
 */
import type { ConnectionSink } from './http-client';

/**
 * `desktop`: not browser mode (Electron), nothing to show. `connecting`: the first stream is opening.
 * `reconnecting`: the stream dropped a moment ago. `disconnected`: it has stayed down a while.
 * `expired`: serve refused this browser's session (restarted with new sessions, or the session ended).
 */
export type ConnectionPhase = 'desktop' | 'connecting' | 'live' | 'reconnecting' | 'disconnected' | 'expired';

/** How long a dropped stream counts as a blip ("Reconnecting") before the page says "Disconnected". */
export const DISCONNECTED_AFTER_MS = 5_000;

export class ConnectionState implements ConnectionSink {
  phase = $state<ConnectionPhase>('desktop');
  /** When the page stopped being live; null while live. */
  lostAt = $state<number | null>(null);

  readonly #clock: () => number;
  readonly #disconnectedAfterMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: { clock?: () => number; disconnectedAfterMs?: number } = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#disconnectedAfterMs = options.disconnectedAfterMs ?? DISCONNECTED_AFTER_MS;
  }

  /** True when the page cannot trust what it shows. */
  get paused(): boolean {
    return this.phase === 'reconnecting' || this.phase === 'disconnected' || this.phase === 'expired';
  }

  /** The time for countdowns: the real clock while live, the moment of the loss while not. */
  now = (): number => (this.paused && this.lostAt !== null ? this.lostAt : this.#clock());

  /** This page talks to serve (browser mode). */
  begin(): void {
    if (this.phase === 'desktop') this.phase = 'connecting';
  }

  opened(): void {
    if (this.phase === 'expired') return;
    clearTimeout(this.#timer);
    this.phase = 'live';
    this.lostAt = null;
  }

  lost(): void {
    if (this.phase === 'expired' || this.phase === 'reconnecting' || this.phase === 'disconnected') return;
    this.phase = 'reconnecting';
    this.lostAt = this.#clock();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.phase === 'reconnecting') this.phase = 'disconnected';
    }, this.#disconnectedAfterMs);
  }

  expired(): void {
    clearTimeout(this.#timer);
    this.lostAt ??= this.#clock();
    this.phase = 'expired';
  }
}
