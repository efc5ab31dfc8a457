/**
 * RunListState against the real host (real-host.ts): paging with the store's keyset cursor, appending after
 * a refresh when newer runs pushed the loaded rows down, refreshing in place, and the keyboard cursor, with
 * the rows the store really returns.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunwardenApi } from '../../shared/contract';
import { RunListState } from '../../renderer/src/lib/state/run-list.svelte';
import {
  createRealHost,
  seedQuestion,
  seedRunningRuns,
  seedStaleRun,
  startRun,
  type RealHost,
} from './real-host';

const ALL = { view: 'all' as const, projectPath: null, search: '' };
const PERSON = { type: 'human', id: 'other-tab', surface: 'browser' } as const;

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
    // At the end, another loadMore asks for nothing.
    await list.loadMore();
    expect(h.count('listRuns')).toBe(3);
  });

  it('reads a short first page of a view in the store order, and full pages after it', async () => {
    const ids = seedRunningRuns(h, 30);
    const list = new RunListState(h.api, 20, 6);
    await list.load(ALL);
    expect(list.items.map((i) => i.run.id)).toEqual(ids.toReversed().slice(0, 6));
    expect(list.hasMore).toBe(true);
    await list.loadMore();
    expect(list.items).toHaveLength(26);
    await list.loadMore();
    expect(list.items.map((i) => i.run.id)).toEqual(ids.toReversed());
    expect(h.count('listRuns')).toBe(3);
  });

  it('pages Needs you in the store triage order: pages append, a refresh keeps the rows below in place', async () => {
    // Newest question due soonest; the stale run comes after every question whatever its age.
    seedStaleRun(h, 'stale one');
    for (let i = 0; i < 9; i++) seedQuestion(h, { title: `q${i}` }, { deadlineAt: h.now() + 9_000_000 - i });
    const list = new RunListState(h.api, 4, 4);
    await list.load({ ...ALL, view: 'needs-you' });
    expect(list.items).toHaveLength(4);
    expect(list.groups).toEqual({ answer: 9, stale: 1 });
    while (list.hasMore) await list.loadMore();
    const store = h.store.listRuns({ view: 'needs-you', limit: 100 }).items.map((i) => i.run.title);
    expect(list.items.map((i) => i.run.title)).toEqual(store);
    expect(store.at(-1)).toBe('stale one');
    expect(store[0]).toBe('q8');

    // A refresh that re-reads fewer rows than are loaded keeps the rest below, in their order, once.
    const small = new RunListState(h.api, 4, 4);
    await small.load({ ...ALL, view: 'needs-you' });
    await small.loadMore();
    seedQuestion(h, { title: 'due first' }, { deadlineAt: h.now() + 1_000 });
    await small.refresh();
    const titles = small.items.map((i) => i.run.title);
    expect(titles[0]).toBe('due first');
    expect(new Set(titles).size).toBe(titles.length);
    while (small.hasMore) await small.loadMore();
    expect(small.items.map((i) => i.run.title)).toEqual(
      h.store.listRuns({ view: 'needs-you', limit: 100 }).items.map((i) => i.run.title),
    );
    expect(small.groups).toEqual({ answer: 10, stale: 1 });
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

  it('drops answers to an older query, even when the older answer arrives last', async () => {
    startRun(h, { title: 'r' });
    seedStaleRun(h, 's');
    // A slow transport (the one thing the store cannot do): the first request's answer is held back
    // until the second one has been applied.
    let releaseFirst = () => {};
    const held = new Promise<void>((resolve) => (releaseFirst = resolve));
    let first = true;
    const slow: RunwardenApi = {
      ...h.api,
      listRuns: async (input) => {
        const result = await h.api.listRuns(input);
        if (first) {
          first = false;
          await held;
        }
        return result;
      },
    };
    const list = new RunListState(slow);
    const older = list.load({ ...ALL, view: 'running' });
    await list.load({ ...ALL, view: 'stale' });
    releaseFirst();
    await older;
    expect(list.items.map((i) => i.run.title)).toEqual(['s']);
  });

  it('refreshes what is loaded in place, keeping the active row and the tail past the cap', async () => {
    const runs = Array.from({ length: 30 }, (_, i) => startRun(h, { title: `run ${i}` }));
    const list = new RunListState(h.api, 10);
    await list.load(ALL);
    await list.loadMore();
    const target = list.items[12]!;
    list.activeId = target.run.id;
    const runner = runs.find((r) => r.runId === target.run.id)!;
    h.store.setProgress(runner.claim, 'changed');
    await list.refresh();
    expect(list.items).toHaveLength(20);
    expect(list.activeId).toBe(target.run.id);
    expect(list.itemById(target.run.id)?.run.statusDetail).toBe('changed');
    expect(list.itemById(target.run.id)?.run.revision).toBeGreaterThan(target.run.revision);
    expect(list.hasMore).toBe(true);
  });

  it('coalesces refreshes while one is running', async () => {
    startRun(h);
    const list = new RunListState(h.api);
    await list.load(ALL);
    const before = h.count('listRuns');
    await Promise.all([list.refresh(), list.refresh(), list.refresh()]);
    expect(h.count('listRuns') - before).toBe(2);
  });

  it('moves the keyboard cursor and clamps at the ends', async () => {
    seedRunningRuns(h, 3);
    const list = new RunListState(h.api);
    await list.load(ALL);
    expect(list.activeIndex).toBe(0);
    expect(list.moveActive(1)).toBe(1);
    expect(list.moveActive(5)).toBe(2);
    expect(list.moveActive(-9)).toBe(0);
  });

  it('keeps the cursor near its place when the active row leaves the view', async () => {
    const asked = [seedQuestion(h), seedQuestion(h), seedQuestion(h)];
    const list = new RunListState(h.api);
    await list.load({ ...ALL, view: 'needs-you' });
    expect(list.items).toHaveLength(3);
    list.moveActive(1);
    const leaving = asked.find((a) => a.runId === list.activeId)!;
    // Someone answers its question elsewhere (another tab, the CLI): the run no longer needs you.
    h.store.answerInteraction(leaving.interaction.id, {
      interactionRevision: leaving.interaction.revision,
      idempotencyKey: 'answered-elsewhere',
      payload: 'yes',
      actor: PERSON,
    });
    await list.refresh();
    expect(list.items).toHaveLength(2);
    expect(list.items.map((i) => i.run.id)).not.toContain(leaving.runId);
    expect(list.activeIndex).toBe(1);
  });
});
