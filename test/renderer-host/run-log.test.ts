/**
 * The run's output in the run detail, against the real host (real-host.ts): the runner writes its log as
 * a supervisor does, the host's log watcher pushes `log`, and the window reads the store's log files.
 */
// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../renderer/dom-setup';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import App from '../../renderer/src/App.svelte';
import { AppState } from '../../renderer/src/lib/state/app-state.svelte';
import { appContext } from '../../renderer/src/lib/state/app-context';
import { MemoryHistory } from '../renderer/memory-history';
import { FIRST_OPEN, OPENS_A_PANEL } from './render-app';
import { createRealHost, printOutput, startRun, type RealHost, type RealHostOptions } from './real-host';

let current: RealHost | null = null;
afterEach(() => {
  current?.cleanup();
  current = null;
});

function setup(title: string, options: RealHostOptions = {}) {
  const host = createRealHost(options);
  current = host;
  const run = startRun(host, { title });
  return {
    h: host,
    run,
    /** Renders the window with the run open, once its detail (loaded when first opened) is shown. */
    async show() {
      const history = new MemoryHistory();
      history.hash = `#/all?run=${run.runId}`;
      render(App, { context: appContext(new AppState(host.api, history, host.now)) });
      await screen.findByRole('heading', { level: 2, name: title }, FIRST_OPEN);
      return userEvent.setup();
    },
  };
}

async function lines(): Promise<string[]> {
  const list = await screen.findByTestId('log-lines');
  return within(list)
    .getAllByRole('listitem')
    .map((li) => li.textContent?.replace(/\s+/g, ' ').trim() ?? '');
}

describe('run output in the run detail', OPENS_A_PANEL, () => {
  it('shows both streams in order and follows new output on the log push alone', async () => {
    const { h, run, show } = setup('Build');
    printOutput(h, run.claim, [
      { stream: 'stdout', text: 'hi' },
      { stream: 'stderr', text: 'oops' },
    ]);
    // Another run with a log of its own, opened before the window looks.
    const other = startRun(h, { title: 'Other' });
    printOutput(h, other.claim, [{ stream: 'stdout', text: 'elsewhere' }]);
    // The host's pushes for what was printed so far have gone out before the window looks.
    const logPushes = () =>
      h.pushes.filter(([e]) => e === 'log').map(([, p]) => (p as { runId: string }).runId);
    await waitFor(() => expect(logPushes()).toEqual(expect.arrayContaining([run.runId, other.runId])));
    await show();
    await waitFor(async () => expect(await lines()).toEqual(['out hi', 'err oops']));
    const readsBefore = h.count('getRunLog');
    printOutput(h, run.claim, [{ stream: 'stdout', text: 'third' }]);
    await waitFor(async () => expect(await lines()).toEqual(['out hi', 'err oops', 'out third']));
    // Only what came after the cursor was asked for.
    const follow = h.calls.filter(([m]) => m === 'getRunLog').slice(readsBefore);
    expect(follow).toEqual([['getRunLog', { runId: run.runId, afterSeq: 2 }]]);
    // The host's log push for the other run's new output reads nothing for this one.
    const seen = logPushes().length;
    printOutput(h, other.claim, [{ stream: 'stdout', text: 'more elsewhere' }]);
    await waitFor(() => expect(logPushes().slice(seen)).toContain(other.runId));
    await new Promise((r) => setTimeout(r, 100));
    expect(h.count('getRunLog')).toBe(readsBefore + 1);
  });

  it('renders hostile output as inert text: colour as classes, no markup, no escape sequences', async () => {
    const { h, run, show } = setup('Hostile');
    printOutput(h, run.claim, [
      { stream: 'stdout', text: '\u001b]0;owned\u0007\u001b[31mred\u001b[0m <img src=x onerror=alert(1)>' },
      { stream: 'stderr', text: '<script>alert(2)</script>\u001b[2J\u001b]8;;http://evil\u001b\\link' },
    ]);
    await show();
    await waitFor(async () =>
      expect(await lines()).toEqual([
        'out red <img src=x onerror=alert(1)>',
        'err <script>alert(2)</script>link',
      ]),
    );
    const list = screen.getByTestId('log-lines');
    expect(list.querySelector('img, script, a')).toBeNull();
    const red = within(list).getByText('red');
    expect(red.className).toContain('ansi-red-fg');
    // oxlint-disable-next-line no-control-regex
    expect(list.textContent).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('searches the shown lines and copies them as plain text', async () => {
    const { h, run, show } = setup('Search');
    printOutput(h, run.claim, [
      { stream: 'stdout', text: 'compiling a' },
      { stream: 'stderr', text: 'warning: \u001b[33mslow\u001b[0m' },
      { stream: 'stdout', text: 'compiling b' },
    ]);
    const user = await show();
    await waitFor(async () => expect(await lines()).toHaveLength(3));
    await user.type(screen.getByRole('searchbox', { name: 'Search output' }), 'SLOW');
    expect(await lines()).toEqual(['err warning: slow']);
    expect(screen.getByText('1 of 3 lines match.')).toBeTruthy();
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: async (text: string) => void (copied = text) },
    });
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    await waitFor(() => expect(copied).toMatch(/^\S+Z stderr warning: slow$/));
  });

  it('offers "Open file" where the desktop can open it, and opens the run’s own log', async () => {
    const opened: string[] = [];
    const { h, run, show } = setup('Desktop', { openPath: (logPath) => void opened.push(logPath) });
    printOutput(h, run.claim, [{ stream: 'stdout', text: 'x' }]);
    const user = await show();
    await user.click(await screen.findByRole('button', { name: 'Open file' }));
    await waitFor(() => expect(opened).toEqual([h.store.listRunLogs(run.runId)[0]?.path]));
    expect(opened[0]).toMatch(new RegExp(`${run.runId}\\.log$`));
  });

  it('a run without a captured log says why', async () => {
    const { show } = setup('SDK run');
    await show();
    // A running run with no log is not one whose output is coming: the host says it is not live.
    const why = await screen.findByText(
      (_, el) => el?.tagName === 'P' && (el.textContent ?? '').includes('No output captured'),
    );
    expect(why.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'No output captured: only commands run by runwarden exec or runwarden worker are logged.',
    );
    expect(screen.queryByRole('button', { name: 'Open file' })).toBeNull();
  });
});
