/**
 * RunTimeline.svelte on its own, with a run's events and lease read from a real store (real-host.ts): each
 * event in words, oldest first, with its age and actor; repeated heartbeats folded into one line; the lease
 * lane with its sentence; a retry's link that opens the other run.
 */
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import RunTimeline from '../../renderer/src/lib/components/RunTimeline.svelte';
import { createRealHost, seedStaleRun, startRun, type RealHost } from './real-host';

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

function drawn(runId: string, onopenrun: (runId: string) => void = () => {}) {
  const events = h.store.getRunDetail(runId, { eventsLimit: 200 }).events;
  const lease = h.store.getSnapshot(runId).lease;
  render(RunTimeline, { props: { events, now: h.now(), lease, onopenrun } });
  return events;
}

function entries(): string[] {
  return within(screen.getByRole('list', { name: 'Timeline' }))
    .getAllByRole('listitem')
    .map((li) => li.textContent?.replace(/\s+/g, ' ').trim() ?? '');
}

describe('run timeline', () => {
  it('lists each event in words, oldest first, and folds repeated progress into one line', async () => {
    const { runId, claim } = startRun(h, { title: 'Build' });
    for (let i = 0; i < 4; i++) {
      h.advance(10_000);
      h.store.setProgress(claim, `step ${i}`);
    }
    h.advance(60_000);
    const events = drawn(runId);
    expect(events).toHaveLength(7);
    const lines = entries();
    expect(lines.slice(0, 3)).toEqual(
      [
        'Run created runner runner-1 via sdk title: Build',
        'Lease claimed runner runner-1 via sdk lease generation 1',
        'Started running runner runner-1 via sdk',
        // 100 s ago: ages count whole units passed, so "1m ago" (never "2m" before two minutes have passed).
      ].map((text) => `1m ago ${text}`),
    );
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(/×4 over 30s/);
    // Ages are relative to now, oldest first.
    const times = within(screen.getByRole('list', { name: 'Timeline' })).getAllByRole('time');
    const at = times.map((t) => Date.parse(t.getAttribute('datetime') ?? ''));
    expect(at).toEqual(at.toSorted((a, b) => a - b));
    expect(screen.getByText(/^Lease and heartbeat track: /)).toBeTruthy();
  });

  it('links a retried run to its retry, and opens it on a click', async () => {
    const user = userEvent.setup();
    const stale = seedStaleRun(h, 'Flaky');
    h.store.cancelRun(stale, { reason: 'stuck', actor: { type: 'human', id: 'dev', surface: 'app' } });
    const retry = h.store.retryRun(stale, { actor: { type: 'human', id: 'dev', surface: 'app' } });
    const opened: string[] = [];
    drawn(stale, (id) => opened.push(id));
    await user.click(screen.getByRole('button', { name: `Open the retry ${retry.id}` }));
    expect(opened).toEqual([retry.id]);
  });

  it('says so when there are no events yet', () => {
    render(RunTimeline, { props: { events: [], now: h.now(), lease: null, onopenrun: () => {} } });
    expect(screen.getByText('No events recorded yet.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Timeline' })).toBeNull();
    expect(screen.queryByText(/^Lease and heartbeat track/)).toBeNull();
  });
});
