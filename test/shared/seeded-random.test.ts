import { describe, expect, it } from 'vitest';
import { chaosSeed, pick, replayHint, seededRandom, testSeed } from '../helpers/seeded-random';

describe('seeded random for the chaos tests', () => {
  it('replays the same sequence for the same seed, another for another', () => {
    const draw = (seed: number) => Array.from({ length: 8 }, seededRandom(seed));
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    for (const x of draw(7)) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });

  it('takes the seed from RUNWARDEN_TEST_SEED, refuses a bad one, and says how to replay', () => {
    expect(testSeed({ RUNWARDEN_TEST_SEED: '123' })).toBe(123);
    expect(() => testSeed({ RUNWARDEN_TEST_SEED: 'abc' })).toThrow(/RUNWARDEN_TEST_SEED/);
    expect(() => testSeed({ RUNWARDEN_TEST_SEED: '-1' })).toThrow(/RUNWARDEN_TEST_SEED/);
    const fresh = testSeed({});
    expect(Number.isInteger(fresh) && fresh >= 0 && fresh < 2 ** 32).toBe(true);
    expect(replayHint(123)).toBe('random seed 123: replay with RUNWARDEN_TEST_SEED=123');
  });

  it('takes the generator seed from RUNWARDEN_CHAOS_SEED, and picks replayably', () => {
    expect(chaosSeed({ RUNWARDEN_CHAOS_SEED: '4294967295' })).toBe(4294967295);
    expect(() => chaosSeed({ RUNWARDEN_CHAOS_SEED: '2.5' })).toThrow(/RUNWARDEN_CHAOS_SEED/);
    const fresh = chaosSeed({});
    expect(Number.isInteger(fresh) && fresh >= 0 && fresh < 2 ** 32).toBe(true);
    const draw = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 20 }, () => pick(random, ['a', 'b', 'c'] as const));
    };
    expect(draw(9)).toEqual(draw(9));
    expect(new Set(draw(9))).toEqual(new Set(['a', 'b', 'c']));
  });
});
