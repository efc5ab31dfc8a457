import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_AUTOCHECKPOINT_PAGES, startHygieneWorker, type HygieneWorker } from '../../../main/store';
import {
  createTempStore,
  denyWrites,
  HUMAN,
  reserve,
  RUNNER_ACTOR,
  type TempStore,
} from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';

let t: TempStore | null = null;
let worker: HygieneWorker | null = null;

afterEach(async () => {
  await worker?.stop();
  worker = null;
  t?.cleanup();
  t = null;
});

const walBytes = (file: string): number => {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

/** Leaf pages of the search index's segments (FTS5 numbers them from segment id << 37 in %_data). */
const searchLeafPages = (s: TempStore): number =>
  (s.store.db.prepare(`SELECT count(*) AS n FROM run_search_data WHERE id >= 1 << 37`).get() as { n: number })
    .n;

describe('store hygiene worker', () => {
  it("turns the host connection's auto-checkpoint off while it runs, and copies the WAL back itself", async () => {
    t = createTempStore();
    worker = startHygieneWorker(t.store, { intervalMs: 60_000 });
    expect(await worker.ready).toBe(true);
    expect(worker.active).toBe(true);
    expect(t.store.autoCheckpointPages()).toBe(0);

    // More than SQLite's 1,000-page threshold: with auto-checkpoint on, commits would have copied it back.
    const note = 'x'.repeat(3_000);
    for (let i = 0; i < 1_500; i += 1) t.store.setSetting(`k${i}`, note, HUMAN);
    const result = await worker.runNow();
    expect(result).not.toBeNull();
    expect(result!.walPages).toBeGreaterThan(DEFAULT_AUTOCHECKPOINT_PAGES);
    expect(result!.checkpointed).toBe(result!.walPages);
    expect(worker.last).toEqual(result);

    // A second connection (a runner) reads everything; the store is whole.
    const other = t.reopen();
    try {
      expect(other.getSetting('k1499', null)).toBe(note);
    } finally {
      other.close();
    }
    expectInvariants(t.store);
    expectHealthy(t.store);

    await worker.stop();
    expect(worker.active).toBe(false);
    expect(t.store.autoCheckpointPages()).toBe(DEFAULT_AUTOCHECKPOINT_PAGES);
    expect(await worker.runNow()).toBeNull();
  });

  it('merges the search index, which does not merge by itself, and search still finds every run', async () => {
    t = createTempStore();
    // One segment per committing transaction: with automerge off (migration 0005) they pile up.
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      ids.push(
        t.store.reserveRun({ projectPath: t.projectDir, workflow: 'w', title: `needle ${i}` }, RUNNER_ACTOR)
          .id,
      );
    }
    const piled = searchLeafPages(t);
    expect(piled).toBeGreaterThanOrEqual(12);

    worker = startHygieneWorker(t.store, { intervalMs: 60_000 });
    expect(await worker.ready).toBe(true);
    const rounds: boolean[] = [];
    for (let i = 0; i < 10; i += 1) rounds.push((await worker.runNow())!.merged);
    expect(rounds[0]).toBe(true);
    expect(rounds.at(-1)).toBe(false); // nothing left to do: fewer than 4 segments on every level
    expect(searchLeafPages(t)).toBeLessThan(piled);
    const found = t.store.listRuns({ view: 'all', limit: 50, search: 'needle' }).items.map((i) => i.run.id);
    expect(found.sort()).toEqual([...ids].sort());
    expectHealthy(t.store);
  });

  it('runs on its interval without being asked', async () => {
    t = createTempStore();
    const seen: number[] = [];
    worker = startHygieneWorker(t.store, { intervalMs: 20, onRound: (r) => seen.push(r.checkpointed) });
    expect(await worker.ready).toBe(true);
    reserve(t);
    expect(walBytes(t.path)).toBeGreaterThan(0);
    await expect.poll(() => seen.some((n) => n > 0), { timeout: 5_000, interval: 20 }).toBe(true);
  });

  it('skips timed rounds while nothing was committed, and resumes on the next commit', async () => {
    t = createTempStore();
    let rounds = 0;
    worker = startHygieneWorker(t.store, { intervalMs: 10, onRound: () => (rounds += 1) });
    expect(await worker.ready).toBe(true);
    reserve(t);
    await expect.poll(() => rounds, { timeout: 5_000, interval: 10 }).toBeGreaterThan(0);
    // Settled: the WAL is copied back and nothing else committed, so at most one more round runs.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const settled = rounds;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rounds - settled).toBeLessThanOrEqual(1);
    const quiet = rounds;
    reserve(t);
    await expect.poll(() => rounds, { timeout: 5_000, interval: 10 }).toBeGreaterThan(quiet);
    // Asked for, a round always runs.
    expect(await worker.runNow()).not.toBeNull();
  });

  it('leaves auto-checkpoint on, and says why, when the worker cannot open the store', async () => {
    t = createTempStore();
    const missing = `${t.dir}/no-such.sqlite`;
    const errors: Error[] = [];
    worker = startHygieneWorker(t.store, {
      intervalMs: 60_000,
      onError: (e) => errors.push(e),
      // The store file vanishes between the host's open and the worker's.
      createWorker: (source, options) =>
        new Worker(source, {
          ...options,
          workerData: { ...options.workerData, file: missing },
        }),
    });
    expect(await worker.ready).toBe(false);
    expect(worker.active).toBe(false);
    expect(t.store.autoCheckpointPages()).toBe(DEFAULT_AUTOCHECKPOINT_PAGES);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/unable to open|no such|SQLITE_CANTOPEN/i);
    expect(await worker.runNow()).toBeNull();
    reserve(t);
    expectInvariants(t.store);
  });

  it('turns auto-checkpoint back on when the worker dies after starting', async () => {
    t = createTempStore();
    const errors: Error[] = [];
    let thread: Worker | null = null;
    worker = startHygieneWorker(t.store, {
      intervalMs: 60_000,
      onError: (e) => errors.push(e),
      createWorker: (source, options) => (thread = new Worker(source, options)),
    });
    expect(await worker.ready).toBe(true);
    expect(t.store.autoCheckpointPages()).toBe(0);
    await thread!.terminate();
    await expect
      .poll(() => t!.store.autoCheckpointPages(), { timeout: 5_000 })
      .toBe(DEFAULT_AUTOCHECKPOINT_PAGES);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/exited/)]);
  });

  it('refuses a read-only store: there is nothing to do', () => {
    t = createTempStore();
    // Read-only by the file, not on request: a store asked for read-only is typed a reader and could not
    // be handed to a writer's consumer at all. Tests run as root, so the denial is injected.
    const ro = t.reopen({ access: denyWrites });
    expect(ro.mode).toBe('read-only');
    try {
      expect(() => startHygieneWorker(ro)).toThrow(/read-only/);
    } finally {
      ro.close();
    }
  });
});
