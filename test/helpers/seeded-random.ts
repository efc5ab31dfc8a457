/**
 * Replayable randomness for the chaos tests and their fixtures: a small seeded generator (mulberry32) in place
 * of `Math.random`. The seed comes from `RUNWARDEN_TEST_SEED` when set, else is drawn fresh; a failing test
 * prints it, and setting it replays the same choices (the processes' timing still varies).
 */
import { randomInt } from 'node:crypto';

export type Random = () => number;

/** A generator of floats in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed for this run: `RUNWARDEN_TEST_SEED` (an unsigned 32-bit integer) or a fresh one. */
export function testSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.RUNWARDEN_TEST_SEED;
  if (given === undefined || given === '') return randomInt(0, 2 ** 32 - 1);
  const seed = Number(given);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(
      `RUNWARDEN_TEST_SEED must be an integer from 0 to 4294967295, not ${JSON.stringify(given)}`,
    );
  }
  return seed;
}

/** What a failing chaos test prints: the seed and how to replay it. */
export function replayHint(seed: number): string {
  return `random seed ${seed}: replay with RUNWARDEN_TEST_SEED=${seed}`;
}

/** The seed of a chaos test: `RUNWARDEN_CHAOS_SEED` (an unsigned 32-bit integer) or a fresh one. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.RUNWARDEN_CHAOS_SEED;
  if (given === undefined || given === '') return randomInt(0, 2 ** 32 - 1);
  const seed = Number(given);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(
      `RUNWARDEN_CHAOS_SEED must be an integer from 0 to 4294967295, not ${JSON.stringify(given)}`,
    );
  }
  return seed;
}

/** One of `items`, drawn by `random`. */
export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}
