/**
 * The sweeper's batch verdict by the clock (`markLapsedRunnersLost`): one revision and one `run.runner_lost` per
 * lapsed lease, the views unchanged — and a lease its runner renewed after the sweeper listed it is left
 * alone, not expired under it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTempStore, reserveAndClaim, SWEEPER, type TempStore } from '../../helpers/temp-store';
import { expectInvariants } from './invariants';

const LEASE = 30_000;
let t: TempStore;
afterEach(() => {
  expectInvariants(t.store);
  t.cleanup();
});

describe('markLapsedRunnersLost', () => {
  it('records each lapsed lease lost once and skips one renewed since it was listed', () => {
    t = createTempStore();
    const lapsed = reserveAndClaim(t, LEASE);
    const renewed = reserveAndClaim(t, LEASE);
    t.clock.advance(LEASE + 1_000);
    const listed = t.store.listExpiredLeases({ graceMs: 0, limit: 10 });
    expect(listed.map((l) => l.runId).sort()).toEqual([lapsed.runId, renewed.runId].sort());
    // The runner comes back between the sweeper's read and its write.
    expect(t.store.heartbeat(renewed, LEASE)).toMatchObject({ ok: true });
    const before = t.store.getRunDetail(lapsed.runId, { eventsLimit: 50 }).snapshot.run;

    expect(t.store.markLapsedRunnersLost(listed, 'lease expired', SWEEPER)).toBe(1);
    expect(t.store.markLapsedRunnersLost(listed, 'lease expired', SWEEPER)).toBe(0);

    const lost = t.store.getRunDetail(lapsed.runId, { eventsLimit: 50 });
    expect(lost.snapshot.run.revision).toBe(before.revision + 1);
    expect(lost.snapshot.lease?.expiresAt).toBe(lapsed.expiresAt);
    expect(lost.events.filter((e) => e.type === 'run.runner_lost')).toHaveLength(1);

    const kept = t.store.getRunDetail(renewed.runId, { eventsLimit: 50 });
    expect(kept.snapshot.lease?.expiresAt).toBe(t.clock() + LEASE);
    expect(kept.events.some((e) => e.type === 'run.runner_lost')).toBe(false);
    // Its next heartbeat is on time: nothing had marked it.
    t.clock.advance(1_000);
    expect(t.store.heartbeat(renewed, LEASE)).not.toHaveProperty('lapsedMs');
  });
});
