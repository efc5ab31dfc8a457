/**
 * How retention picks a pruning batch (docs/PERFORMANCE.md, pruning): the oldest-finished prunable run, then
 * the prunable runs stored right after it, and no more once the batch's time budget is spent. Whatever the
 * order, only prunable runs go, and every one of them goes in the end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PRUNE_WINDOW_PER_RUN } from '../../../main/store/maintenance';
import { createTempStore, reserve, reserveAndClaim, type TempStore } from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';

const DAY = 86_400_000;
const RETENTION = 7 * DAY;

let t: TempStore;
afterEach(() => {
  expectInvariants(t.store);
  expectHealthy(t.store);
  t.cleanup();
});

function exists(id: string): boolean {
  return t.store.db.prepare(`SELECT 1 FROM runs WHERE id = ?`).get(id) !== undefined;
}

/** Stores `n` claimed runs in order (their rowids follow), to be finished later in any order. */
function storeRuns(n: number) {
  return Array.from({ length: n }, () => reserveAndClaim(t));
}

describe('pruning batches', () => {
  it('lead with the oldest-finished run and take its prunable neighbours in storage order', () => {
    t = createTempStore();
    const [a, b, live, c, d] = storeRuns(5);
    // Finished in the order b, a, d, c; `live` never finishes.
    for (const claim of [b, a, d, c]) {
      t.store.completeRun(claim!, {});
      t.clock.advance(1_000);
    }
    t.clock.advance(RETENTION);
    const recent = reserveAndClaim(t);
    t.store.completeRun(recent, {});
    const alive = () => [a, b, live, c, d, recent].filter((claim) => exists(claim!.runId));

    // b finished first; c is the next prunable run stored after it (live is skipped, a lies before b).
    expect(t.store.pruneTerminalRuns(RETENTION, 2)).toBe(2);
    expect(alive()).toEqual([a, live, d, recent]);
    // a is now the oldest-finished: it leads, and d follows it in storage.
    expect(t.store.pruneTerminalRuns(RETENTION, 2)).toBe(2);
    expect(alive()).toEqual([live, recent]);
    expect(t.store.pruneTerminalRuns(RETENTION, 2)).toBe(0);
    expect(t.store.getRun(live!.runId).status).toBe('running');
  });

  it('look only a bounded window ahead of the oldest-finished run', () => {
    t = createTempStore();
    const limit = 2;
    const first = reserveAndClaim(t);
    // More unfinished runs after it than the window holds, then a prunable one beyond them.
    const between = Array.from({ length: limit * PRUNE_WINDOW_PER_RUN }, () => reserve(t));
    const far = reserveAndClaim(t);
    t.store.completeRun(first, {});
    t.store.completeRun(far, {});
    t.clock.advance(RETENTION + DAY);
    expect(t.store.pruneTerminalRuns(RETENTION, limit)).toBe(1);
    expect(exists(first.runId)).toBe(false);
    expect(exists(far.runId)).toBe(true);
    // Now the far run is the oldest-finished prunable one: the next batch takes it.
    expect(t.store.pruneTerminalRuns(RETENTION, limit)).toBe(1);
    expect(exists(far.runId)).toBe(false);
    expect(between.every((run) => exists(run.id))).toBe(true);
  });

  it('stop taking runs once the time budget is spent, one run at least', () => {
    t = createTempStore();
    const claims = storeRuns(4);
    for (const claim of claims) t.store.completeRun(claim, {});
    t.clock.advance(RETENTION + DAY);
    const counts = Array.from({ length: 5 }, () => t.store.pruneTerminalRuns(RETENTION, 40, 0));
    expect(counts).toEqual([1, 1, 1, 1, 0]);
    const pruned = t.store.db
      .prepare(`SELECT payload_json FROM events WHERE type = 'store.pruned' ORDER BY seq`)
      .all() as Array<{ payload_json: string }>;
    expect(pruned.map((row) => (JSON.parse(row.payload_json) as { runs: number }).runs)).toEqual([
      1, 1, 1, 1,
    ]);
  });
});
