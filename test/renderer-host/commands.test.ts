/**
 * The window's commands against the real host (real-host.ts): the revision a person saw is what the store
 * checks, a picked run keeps its revision, a late answer shows nothing on another run, a bulk action does
 * only what its dry run accepted, and a retry opens the run the store created.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppState } from '../../renderer/src/lib/state/app-state.svelte';
import { BulkDialogState } from '../../renderer/src/lib/state/bulk-dialog.svelte';
import { MemoryHistory } from '../renderer/memory-history';
import { createRealHost, RUNNER, seedCompletedRun, seedStaleRun, startRun, type RealHost } from './real-host';

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

describe('commands keep to what the person saw', () => {
  it('a confirmation sends the revision from when it opened, so a run that changed meanwhile is refused', async () => {
    const runId = seedStaleRun(h, 'stale one');
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.openRun(runId);
    await app.command.open('cancel');
    // Someone else (the CLI, another window) asks the run to pause while the dialog is open.
    const seen = h.store.getRun(runId).revision;
    h.store.requestPause(runId, { expectedRevision: seen, reason: 'elsewhere', actor: RUNNER });
    await app.detail.reload();
    await app.command.confirm();
    expect(app.detail.refusal?.error.code).toBe('STALE_VIEW');
    expect(h.store.getRun(runId).status).not.toBe('cancelled');
  });

  it('a runner that comes back while the cancel dialog is open makes the confirm STALE_VIEW, not LIVE_OWNER', async () => {
    const { runId, claim } = startRun(h, { title: 'back again', leaseMs: 1_000 });
    h.advance(1_001);
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.openRun(runId);
    expect(app.detail.data?.display.status).toBe('stale');
    await app.command.open('cancel');
    // The runner renews its lapsed lease: the store records that it came back (a new revision).
    expect(h.store.heartbeat(claim, 60_000).ok).toBe(true);
    await app.command.confirm();
    expect(app.detail.refusal?.error.code).toBe('STALE_VIEW');
    expect(h.store.getRun(runId).status).toBe('running');
  });

  it('a picked run keeps the revision it was picked at, so a bulk dry run flags it as changed', async () => {
    const done = seedCompletedRun(h, 'done');
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.setView('all');
    const item = app.list.items[0];
    if (item === undefined) throw new Error('no run listed');
    app.selection.toggle(item);
    // The run changes after it was picked: someone retries it from the CLI.
    h.store.retryRun(done, { expectedRevision: item.run.revision, actor: RUNNER });
    expect(h.store.getRun(done).revision).toBeGreaterThan(item.run.revision);
    await app.onChanged({ seq: h.store.lastEventSeq(), runIds: [done], at: h.now() });
    expect(app.selection.items()).toEqual([{ runId: done, expectedRevision: item.run.revision }]);
  });

  it('a command that answers after the person opened another run shows nothing on that run', async () => {
    const first = seedStaleRun(h, 'first');
    const second = seedStaleRun(h, 'second');
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.openRun(first);
    const pending = app.detail.run('cancel', { reason: 'gone' });
    await app.openRun(second);
    await pending;
    expect(app.detail.runId).toBe(second);
    expect(app.detail.notice).toBeNull();
    expect(app.detail.refusal).toBeNull();
    // The command itself was carried out on the run it was for.
    expect(h.store.getRun(first).status).toBe('cancelled');
  });
});

describe('BulkDialogState over the real host', () => {
  it('runs a dry run first and only acts on the items it accepted', async () => {
    const stale = seedStaleRun(h);
    const done = seedCompletedRun(h);
    const staleRevision = h.store.getRun(stale).revision;
    const bulk = new BulkDialogState(h.api);
    await bulk.open('cancel', [
      { runId: stale, expectedRevision: staleRevision },
      { runId: done, expectedRevision: h.store.getRun(done).revision },
    ]);
    expect(bulk.preview?.items.map((i) => i.ok)).toEqual([true, false]);
    // The dry run wrote nothing.
    expect(h.store.getRun(stale).status).toBe('running');
    expect(bulk.requiresTyping).toBe(false);
    expect(bulk.canConfirm).toBe(true);
    bulk.reason = '  ';
    expect(bulk.canConfirm).toBe(false);
    bulk.reason = 'cleanup';
    const result = await bulk.confirm();
    expect(result?.succeeded).toBe(1);
    const real = h.calls.filter(([m]) => m === 'bulkAction').at(-1)?.[1] as {
      items: unknown[];
      dryRun: boolean;
    };
    expect(real.dryRun).toBe(false);
    expect(real.items).toEqual([{ runId: stale, expectedRevision: staleRevision }]);
    expect(h.store.getRun(stale).status).toBe('cancelled');
    expect(h.store.getRun(done).status).toBe('completed');
  });
});

describe('retry over the real host', () => {
  it('opens the new run the store created, with lineage retry', async () => {
    const done = seedCompletedRun(h, 'nightly');
    const app = new AppState(h.api, new MemoryHistory(), h.now);
    app.start();
    await app.openRun(done);
    await app.runAction('retry');
    const created = app.route.runId;
    expect(created).not.toBe(done);
    expect(h.store.getRun(created ?? '').id).toBe(created);
    expect(app.detail.runId).toBe(created);
    expect(h.store.getRun(created ?? '')).toMatchObject({
      parentRunId: done,
      lineage: 'retry',
      title: 'nightly',
    });
    expect(app.announcement).toMatch(/^Retried as a new run /);
  });
});
