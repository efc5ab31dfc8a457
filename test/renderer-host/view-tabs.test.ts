/**
 * ViewTabs.svelte on its own, over the real host (real-host.ts): one link per view, in order, each with its
 * count (of everything, of the chosen project, or of what the search matches), the current one marked, and
 * a click that changes the view. The tabs are links in a `nav`: Tab moves between them, there is no
 * arrow-key handling of their own.
 */
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appContext } from '../../renderer/src/lib/state/app-context';
import ViewTabs from '../../renderer/src/lib/components/ViewTabs.svelte';
import {
  createRealHost,
  projectPath,
  seedCompletedRun,
  seedQuestion,
  seedStaleRun,
  startRun,
  type RealHost,
} from './real-host';
import { createApp } from './render-app';

let h: RealHost;
let stop: (() => void) | null = null;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  stop?.();
  stop = null;
  h.cleanup();
});

/** Each tab as "Label count", in order. */
function tabs(): string[] {
  return within(screen.getByRole('navigation', { name: 'Views' }))
    .getAllByRole('link')
    .map((a) => a.textContent?.replace(/\s+/g, ' ').trim() ?? '');
}

describe('view tabs', () => {
  it('counts each view, marks the current one and what needs you, and changes view on a click', async () => {
    const user = userEvent.setup();
    startRun(h, { title: 'Running A' });
    startRun(h, { title: 'Running B' });
    seedQuestion(h, { title: 'Asking' });
    seedStaleRun(h, 'Stuck');
    seedCompletedRun(h, 'Done');
    const { app, history } = createApp(h, '#/all');
    stop = app.start();
    render(ViewTabs, { context: appContext(app) });
    // The question's run and the stale one need you; the question's run is counted there, not as running.
    await waitFor(() =>
      expect(tabs()).toEqual([
        'Needs you 2',
        'Running 2',
        'Queued 0',
        'Parked 0',
        'Stale 1',
        'Failed 0',
        'All 5',
      ]),
    );
    const nav = screen.getByRole('navigation', { name: 'Views' });
    const link = (name: RegExp) => within(nav).getByRole('link', { name });
    expect(link(/^All/).getAttribute('aria-current')).toBe('page');
    expect(link(/^Needs you/).classList.contains('needs')).toBe(true);
    expect(link(/^Running/).getAttribute('href')).toBe('#/running');
    await user.click(link(/^Running/));
    await waitFor(() => expect(link(/^Running/).getAttribute('aria-current')).toBe('page'));
    expect(link(/^All/).getAttribute('aria-current')).toBeNull();
    expect(history.hash).toMatch(/^#\/running/);
  });

  it('counts the chosen project only, and marks nothing as needing you when nothing does', async () => {
    const other = projectPath(h, 'other');
    startRun(h, { title: 'Here' });
    startRun(h, { title: 'There 1', projectPath: other });
    startRun(h, { title: 'There 2', projectPath: other });
    seedStaleRun(h, 'Stuck here');
    const { app } = createApp(h, `#/all?project=${encodeURIComponent(other)}`);
    stop = app.start();
    render(ViewTabs, { context: appContext(app) });
    await waitFor(() => expect(tabs()).toContain('All 2'));
    expect(tabs()).toEqual([
      'Needs you 0',
      'Running 2',
      'Queued 0',
      'Parked 0',
      'Stale 0',
      'Failed 0',
      'All 2',
    ]);
    const nav = screen.getByRole('navigation', { name: 'Views' });
    expect(
      within(nav)
        .getByRole('link', { name: /^Needs you/ })
        .classList.contains('needs'),
    ).toBe(false);
  });
});
