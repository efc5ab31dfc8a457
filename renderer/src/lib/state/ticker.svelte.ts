/** A clock that ticks while something reads it (countdowns, ages), through Svelte's createSubscriber. */
import { createSubscriber } from 'svelte/reactivity';

export class Ticker {
  readonly #subscribe: () => void;
  readonly #now: () => number;

  constructor(intervalMs: number, now: () => number = Date.now) {
    this.#now = now;
    this.#subscribe = createSubscriber((update) => {
      const timer = setInterval(update, intervalMs);
      return () => clearInterval(timer);
    });
  }

  /** The current time; re-read by effects and templates every tick while they are mounted. */
  get now(): number {
    this.#subscribe();
    return this.#now();
  }
}
