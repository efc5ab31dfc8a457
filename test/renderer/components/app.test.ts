/**
 * The window against the fake API (fake-api.ts), only for what the store cannot be brought to answer;
 * every other window test runs against the real host (test/renderer-host, docs/ARCHITECTURE.md#renderer-tests).
 */
// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import App from '../../../renderer/src/App.svelte';
import { AppState } from '../../../renderer/src/lib/state/app-state.svelte';
import { FakeApi, NOW, scenario, type FakeRun } from '../fake-api';
import { MemoryHistory } from '../memory-history';

function setup(runs: FakeRun[], hash = '') {
  const fake = new FakeApi(runs);
  const history = new MemoryHistory();
  history.hash = hash;
  const app = new AppState(fake.api, history, () => NOW);
  const user = userEvent.setup();
  render(App, { props: { app } });
  return { fake, history, app, user };
}

describe('run detail', () => {
  // Fake only: a LIVE_OWNER refusal when the person confirms. The store checks the revision first, and a
  // runner that comes back renews its lapsed lease with a revision bump, so the real host answers
  // STALE_VIEW (test/renderer-host/commands.test.ts); this is the refusal-with-recovery rendering.
  it('shows a refused command with its recovery as a button, and re-reads the run', async () => {
    const run = scenario.stale({ title: 'Came back to life' });
    const { user, fake } = setup([run], `#/stale?run=${run.run.id}`);
    await screen.findByRole('heading', { level: 2, name: 'Came back to life' });
    fake.failNext.set('cancelRun', {
      code: 'LIVE_OWNER',
      message: 'A runner renewed its lease a moment ago.',
      recovery: { kind: 'requestCancel', runId: run.run.id },
    });
    const readsBefore = fake.count('getRunDetail');
    await user.click(screen.getByRole('button', { name: 'Cancel run…' }));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByText(/1 active step will be cancelled/);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel run' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Cancel run refused.');
    expect(alert.textContent).toContain('A runner renewed its lease a moment ago.');
    expect(fake.count('getRunDetail')).toBeGreaterThan(readsBefore);
    await user.click(within(alert).getByRole('button', { name: 'Request cancel instead' }));
    expect(await screen.findByRole('dialog', { name: /Request cancel: “Came back to life”\?/ })).toBeTruthy();
  });
});
