/**
 * RunListState against the real host (real-host.ts): paging with the store's keyset cursor, and appending
 * after a refresh when newer runs pushed the loaded rows down, with the rows the store really returns.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunListState } from '../../renderer/src/lib/state/run-list.svelte';
import { createRealHost, seedRunningRuns, type RealHost } from './real-host';

const ALL = { view: 'all' as const, projectPath: null, search: '' };

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

describe('RunListState over the real host', () => {
  it('loads pages with the keyset cursor and appends without duplicates', async () => {
    const ids = seedRunningRuns(h, 25);
    const list = new RunListState(h.api, 10);
    await list.load(ALL);
    expect(list.items).toHaveLength(10);
    expect(list.hasMore).toBe(true);
    await list.loadMore();
    await list.loadMore();
    expect(list.items.map((i) => i.run.id)).toEqual(ids.toReversed());
    expect(list.hasMore).toBe(false);
    expect(list.items.every((i) => i.display.status === 'running')).toBe(true);
  });

  it('appends after a refresh without duplicates when newer runs pushed the loaded rows down', async () => {
    seedRunningRuns(h, 30);
    const list = new RunListState(h.api, 10);
    await list.load(ALL);
    await list.loadMore();
    seedRunningRuns(h, 5, 'newer');
    await list.refresh();
    expect(list.items).toHaveLength(20);
    while (list.hasMore) await list.loadMore();
    const ids = list.items.map((i) => i.run.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(35);
    expect(ids).toEqual(ids.toSorted().toReversed());
  });

  it('a view lists what the store says is in it: a run whose lease expired leaves Running for Stale', async () => {
    const [first] = seedRunningRuns(h, 3);
    const list = new RunListState(h.api, 10);
    await list.load({ ...ALL, view: 'running' });
    expect(list.items).toHaveLength(3);
    // Expire every lease by moving the host's clock past them: the store's view, not the test's, decides.
    h.advance(3_600_001);
    await list.load({ ...ALL, view: 'running' });
    expect(list.items).toHaveLength(0);
    await list.load({ ...ALL, view: 'stale' });
    expect(list.items.map((i) => i.run.id)).toContain(first);
  });
});
