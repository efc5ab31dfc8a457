/**
 * The window's search counts (state/search-counts.svelte.ts) over the real host, whose search-count worker
 * counts one search at a time and answers a window's older waiting one SUPERSEDED when the same window asks
 * again: a count that comes back after a newer search (or after the search was cleared) never lands, and
 * windows searching at once each get their own numbers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SearchCountsState } from '../../renderer/src/lib/state/search-counts.svelte';
import { createRealHost, seedQuestion, seedStaleRun, startRun, type RealHost } from './real-host';

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
  seedStaleRun(h, 'zebra api');
  seedStaleRun(h, 'build web');
  seedQuestion(h, { title: 'zebra web' });
  startRun(h, { title: 'zebra docs' });
});
afterEach(() => {
  h.cleanup();
});

const ALL = (search: string) => ({ search, projectPath: null });

/** Three searches of one asker at once, straight at the host, until the worker is up and drops the middle one. */
async function untilSuperseding(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answers = await Promise.all(
      ['zebra', 'web', 'docs'].map((search) =>
        h.host.dispatch('attention:summary', { limit: 0, search, supersede: 'probe' }),
      ),
    );
    const codes = answers.map((a) => (a.ok ? 'ok' : a.error.code));
    if (codes.join() === 'ok,SUPERSEDED,ok') return;
    // Before the worker runs, the host counts inline: every answer is its own.
    expect(codes).toEqual(['ok', 'ok', 'ok']);
    if (Date.now() > deadline) throw new Error('the search-count worker never started');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('search counts over the real host', () => {
  it('a count that comes back after the search was cleared or changed does not land', async () => {
    await untilSuperseding();
    const counts = new SearchCountsState(h.api);
    // Cleared while the count is out: the clear needs no answer, the count's answer comes after it.
    await Promise.all([counts.load(ALL('zebra')), counts.load(ALL(''))]);
    expect(counts.query).toBeNull();
    expect(counts.counts).toBeNull();
    // Changed three times while the first count is out: only the newest search's numbers are shown.
    await Promise.all(['zebra', 'web', 'zebra d', 'docs'].map((s) => counts.load(ALL(s))));
    expect(counts.query).toEqual(ALL('docs'));
    expect(counts.counts).toEqual({ running: 1 });
    expect(counts.needsYou).toBe(0);
  });

  it('windows searching at once each get their own numbers: none supersedes another', async () => {
    await untilSuperseding();
    const windows = [
      new SearchCountsState(h.api),
      new SearchCountsState(h.api),
      new SearchCountsState(h.api),
    ];
    const searches = ['zebra', 'web', 'docs'];
    await Promise.all(windows.map((w, i) => w.load(ALL(searches[i]!))));
    expect(windows.map((w) => w.counts)).toEqual([
      { stale: 1, 'needs-answer': 1, running: 1 },
      { stale: 1, 'needs-answer': 1 },
      { running: 1 },
    ]);
    expect(windows[0]!.needsYou).toBe(2);
  });
});
