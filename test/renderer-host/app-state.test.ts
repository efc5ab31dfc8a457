/**
 * AppState against the real host (real-host.ts): the route in the hash, keys while a view loads, the
 * host's attention pushes, and the run timeline paged over the events the store really recorded.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Interaction } from '../../shared/domain';
import { AppState } from '../../renderer/src/lib/state/app-state.svelte';
import { paletteEntries } from '../../renderer/src/lib/state/palette-entries';
import { RUN_VIEWS } from '../../shared/views';
import { MemoryHistory } from '../renderer/memory-history';
import {
  createRealHost,
  projectPath,
  seedCompletedRun,
  seedQuestion,
  seedStaleRun,
  startRun,
  type RealHost,
} from './real-host';

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

describe('AppState over the real host', () => {
  it('keeps view, project, search and run in the hash, and follows back/forward', async () => {
    const one = projectPath(h, 'one');
    const run = seedStaleRun(h, 'stale', [], { projectPath: one });
    startRun(h, { projectPath: projectPath(h, 'two') });
    const history = new MemoryHistory();
    const app = new AppState(h.api, history, h.now);
    const stop = app.start();
    await app.setView('stale');
    await app.setProject(one);
    await app.openRun(run);
    expect(history.hash).toBe(`#/stale?project=${encodeURIComponent(one)}&run=${run}`);
    expect(app.detail.data?.snapshot.run.id).toBe(run);
    await app.setSearch('deploy');
    expect(history.log.at(-1)?.[0]).toBe('replace');
    history.go('#/running');
    await new Promise((r) => setTimeout(r, 0));
    expect(app.route).toEqual({ view: 'running', projectPath: null, runId: null, search: '' });
    expect(app.detail.runId).toBeNull();
    expect(h.calls.filter(([m]) => m === 'listRuns').at(-1)?.[1]).toMatchObject({ view: 'running' });
    stop();
    expect(h.listenerCount()).toBe(0);
  });

  it('the selection is what the list shows: a search or a view change drops the picked runs out of sight', async () => {
    seedCompletedRun(h, 'done one');
    seedCompletedRun(h, 'done two');
    const stale = seedStaleRun(h, 'stale one');
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.setView('all');
    app.handleCommand({ kind: 'selectAll' });
    expect(app.selection.count).toBe(3);
    await app.setSearch('stale');
    expect(app.list.items.map((i) => i.run.id)).toEqual([stale]);
    expect([...app.selection.picked.keys()]).toEqual([stale]);
    expect(app.announcement).toMatch(/^2 selected runs are not in this view/);
    await app.setSearch('');
    await app.setView('failed');
    expect(app.selection.count).toBe(0);
  });

  it('Home, End, PageUp and PageDown move the keyboard cursor over the loaded rows', async () => {
    for (let i = 0; i < 30; i++) seedCompletedRun(h, `done ${i}`);
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.setView('all');
    app.handleCommand({ kind: 'jump', to: 'last' });
    expect(app.list.activeIndex).toBe(app.list.items.length - 1);
    app.handleCommand({ kind: 'jump', to: 'pageUp' });
    expect(app.list.activeIndex).toBe(app.list.items.length - 16);
    app.handleCommand({ kind: 'jump', to: 'first' });
    expect(app.list.activeIndex).toBe(0);
    app.handleCommand({ kind: 'jump', to: 'pageDown' });
    expect(app.list.activeIndex).toBe(15);
  });

  it('ignores j/k/Enter while a new view loads, so a key never opens a row of the old view', async () => {
    seedCompletedRun(h, 'done one');
    const stale = seedStaleRun(h, 'stale one');
    const app = new AppState(h.api, new MemoryHistory(), h.now);
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
    expect(app.route.runId).toBe(stale);
  });

  it('announces when more runs need you, from the host’s attention push', async () => {
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    // A runner asks a question: the host's change feed pushes the new attention summary.
    seedQuestion(h);
    await vi.waitFor(() => expect(app.projects.needsYou).toBe(1), { timeout: 5_000 });
    // The first summary the window sees is where it starts from, not news.
    expect(app.announcement).toBe('');
    seedStaleRun(h);
    await vi.waitFor(() => expect(app.announcement).toBe('2 runs need you.'), { timeout: 5_000 });
    expect(app.projects.needsYou).toBe(2);
  });

  it('the live region follows Needs you down: an answered question leaves no "1 run needs you."', async () => {
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    const first = seedQuestion(h).interaction;
    await vi.waitFor(() => expect(app.projects.needsYou).toBe(1), { timeout: 5_000 });
    const second = seedQuestion(h).interaction;
    await vi.waitFor(() => expect(app.announcement).toBe('2 runs need you.'), { timeout: 5_000 });
    // Answered elsewhere (the CLI, another window): the count falls, and the region says so.
    const answer = (q: Interaction, key: string) =>
      h.store.answerInteraction(q.id, {
        interactionRevision: q.revision,
        idempotencyKey: key,
        payload: 'yes',
        actor: { type: 'human', id: 'dev', surface: 'cli' },
      });
    answer(first, 'cli-1');
    await vi.waitFor(() => expect(app.announcement).toBe('1 run needs you.'), { timeout: 5_000 });
    answer(second, 'cli-2');
    await vi.waitFor(() => expect(app.projects.needsYou).toBe(0), { timeout: 5_000 });
    expect(app.announcement).toBe('Nothing needs you now.');
    // Their notifications are resolved: not unread, and said as answered.
    await vi.waitFor(
      () =>
        expect(
          app.notifications.items.map((n) => [n.interactionId, n.resolution, n.readAt !== null]),
        ).toEqual([
          [second.id, 'answered', true],
          [first.id, 'answered', true],
        ]),
      { timeout: 5_000 },
    );
    expect(app.notifications.unread).toBe(0);
  }, 30_000);
});

describe('the command palette’s entries', () => {
  it('lists the selected run’s group first, then Go to, then Window, each in its order', async () => {
    const stale = seedStaleRun(h, 'stale one');
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    const windowIds = ['select-all', 'notifications', 'settings', 'shortcuts', 'sidebar'];
    const goToIds = [...RUN_VIEWS.map((view) => `view-${view}`), 'search'];
    // No run selected: no "Selected run" group at all.
    expect(paletteEntries(app).map((e) => e.id)).toEqual([...goToIds, ...windowIds]);

    await app.setView('stale');
    await app.openRun(stale);
    const entries = paletteEntries(app);
    expect(entries[0]).toMatchObject({
      id: 'run-open',
      group: 'Selected run',
      label: 'Open the run — stale one',
      keys: 'Enter',
    });
    const groups = entries.map((e) => e.group);
    expect(groups.lastIndexOf('Selected run')).toBeLessThan(groups.indexOf('Go to'));
    expect(entries.slice(groups.indexOf('Go to')).map((e) => e.id)).toEqual([...goToIds, ...windowIds]);
    expect(entries.find((e) => e.id === 'run-select')).toMatchObject({ keys: 'x' });

    const shortcuts = entries.find((e) => e.id === 'shortcuts');
    expect(shortcuts).toMatchObject({ label: 'Keyboard shortcuts', keys: '?' });
    await shortcuts?.perform();
    expect(app.panel).toBe('shortcuts');
    expect(entries.find((e) => e.id === 'sidebar')?.label).toBe('Hide projects');
    await entries.find((e) => e.id === 'sidebar')?.perform();
    expect(app.sidebarCollapsed).toBe(true);
    expect(paletteEntries(app).find((e) => e.id === 'sidebar')?.label).toBe('Show projects');
  });
});

// Seeding over a thousand events is a thousand write transactions: slow on a loaded machine, so these
// two tests get more time than the default (what they check does not depend on it).
describe('run timeline paging over the real host', { timeout: 30_000 }, () => {
  /** The seqs of every event the store holds for a run, newest first. */
  const storedSeqs = (runId: string) =>
    h.store
      .getRunDetail(runId, { eventsLimit: 10_000 })
      .events.map((e) => e.seq)
      .toSorted((a, b) => b - a);

  it('loads older events page by page until the first one, each event once', async () => {
    const { runId, claim } = startRun(h, { title: 'long history' });
    for (let i = 0; i < 1_200; i += 1) h.store.setProgress(claim, `step ${i}`);
    h.store.completeRun(claim);
    const all = storedSeqs(runId);
    expect(all.length).toBeGreaterThan(1_200);
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.openRun(runId);
    expect(app.detail.events).toHaveLength(500);
    expect(app.detail.hasOlderEvents).toBe(true);
    await app.detail.loadOlderEvents();
    await app.detail.reload();
    expect(app.detail.events).toHaveLength(1_000);
    await app.detail.loadOlderEvents();
    expect(app.detail.hasOlderEvents).toBe(false);
    const seqs = app.detail.events.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(all.length);
    expect(seqs.at(-1)).toBe(all.at(-1));
    expect(app.detail.events.at(-1)?.type).toBe('run.reserved');
  });

  it('keeps the timeline whole when new events arrive after older pages were loaded', async () => {
    const { runId, claim } = startRun(h, { title: 'still busy' });
    for (let i = 0; i < 700; i += 1) h.store.setProgress(claim, `step ${i}`);
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.openRun(runId);
    await app.detail.loadOlderEvents();
    expect(app.detail.events).toHaveLength(storedSeqs(runId).length);
    // 30 new events: the first page now starts 30 higher, and 30 events fall between it and the older page.
    for (let i = 0; i < 30; i += 1) h.store.setProgress(claim, `late ${i}`);
    await app.detail.reload();
    const seqs = app.detail.events.map((e) => e.seq);
    expect(seqs).toEqual(storedSeqs(runId));
    expect(seqs.length).toBeGreaterThanOrEqual(730);
  });
});
