import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY_OPTIONS } from '../../../shared/display-status';
import { createTempStore, reserve, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

let t: TempStore;
afterEach(() => t?.cleanup());

/** What the window and tray show: counts by status and the needs-you total. */
const attention = () => {
  const { counts, needsYou } = t.store.attentionSummary(20);
  return { counts, needsYou };
};

describe('nextAttentionChangeAt', () => {
  it('is null while nothing can change by the clock alone', () => {
    t = createTempStore();
    expect(t.store.nextAttentionChangeAt()).toBeNull();
    const claim = reserveAndClaim(t, 60_000);
    t.store.completeRun(claim, {});
    expect(t.store.nextAttentionChangeAt()).toBeNull();
  });

  it('is the moment a lease runs out or a queued run turns unattended, and the summary changes exactly then', () => {
    t = createTempStore();
    const start = t.clock.now();
    reserveAndClaim(t, 90_000);
    t.clock.advance(1_000);
    reserve(t);
    t.clock.advance(1_000);
    reserveAndClaim(t, 20_000);
    const expected = [
      start + 2_000 + 20_000, // the second claim's lease runs out: stale
      start + 90_000, // the first claim's lease runs out
      start + 1_000 + DEFAULT_DISPLAY_OPTIONS.unattendedQueueMs, // the queued run waits too long: needs you
    ];
    const seen: number[] = [];
    for (let next = t.store.nextAttentionChangeAt(); next !== null; next = t.store.nextAttentionChangeAt()) {
      t.clock.set(next - 1);
      const before = attention();
      t.clock.set(next);
      expect(attention()).not.toEqual(before);
      seen.push(next);
    }
    expect(seen).toEqual(expected);
  });
});
