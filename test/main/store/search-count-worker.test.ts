/**
 * The search-count worker (search-count-worker.ts): on its own connection it counts exactly what the store's
 * connection counts (trigram and scan needles, with and without a project); a waiting count is answered
 * `superseded` when a newer one of the same asker arrives, never with another query's numbers; past the cap the counts are a
 * lower bound and say so; a worker that died or stopped answers `unavailable`.
 */
import type { Worker } from 'node:worker_threads';
import { Worker as NodeWorker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startSearchCountWorker,
  tallySearchCounts,
  type SearchCountAnswer,
  type SearchCountRow,
  type SearchCountWorker,
} from '../../../main/store';
import { DEFAULT_DISPLAY_OPTIONS } from '../../../shared/display-status';
import { createContext } from '../../../main/store/store-context';
import { searchCountsStatement } from '../../../main/store/search-counts';
import { createTempStore, reserve, runnerOwner, type TempStore } from '../../helpers/temp-store';

let t: TempStore | null = null;
let worker: SearchCountWorker | null = null;

afterEach(async () => {
  await worker?.stop();
  worker = null;
  t?.cleanup();
  t = null;
});

/** Runs of every kind the counts place: queued, a live owner, an expired owner, a question. */
function seed(s: TempStore): void {
  for (let i = 0; i < 24; i += 1) {
    const run = reserve(s, { title: i % 3 === 0 ? `Deploy api ${i}` : `Build web ${i}`, workflow: 'ci' });
    if (i % 4 === 1) s.store.claimRun(run.id, { ...runnerOwner(`w${i}`), leaseMs: 1_000 });
    if (i % 4 === 2) {
      const { claim } = s.store.claimRun(run.id, { ...runnerOwner(`q${i}`), leaseMs: 3_600_000 });
      s.store.requestInteraction(claim, { kind: 'decision', title: 'Go?', choices: ['yes', 'no'] });
    }
  }
  s.clock.advance(10 * 60_000);
}

function rowsOf(answer: SearchCountAnswer): SearchCountRow[] {
  if (!answer.ok) throw new Error(`no rows: ${answer.reason}`);
  return answer.rows as SearchCountRow[];
}

async function started(s: TempStore, createWorker?: (src: string, o: object) => Worker) {
  const w = startSearchCountWorker(s.store.path, createWorker === undefined ? {} : { createWorker });
  expect(await w.ready).toBe(true);
  return w;
}

describe('search-count worker', () => {
  it('counts on its own connection exactly what the store counts, for every kind of needle', async () => {
    t = createTempStore();
    seed(t);
    worker = await started(t);
    const needles = ['deploy', 'web', 'CI', 'zz', 'nothing-matches'];
    let compared = 0;
    for (const search of needles) {
      for (const projectPath of [undefined, t.projectDir]) {
        const filter = { search, ...(projectPath !== undefined && { projectPath }) };
        const statement = t.store.searchCountsStatement(filter);
        expect(statement).not.toBeNull();
        const counted = tallySearchCounts(rowsOf(await worker.run(statement!)));
        const { items: _items, ...inline } = t.store.attentionSummary(0, filter);
        expect(counted, search).toEqual(inline);
        compared += 1;
      }
    }
    // Something was counted: the comparison is not of empty answers only.
    expect(t.store.attentionSummary(0, { search: 'web' }).counts).not.toEqual({});
    expect(compared).toBe(10);
    // A project that does not exist matches nothing, without a statement to run.
    expect(t.store.searchCountsStatement({ search: 'web', projectPath: '/no/such/project' })).toBeNull();
  });

  it('answers an asker\'s waiting count "superseded" when its newer one arrives; other askers\' wait their turn', async () => {
    t = createTempStore();
    seed(t);
    worker = await started(t);
    const statement = (search: string) => t!.store.searchCountsStatement({ search })!;
    const order: string[] = [];
    const ask = (search: string, key?: string) =>
      worker!.run(statement(search), key).then((answer) => {
        order.push(search);
        return answer;
      });
    // "deploy" is running when the others arrive; window A's "api" waits and is replaced by its "web";
    // window B's "build" and an asker without a key are not touched, and all run in the order asked.
    const [first, replaced, other, unkeyed, newest] = await Promise.all([
      ask('deploy', 'A'),
      ask('api', 'A'),
      ask('build', 'B'),
      ask('ci'),
      ask('web', 'A'),
    ]);
    expect(replaced).toEqual({ ok: false, reason: 'superseded' });
    expect(order).toEqual(['api', 'deploy', 'build', 'ci', 'web']);
    const inline = (search: string) => {
      const { items: _items, ...counts } = t!.store.attentionSummary(0, { search });
      return counts;
    };
    expect(tallySearchCounts(rowsOf(first))).toEqual(inline('deploy'));
    expect(tallySearchCounts(rowsOf(other))).toEqual(inline('build'));
    expect(tallySearchCounts(rowsOf(unkeyed))).toEqual(inline('ci'));
    expect(tallySearchCounts(rowsOf(newest))).toEqual(inline('web'));
    expect(inline('web')).not.toEqual(inline('deploy'));
  });

  it('past the cap, counts only up to it and says the numbers are a lower bound', async () => {
    t = createTempStore();
    seed(t);
    const ctx = createContext(t.store.db, t.clock, DEFAULT_DISPLAY_OPTIONS, null, {
      liveness: t.store.liveness,
    });
    worker = await started(t);
    const matches = t.store.attentionSummary(0, { search: 'web' });
    const total = Object.values(matches.counts).reduce((a, b) => a + (b ?? 0), 0);
    expect(total).toBe(16);
    for (const [cap, capped] of [
      [5, true],
      [15, true],
      [16, false],
      [100, false],
    ] as const) {
      const statement = searchCountsStatement(ctx, { search: 'web' }, t.clock(), cap)!;
      const counted = tallySearchCounts(rowsOf(await worker.run(statement)), cap);
      const sum = Object.values(counted.counts).reduce((a, b) => a + (b ?? 0), 0);
      expect(counted.capped, `cap ${cap}`).toBe(capped);
      expect(sum, `cap ${cap}`).toBe(Math.min(cap, total));
      // Each count is a floor of the full count.
      for (const [status, n] of Object.entries(counted.counts)) {
        expect(n).toBeLessThanOrEqual(matches.counts[status as keyof typeof matches.counts] ?? 0);
      }
      expect(counted.needsYou).toBeLessThanOrEqual(matches.needsYou);
      if (!capped) {
        expect(counted).toEqual({ counts: matches.counts, needsYou: matches.needsYou, capped: false });
      }
    }
  });

  it('answers "unavailable" once its thread died or it was stopped, and before it started', async () => {
    t = createTempStore();
    seed(t);
    let thread: Worker | null = null;
    const statement = t.store.searchCountsStatement({ search: 'web' })!;
    const w = startSearchCountWorker(t.store.path, {
      createWorker: (source, options) => (thread = new NodeWorker(source, options)),
      onError: () => {},
    });
    expect(await w.run(statement)).toEqual({ ok: false, reason: 'unavailable' });
    expect(await w.ready).toBe(true);
    expect((await w.run(statement)).ok).toBe(true);
    await thread!.terminate();
    expect(w.active).toBe(false);
    expect(await w.run(statement)).toEqual({ ok: false, reason: 'unavailable' });
    await w.stop();

    worker = await started(t);
    const pending = worker.run(statement);
    await worker.stop();
    // Stopped while it ran: answered either way, never left hanging.
    expect([true, false]).toContain((await pending).ok);
    expect(await worker.run(statement)).toEqual({ ok: false, reason: 'unavailable' });
  });
});
