/**
 * The tab counts of a search (search-counts.ts) agree with the list the same search shows, per display status
 * and for "needs you", with a project filter and without; a partial run id is a search that finds its run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { displayStatus } from '../../../shared/display-status';
import { createTempStore, reserve, runnerOwner, type TempStore } from '../../helpers/temp-store';

let t: TempStore;
afterEach(() => t.cleanup());

/** Display statuses of every run the list shows for a search (all pages). */
function listed(search: string, view: 'all' | 'needs-you', projectPath?: string): string[] {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const page = t.store.listRuns({ view, search, limit: 7, cursor, ...(projectPath && { projectPath }) });
    out.push(...page.items.map((i) => i.display.status));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return out;
}

function tally(statuses: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

describe('search counts', () => {
  it('count per status and needs-you exactly what the searched list shows', () => {
    t = createTempStore();
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const run = reserve(t, { title: i % 3 === 0 ? `Deploy api ${i}` : `Build web ${i}`, workflow: 'ci' });
      ids.push(run.id);
      if (i % 4 === 1) t.store.claimRun(run.id, { ...runnerOwner(`w${i}`), leaseMs: 1_000 });
      if (i % 4 === 2) {
        const { claim } = t.store.claimRun(run.id, { ...runnerOwner(`q${i}`), leaseMs: 3_600_000 });
        t.store.requestInteraction(claim, { kind: 'decision', title: 'Go?', choices: ['yes', 'no'] });
      }
    }
    t.clock.advance(10 * 60_000);
    // Every kind the counts must place: stale (an expired owner), a question, queued (unattended: needs you).
    expect(Object.keys(t.store.attentionSummary(1).counts).sort()).toEqual([
      'needs-answer',
      'queued',
      'stale',
    ]);
    for (const search of ['deploy', 'web', 'CI', 'zz', ids[5]!.slice(0, 14), ids[7]!.slice(4, 16)]) {
      const summary = t.store.attentionSummary(50, { search });
      expect(summary.counts, search).toEqual(tally(listed(search, 'all')));
      expect(summary.needsYou, search).toBe(listed(search, 'needs-you').length);
      expect(summary.items.length, search).toBe(Math.min(50, summary.needsYou));
      expect(summary.capped).toBe(false);
    }
    // The unfiltered counts are the same numbers the reducer gives run by run.
    const everything = t.store.attentionSummary(50);
    const byReducer = tally(
      ids.map((id) => displayStatus(t.store.getRunDetail(id, { eventsLimit: 1 }).snapshot, t.clock()).status),
    );
    expect(everything.counts).toEqual(byReducer);
    expect(t.store.attentionSummary(50, { search: 'web', projectPath: t.projectDir }).counts).toEqual(
      tally(listed('web', 'all', t.projectDir)),
    );
    expect(t.store.attentionSummary(50, { search: 'web', projectPath: '/no/such/project' }).counts).toEqual(
      {},
    );
  });

  it('a run id, or its start with or without run_, finds the run; too short a start finds none by id', () => {
    t = createTempStore();
    const run = reserve(t, { title: 'Nightly' });
    reserve(t, { title: 'Other' });
    const find = (search: string) =>
      t.store.listRuns({ view: 'all', search, limit: 10 }).items.map((i) => i.run.id);
    expect(find(run.id)).toEqual([run.id]);
    expect(find(run.id.toUpperCase())).toEqual([run.id]);
    expect(find(run.id.slice(0, 20))).toContain(run.id);
    expect(find(run.id.slice(4, 20))).toContain(run.id);
    expect(find(run.id.slice(4, 7))).toEqual([]);
    expect(find('run_')).toEqual([]);
    expect(t.store.attentionSummary(5, { search: run.id.slice(4) }).counts).toEqual({ queued: 1 });
    expect(t.store.doctor().integrity).toBe('ok');
  });
});
