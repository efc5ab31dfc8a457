import { describe, expect, it } from 'vitest';
import { AppState } from '../../../../renderer/src/lib/state/app-state.svelte';
import { BulkDialogState } from '../../../../renderer/src/lib/state/bulk-dialog.svelte';
import { RunListState } from '../../../../renderer/src/lib/state/run-list.svelte';
import { FakeApi, NOW, scenario } from '../../fake-api';
import { MemoryHistory } from '../../memory-history';

const ALL = { view: 'all' as const, projectPath: null, search: '' };

describe('RunListState', () => {
  it('loads pages with a keyset cursor and appends without duplicates', async () => {
    const fake = new FakeApi(Array.from({ length: 25 }, () => scenario.running()));
    const list = new RunListState(fake.api, 10);
    await list.load(ALL);
    expect(list.items).toHaveLength(10);
    expect(list.hasMore).toBe(true);
    await list.loadMore();
    await list.loadMore();
    expect(list.items).toHaveLength(25);
    expect(new Set(list.items.map((i) => i.run.id)).size).toBe(25);
    expect(list.hasMore).toBe(false);
    await list.loadMore();
    expect(fake.count('listRuns')).toBe(3);
  });

  it('appends after a refresh without duplicates: the loaded-id set follows every replacement', async () => {
    const fake = new FakeApi(Array.from({ length: 30 }, () => scenario.running()));
    const list = new RunListState(fake.api, 10);
    await list.load(ALL);
    await list.loadMore();
    // Newer runs push the loaded rows down: the refreshed head overlaps what the next page returns.
    fake.add(...Array.from({ length: 5 }, () => scenario.running()));
    await list.refresh();
    expect(list.items).toHaveLength(20);
    while (list.hasMore) await list.loadMore();
    const ids = list.items.map((i) => i.run.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(35);
    expect(ids).toEqual(ids.toSorted().toReversed());
  });

  it('drops answers to an older query', async () => {
    const fake = new FakeApi([scenario.running({ title: 'r' }), scenario.stale({ title: 's' })]);
    const list = new RunListState(fake.api);
    const first = list.load({ ...ALL, view: 'running' });
    const second = list.load({ ...ALL, view: 'stale' });
    await Promise.all([first, second]);
    expect(list.items.map((i) => i.run.title)).toEqual(['s']);
  });

  it('refreshes what is loaded in place, keeping the active row and the tail past the cap', async () => {
    const fake = new FakeApi(Array.from({ length: 30 }, () => scenario.running()));
    const list = new RunListState(fake.api, 10);
    await list.load(ALL);
    await list.loadMore();
    const target = list.items[12]!;
    list.activeId = target.run.id;
    const r = fake.runs.get(target.run.id)!;
    r.run = { ...r.run, title: 'changed', revision: 5 };
    await list.refresh();
    expect(list.items).toHaveLength(20);
    expect(list.activeId).toBe(target.run.id);
    expect(list.itemById(target.run.id)?.run.title).toBe('changed');
    expect(list.hasMore).toBe(true);
  });

  it('coalesces refreshes while one is running', async () => {
    const fake = new FakeApi([scenario.running()]);
    const list = new RunListState(fake.api);
    await list.load(ALL);
    const before = fake.count('listRuns');
    await Promise.all([list.refresh(), list.refresh(), list.refresh()]);
    expect(fake.count('listRuns') - before).toBe(2);
  });

  it('moves the keyboard cursor and clamps at the ends', async () => {
    const fake = new FakeApi([scenario.running(), scenario.running(), scenario.running()]);
    const list = new RunListState(fake.api);
    await list.load(ALL);
    expect(list.activeIndex).toBe(0);
    expect(list.moveActive(1)).toBe(1);
    expect(list.moveActive(5)).toBe(2);
    expect(list.moveActive(-9)).toBe(0);
  });

  it('keeps the cursor near its place when the active row leaves the view', async () => {
    const runs = [scenario.needsAnswer(), scenario.needsAnswer(), scenario.needsAnswer()];
    const fake = new FakeApi(runs);
    const list = new RunListState(fake.api);
    await list.load({ ...ALL, view: 'needs-you' });
    list.moveActive(1);
    const leaving = list.activeId!;
    fake.runs.get(leaving)!.interactions = [];
    fake.runs.get(leaving)!.run = { ...fake.runs.get(leaving)!.run, status: 'running' };
    await list.refresh();
    expect(list.items).toHaveLength(2);
    expect(list.activeIndex).toBe(1);
  });
});

describe('AppState', () => {
  it('keeps view, project, search and run in the hash, and follows back/forward', async () => {
    const run = scenario.stale({ projectPath: '/p/one' });
    const fake = new FakeApi([run, scenario.running({ projectPath: '/p/two' })]);
    const history = new MemoryHistory();
    const app = new AppState(fake.api, history, () => NOW);
    const stop = app.start();
    await app.setView('stale');
    await app.setProject('/p/one');
    await app.openRun(run.run.id);
    expect(history.hash).toBe(`#/stale?project=%2Fp%2Fone&run=${run.run.id}`);
    expect(app.detail.data?.snapshot.run.id).toBe(run.run.id);
    await app.setSearch('deploy');
    expect(history.log.at(-1)?.[0]).toBe('replace');
    history.go('#/running');
    await new Promise((r) => setTimeout(r, 0));
    expect(app.route).toEqual({ view: 'running', projectPath: null, runId: null, search: '' });
    expect(app.detail.runId).toBeNull();
    expect(fake.calls.filter(([m]) => m === 'listRuns').at(-1)?.[1]).toMatchObject({ view: 'running' });
    stop();
    expect([...fake.listeners.values()].every((s) => s.size === 0)).toBe(true);
  });

  it('ignores j/k/Enter while a new view loads, so a key never opens a row of the old view', async () => {
    const stale = scenario.stale({ title: 'stale one' });
    const done = scenario.completed({ title: 'done one' });
    const fake = new FakeApi([done, stale]);
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    await app.setView('all');
    const switching = app.setView('stale');
    expect(app.list.loading).toBe(true);
    app.handleCommand({ kind: 'next' });
    app.handleCommand({ kind: 'open' });
    await switching;
    expect(app.route.runId).toBeNull();
    app.handleCommand({ kind: 'open' });
    await new Promise((r) => setTimeout(r, 0));
    expect(app.route.runId).toBe(stale.run.id);
  });

  it('announces when more runs need you', () => {
    const fake = new FakeApi();
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    fake.emit('attention', { counts: {}, needsYou: 1, tray: 'needs-answer' });
    expect(app.announcement).toBe('');
    fake.emit('attention', { counts: { stale: 2 }, needsYou: 2, tray: 'stale' });
    expect(app.announcement).toBe('2 runs need you.');
    expect(app.projects.needsYou).toBe(2);
  });
});

describe('BulkDialogState', () => {
  it('runs a dry run first and only acts on the items it accepted', async () => {
    const stale = scenario.stale();
    const done = scenario.completed();
    const fake = new FakeApi([stale, done]);
    const bulk = new BulkDialogState(fake.api);
    await bulk.open('cancel', [
      { runId: stale.run.id, expectedRevision: 1 },
      { runId: done.run.id, expectedRevision: 1 },
    ]);
    expect(bulk.preview?.items.map((i) => i.ok)).toEqual([true, false]);
    expect(bulk.requiresTyping).toBe(false);
    expect(bulk.canConfirm).toBe(true);
    bulk.reason = '  ';
    expect(bulk.canConfirm).toBe(false);
    bulk.reason = 'cleanup';
    const result = await bulk.confirm();
    expect(result?.succeeded).toBe(1);
    const real = fake.calls.filter(([m]) => m === 'bulkAction').at(-1)?.[1] as {
      items: unknown[];
      dryRun: boolean;
    };
    expect(real.dryRun).toBe(false);
    expect(real.items).toEqual([{ runId: stale.run.id, expectedRevision: 1 }]);
  });
});

describe('commands keep to what the person saw', () => {
  it('a confirmation sends the revision from when it opened, so a run that changed meanwhile is refused', async () => {
    const stale = scenario.stale({ title: 'stale one' });
    const fake = new FakeApi([stale]);
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    await app.openRun(stale.run.id);
    await app.command.open('cancel');
    // Someone else touches the run; the detail pane re-reads it while the dialog is open.
    stale.run = { ...stale.run, revision: stale.run.revision + 1 };
    await app.detail.reload();
    await app.command.confirm();
    expect(app.detail.refusal?.error.code).toBe('STALE_VIEW');
    expect(fake.runs.get(stale.run.id)?.run.status).not.toBe('cancelled');
  });

  it('a picked run keeps the revision it was picked at, so a bulk dry run flags it as changed', async () => {
    const failed = scenario.completed({ title: 'done' });
    const fake = new FakeApi([failed]);
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    await app.setView('all');
    const item = app.list.items[0];
    if (item === undefined) throw new Error('no run listed');
    app.selection.toggle(item);
    failed.run = { ...failed.run, revision: failed.run.revision + 1 };
    await app.onChanged({ seq: 2, runIds: [failed.run.id], at: NOW });
    expect(app.selection.items()).toEqual([{ runId: failed.run.id, expectedRevision: item.run.revision }]);
  });

  it('a command that answers after the person opened another run shows nothing on that run', async () => {
    const first = scenario.stale({ title: 'first' });
    const second = scenario.stale({ title: 'second' });
    const fake = new FakeApi([first, second]);
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    await app.openRun(first.run.id);
    const pending = app.detail.run('cancel', { reason: 'gone' });
    await app.openRun(second.run.id);
    await pending;
    expect(app.detail.runId).toBe(second.run.id);
    expect(app.detail.notice).toBeNull();
    expect(app.detail.refusal).toBeNull();
  });
});

describe('retry', () => {
  it('opens the new run it created', async () => {
    const done = scenario.completed({ title: 'nightly' });
    const fake = new FakeApi([done]);
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    await app.openRun(done.run.id);
    await app.runAction('retry');
    expect(app.route.runId).not.toBe(done.run.id);
    expect(app.detail.runId).toBe(app.route.runId);
    expect(fake.runs.has(app.route.runId ?? '')).toBe(true);
    expect(app.announcement).toMatch(/^Retried as a new run /);
  });
});

describe('run timeline paging', () => {
  it('loads older events page by page until the first one, each event once', async () => {
    const busy = scenario.completed({ title: 'long history' });
    busy.events = Array.from({ length: 1_203 }, (_, i) => ({
      seq: i + 1,
      runId: busy.run.id,
      runRevision: i + 1,
      type: 'run.progress' as const,
      actorType: 'runner' as const,
      actorId: 'r1',
      surface: 'sdk' as const,
      leaseGeneration: 1,
      payload: { detail: `step ${i}` },
      at: NOW - (1_203 - i) * 1_000,
    }));
    const fake = new FakeApi([busy]);
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    await app.openRun(busy.run.id);
    expect(app.detail.events).toHaveLength(500);
    expect(app.detail.hasOlderEvents).toBe(true);
    await app.detail.loadOlderEvents();
    await app.detail.reload();
    expect(app.detail.events).toHaveLength(1_000);
    await app.detail.loadOlderEvents();
    expect(app.detail.hasOlderEvents).toBe(false);
    const seqs = app.detail.events.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(1_203);
    expect(seqs.at(-1)).toBe(1);
  });

  it('keeps the timeline whole when new events arrive after older pages were loaded', async () => {
    const busy = scenario.completed({ title: 'still busy' });
    const event = (seq: number) => ({
      seq,
      runId: busy.run.id,
      runRevision: seq,
      type: 'run.progress' as const,
      actorType: 'runner' as const,
      actorId: 'r1',
      surface: 'sdk' as const,
      leaseGeneration: 1,
      payload: {},
      at: NOW + seq,
    });
    busy.events = Array.from({ length: 700 }, (_, i) => event(i + 1));
    const fake = new FakeApi([busy]);
    const app = new AppState(fake.api, new MemoryHistory(), () => NOW);
    app.start();
    await app.openRun(busy.run.id);
    await app.detail.loadOlderEvents();
    expect(app.detail.events).toHaveLength(700);
    // 30 new events: the first page now starts 30 higher, and 30 events fall between it and the older page.
    busy.events = [...busy.events, ...Array.from({ length: 30 }, (_, i) => event(701 + i))];
    await app.detail.reload();
    const seqs = app.detail.events.map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: 730 }, (_, i) => 730 - i));
  });
});
