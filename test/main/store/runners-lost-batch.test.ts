/**
 * The sweeper's batch verdict by the clock (`markLapsedRunnersLost`): one revision and one `run.runner_lost` per
 * lapsed lease, the views unchanged — and a lease its runner renewed after the sweeper listed it is left
 * alone, not expired under it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { probeWriteLock } from '../../../bench/lock-probe';
import { LOST_PER_CHUNK } from '../../../main/store/leases';
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

  it('puts as many chunks in one transaction as its time budget allows, with the same result', () => {
    t = createTempStore();
    const n = LOST_PER_CHUNK * 2 + 5;
    for (let i = 0; i < n; i += 1) reserveAndClaim(t, LEASE);
    t.clock.advance(LEASE + 1_000);
    const listed = t.store.listExpiredLeases({ graceMs: 0, limit: 1_000 });
    expect(listed).toHaveLength(n);
    const probe = probeWriteLock(t.store.db);
    try {
      // No budget: one chunk to a transaction.
      expect(
        t.store.markLapsedRunnersLost(listed.slice(0, LOST_PER_CHUNK + 1), 'lease expired', SWEEPER, 0),
      ).toBe(LOST_PER_CHUNK + 1);
      expect(probe.take()).toHaveLength(2);
      // No limit: the rest in one transaction; the ones already marked are skipped.
      expect(t.store.markLapsedRunnersLost(listed, 'lease expired', SWEEPER, Infinity)).toBe(
        n - LOST_PER_CHUNK - 1,
      );
      expect(probe.take()).toHaveLength(1);
    } finally {
      probe.restore();
    }
    for (const lease of listed) {
      const events = t.store.getRunDetail(lease.runId, { eventsLimit: 50 }).events;
      expect(events.filter((e) => e.type === 'run.runner_lost')).toHaveLength(1);
    }
  });
});
