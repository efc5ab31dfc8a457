// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import App from '../../../renderer/src/App.svelte';
import { AppState } from '../../../renderer/src/lib/state/app-state.svelte';
import { FakeApi, NOW, scenario, type FakeRun } from '../fake-api';
import { MemoryHistory } from '../memory-history';

function setup(run: FakeRun, fill: (fake: FakeApi) => void) {
  const fake = new FakeApi([run]);
  fill(fake);
  const history = new MemoryHistory();
  history.hash = `#/all?run=${run.run.id}`;
  const app = new AppState(fake.api, history, () => NOW);
  render(App, { props: { app } });
  return { fake, app, user: userEvent.setup() };
}

async function lines(): Promise<string[]> {
  const list = await screen.findByTestId('log-lines');
  return within(list)
    .getAllByRole('listitem')
    .map((li) => li.textContent?.replace(/\s+/g, ' ').trim() ?? '');
}

describe('run output in the run detail', () => {
  it('shows both streams in order and follows new output on the log push alone', async () => {
    const run = scenario.running({ title: 'Build' });
    const { fake } = setup(run, (f) =>
      f.appendLog(run.run.id, [
        { stream: 'stdout', text: 'hi' },
        { stream: 'stderr', text: 'oops' },
      ]),
    );
    await waitFor(async () => expect(await lines()).toEqual(['out hi', 'err oops']));
    const readsBefore = fake.count('getRunLog');
    fake.appendLog(run.run.id, [{ stream: 'stdout', text: 'third' }]);
    await waitFor(async () => expect(await lines()).toEqual(['out hi', 'err oops', 'out third']));
    // Only what came after the cursor was asked for.
    const follow = fake.calls.filter(([m]) => m === 'getRunLog').slice(readsBefore);
    expect(follow).toEqual([['getRunLog', { runId: run.run.id, afterSeq: 2 }]]);
    // A push for another run reads nothing.
    fake.emit('log', { runId: 'run_other' });
    await new Promise((r) => setTimeout(r, 20));
    expect(fake.count('getRunLog')).toBe(readsBefore + 1);
  });

  it('renders hostile output as inert text: colour as classes, no markup, no escape sequences', async () => {
    const run = scenario.running({ title: 'Hostile' });
    setup(run, (f) =>
      f.appendLog(run.run.id, [
        { stream: 'stdout', text: '\u001b]0;owned\u0007\u001b[31mred\u001b[0m <img src=x onerror=alert(1)>' },
        { stream: 'stderr', text: '<script>alert(2)</script>\u001b[2J\u001b]8;;http://evil\u001b\\link' },
      ]),
    );
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
    const run = scenario.running({ title: 'Search' });
    const { user } = setup(run, (f) =>
      f.appendLog(run.run.id, [
        { stream: 'stdout', text: 'compiling a' },
        { stream: 'stderr', text: 'warning: \u001b[33mslow\u001b[0m' },
        { stream: 'stdout', text: 'compiling b' },
      ]),
    );
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

  it('offers "Open file" only where the desktop can open it, and says when there is no log', async () => {
    const withLog = scenario.running({ title: 'Desktop' });
    const { fake, user } = setup(withLog, (f) => {
      f.openedLogs = [];
      f.appendLog(withLog.run.id, [{ stream: 'stdout', text: 'x' }]);
    });
    await user.click(await screen.findByRole('button', { name: 'Open file' }));
    await waitFor(() => expect(fake.openedLogs).toEqual([withLog.run.id]));
  });

  it('a run without a captured log says why', async () => {
    const run = scenario.running({ title: 'SDK run' });
    setup(run, () => undefined);
    expect(await screen.findByText(/No output captured yet/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Open file' })).toBeNull();
  });
});
