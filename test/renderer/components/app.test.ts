// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../dom-setup';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import App from '../../../renderer/src/App.svelte';
import { AppState } from '../../../renderer/src/lib/state/app-state.svelte';
import { FakeApi, NOW, makeEffect, scenario, type FakeRun } from '../fake-api';
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

async function rows() {
  const grid = await screen.findByRole('grid', { name: 'Runs' });
  return within(grid);
}

describe('run list', () => {
  it('lists runs that need you, each with a status word, not colour alone', async () => {
    setup([
      scenario.needsAnswer({ title: 'Ship release 1.2?' }),
      scenario.running({ title: 'Nightly build' }),
    ]);
    const grid = await rows();
    const row = await grid.findByRole('row', { name: /Ship release 1\.2\?/ });
    expect(within(row).getByText('Needs answer')).toBeTruthy();
    expect(grid.queryByText('Nightly build')).toBeNull();
    expect(screen.getByRole('link', { name: /Needs you 1/ }).getAttribute('aria-current')).toBe('page');
  });

  it('says what to do next when nothing needs you', async () => {
    setup([scenario.running({ title: 'Nightly build' })]);
    expect(await screen.findByText('Nothing needs you.')).toBeTruthy();
    expect(screen.getByText(/runwarden exec -- <cmd>/)).toBeTruthy();
  });

  it('renders hostile titles, prompts and errors as inert text', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const run = scenario.needsAnswer(
      { title: hostile, error: '<script>alert(2)</script>' },
      { title: `<b>${hostile}</b>`, prompt: '<a href="javascript:alert(3)">click</a>' },
    );
    const { user } = setup([run]);
    const grid = await rows();
    const row = await grid.findByRole('row', { name: new RegExp(hostile.replace(/[()]/g, '\\$&')) });
    await user.click(within(row).getByText(hostile));
    await screen.findByRole('heading', { level: 2, name: hostile });
    expect(screen.getByText('<a href="javascript:alert(3)">click</a>')).toBeTruthy();
    expect(screen.getByText('<script>alert(2)</script>')).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
    expect(document.querySelector('b')).toBeNull();
    expect(document.querySelector('a[href^="javascript"]')).toBeNull();
  });
});

describe('keyboard', () => {
  it('moves with j/k, opens with Enter, closes with Esc, and jumps views with g', async () => {
    const a = scenario.stale({ title: 'Older stale run' });
    const b = scenario.needsAnswer({ title: 'Newer question' });
    const { user, history } = setup([a, b]);
    const grid = await rows();
    await grid.findByRole('row', { name: /Newer question/ });
    const selected = () => grid.getAllByRole('row', { selected: true }).map((r) => r.id);
    expect(selected()).toEqual([`run-row-${b.run.id}`]);
    await user.keyboard('j');
    expect(selected()).toEqual([`run-row-${a.run.id}`]);
    expect(document.activeElement?.getAttribute('role')).toBe('grid');
    await user.keyboard('k');
    expect(selected()).toEqual([`run-row-${b.run.id}`]);
    await user.keyboard('{Enter}');
    const heading = await screen.findByRole('heading', { level: 2, name: 'Newer question' });
    expect(document.activeElement).toBe(heading);
    expect(history.hash).toContain(`run=${b.run.id}`);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('complementary', { name: 'Run details' })).toBeNull());
    await user.keyboard('ga');
    await waitFor(() => expect(history.hash.startsWith('#/all')).toBe(true));
    await user.keyboard('/');
    expect(document.activeElement).toBe(screen.getByRole('searchbox', { name: 'Search runs' }));
    await user.keyboard('{Escape}?');
    expect(await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
  });

  it('answers a question with the keyboard only', async () => {
    const run = scenario.needsAnswer({ title: 'Pick a region' }, { choices: ['eu-west', 'us-east'] });
    const { user, fake } = setup([run]);
    await (await rows()).findByRole('row', { name: /Pick a region/ });
    await user.keyboard('{Enter}');
    await screen.findByRole('heading', { level: 2, name: 'Pick a region' });
    // Tab into the form: past the close button, the action toolbar, to the radio group.
    const radio = screen.getByRole('radio', { name: 'us-east' });
    for (let i = 0; i < 10 && document.activeElement?.getAttribute('type') !== 'radio'; i++) await user.tab();
    expect(document.activeElement?.getAttribute('type')).toBe('radio');
    await user.keyboard('{ArrowDown}');
    expect((radio as HTMLInputElement).checked).toBe(true);
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Send answer' }));
    await user.keyboard('{Enter}');
    await screen.findByText('Answer sent.');
    expect(fake.runs.get(run.run.id)?.interactions[0]?.response).toBe('us-east');
  });
});

describe('run detail', () => {
  it('validates and sends an answer built from declared fields, showing the default and the deadline', async () => {
    const run = scenario.needsAnswer(
      { title: 'Release notes' },
      {
        kind: 'input',
        choices: null,
        fields: [
          { name: 'version', type: 'string', label: 'Version', required: true },
          { name: 'replicas', type: 'number', label: 'Replicas' },
          { name: 'canary', type: 'boolean', label: 'Canary first' },
        ],
        hasDefault: true,
        defaultResponse: { version: '1.0.0', canary: true },
        deadlineAt: NOW + 90_000,
      },
    );
    const { user, fake } = setup([run], `#/needs-you?run=${run.run.id}`);
    const form = await screen.findByRole('form', { name: /Answer: Deploy to production\?/ });
    expect(screen.getByRole('timer', { name: 'Deadline 1m 30s left' })).toBeTruthy();
    expect(screen.getByText('{"version":"1.0.0","canary":true}')).toBeTruthy();
    const version = within(form).getByRole('textbox', { name: 'Version (required)' });
    expect((version as HTMLInputElement).value).toBe('1.0.0');
    expect((within(form).getByRole('checkbox', { name: 'Canary first' }) as HTMLInputElement).checked).toBe(
      true,
    );
    await user.clear(version);
    await user.type(within(form).getByRole('textbox', { name: 'Replicas' }), 'three');
    await user.click(within(form).getByRole('button', { name: 'Send answer' }));
    expect(within(form).getByText('Version is required.')).toBeTruthy();
    expect(within(form).getByText('Replicas must be a number.')).toBeTruthy();
    expect(fake.count('answerInteraction')).toBe(0);
    await user.type(version, '2.0.0');
    await user.clear(within(form).getByRole('textbox', { name: 'Replicas' }));
    await user.type(within(form).getByRole('textbox', { name: 'Replicas' }), '3');
    await user.click(within(form).getByRole('button', { name: 'Send answer' }));
    await screen.findByText('Answer sent.');
    expect(fake.runs.get(run.run.id)?.interactions[0]?.response).toEqual({
      version: '2.0.0',
      replicas: 3,
      canary: true,
    });
  });

  it('says "already answered" when another tab answered first', async () => {
    const run = scenario.needsAnswer({ title: 'Two tabs' });
    const { user, fake } = setup([run], `#/needs-you?run=${run.run.id}`);
    const form = await screen.findByRole('form', { name: /Answer:/ });
    // The other tab answers first.
    const other = await fake.api.answerInteraction({
      interactionId: run.interactions[0]!.id,
      interactionRevision: 1,
      idempotencyKey: 'other-tab-key-1',
      payload: 'no',
    });
    expect(other.ok).toBe(true);
    await user.click(within(form).getByRole('radio', { name: 'yes' }));
    await user.click(within(form).getByRole('button', { name: 'Send answer' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/Already answered/);
    expect(screen.getByText('no')).toBeTruthy();
    expect(screen.queryByRole('form', { name: /Answer:/ })).toBeNull();
  });

  it('confirms a stale cancel with the store-reported cascade, then shows it in the timeline', async () => {
    const run = scenario.stale({ title: 'Stuck deploy' }, [
      { id: 11, status: 'applying', summary: 'POST /a' },
      { id: 12, status: 'applying', summary: 'POST /b' },
    ]);
    const { user, fake } = setup([run], `#/stale?run=${run.run.id}`);
    await screen.findByRole('heading', { level: 2, name: 'Stuck deploy' });
    const toolbar = screen.getByRole('toolbar', { name: 'Run actions' });
    expect(
      within(toolbar)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Cancel run…']);
    await user.click(within(toolbar).getByRole('button', { name: 'Cancel run…' }));
    const dialog = await screen.findByRole('dialog', { name: /Cancel run: “Stuck deploy”\?/ });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    await within(dialog).findByText(/2 applying effects will become ambiguous/);
    expect(within(dialog).getByText(/1 active step will be cancelled/)).toBeTruthy();
    const reason = within(dialog).getByRole('textbox', { name: /Reason/ }) as HTMLTextAreaElement;
    expect(reason.value).toBe('Runner stopped heartbeating; cancelled by hand.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel run' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const timeline = await screen.findByRole('list', { name: 'Timeline' });
    expect(within(timeline).getByText('Cancelled')).toBeTruthy();
    expect(
      within(timeline).getByText(/Cascade: 1 attempt cancelled, 2 applying effects became ambiguous/),
    ).toBeTruthy();
    expect(within(timeline).getByText(/human dev via browser/)).toBeTruthy();
    expect(fake.runs.get(run.run.id)?.run.status).toBe('cancelled');
  });

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

  it('resolves an ambiguous effect with a required note, then resumes the parked run', async () => {
    const run = scenario.ambiguous({ title: 'Charge card' });
    run.effects = [
      makeEffect(run.run.id, { id: 7, status: 'ambiguous', summary: 'charge $20', idempotencyKey: 'chg-1' }),
    ];
    const { user, fake } = setup([run], `#/needs-you?run=${run.run.id}`);
    await screen.findByRole('heading', { level: 2, name: 'Charge card' });
    expect(screen.getByText('chg-1')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'It did not happen' }));
    expect(screen.getByText('Say how you know (required).')).toBeTruthy();
    expect(fake.count('resolveEffect')).toBe(0);
    await user.type(
      screen.getByRole('textbox', { name: 'How do you know? (required)' }),
      'No charge in Stripe',
    );
    await user.click(screen.getByRole('button', { name: 'It did not happen' }));
    await screen.findByText(/did not happen\./);
    const toolbar = await screen.findByRole('toolbar', { name: 'Run actions' });
    await user.click(await within(toolbar).findByRole('button', { name: 'Resume' }));
    await screen.findByText('Resumed: the run is queued again.');
    expect(fake.runs.get(run.run.id)?.run.status).toBe('queued');
  });
});

describe('bulk actions', () => {
  it('previews per run and asks for the typed count above five', async () => {
    const runs = Array.from({ length: 6 }, (_, i) => scenario.stale({ title: `Stale ${i}` }));
    const { user, fake } = setup(runs, '#/stale');
    const grid = await rows();
    await grid.findByRole('row', { name: /Stale 5/ });
    for (const r of runs) await user.click(grid.getByRole('checkbox', { name: `Select ${r.run.title}` }));
    const bar = screen.getByRole('toolbar', { name: 'Bulk actions' });
    expect(within(bar).getByText('6 selected')).toBeTruthy();
    await user.click(within(bar).getByRole('button', { name: 'Cancel…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel 6 runs?' });
    const results = await within(dialog).findByRole('list', { name: 'Dry run results' });
    expect(within(results).getAllByRole('listitem')).toHaveLength(6);
    const confirm = within(dialog).getByRole('button', { name: 'Cancel 6 runs' });
    expect((confirm as HTMLButtonElement).disabled).toBe(true);
    await user.type(within(dialog).getByRole('textbox', { name: 'Type 6 to confirm' }), '6');
    expect((confirm as HTMLButtonElement).disabled).toBe(false);
    await user.click(confirm);
    await within(dialog).findByRole('list', { name: 'Results' });
    expect([...fake.runs.values()].every((r) => r.run.status === 'cancelled')).toBe(true);
    expect(
      fake.calls.filter(([m]) => m === 'bulkAction').map(([, i]) => (i as { dryRun: boolean }).dryRun),
    ).toEqual([true, false]);
  });

  it('x toggles the active run into the selection', async () => {
    const { user } = setup([scenario.stale({ title: 'One' })], '#/stale');
    await (await rows()).findByRole('row', { name: /One/ });
    fireEvent.keyDown(window, { key: 'x' });
    expect(await screen.findByText('1 selected')).toBeTruthy();
    await user.keyboard('x');
    expect(screen.queryByText('1 selected')).toBeNull();
  });
});

describe('pushes', () => {
  it('open-run selects the run; changed refreshes the open run and the list', async () => {
    const run = scenario.needsAnswer({ title: 'From the tray' });
    const { fake } = setup([run]);
    await (await rows()).findByRole('row', { name: /From the tray/ });
    fake.emit('open-run', { runId: run.run.id });
    await screen.findByRole('heading', { level: 2, name: 'From the tray' });
    fake.runs.get(run.run.id)!.run = { ...run.run, title: 'Renamed by the runner', revision: 9 };
    fake.emit('changed', { seq: 1, runIds: [run.run.id], at: NOW });
    expect(await screen.findByRole('heading', { level: 2, name: 'Renamed by the runner' })).toBeTruthy();
    expect(await (await rows()).findByRole('row', { name: /Renamed by the runner/ })).toBeTruthy();
  });

  it('shows the store banner from a store-status push', async () => {
    const { fake } = setup([]);
    fake.emit('store-status', {
      mode: 'read-only',
      modeReason: 'The store folder is read-only.',
      busy: false,
    });
    const banner = await screen.findByRole('status', { name: 'Store status' });
    expect(banner.textContent).toContain('Read-only');
    expect(banner.textContent).toContain('The store folder is read-only.');
  });

  it('counts unread notifications and marks them read', async () => {
    const fake0 = scenario.running();
    const { fake, user } = setup([fake0]);
    fake.notifications = [
      {
        id: 1,
        runId: fake0.run.id,
        level: 'attention',
        title: 'Question waiting',
        body: '',
        at: NOW,
        readAt: null,
      },
    ];
    fake.emit('changed', { seq: 2, runIds: [], at: NOW });
    const button = await screen.findByRole('button', { name: 'Notifications, 1 unread' });
    await user.click(button);
    const dialog = await screen.findByRole('dialog', { name: 'Notifications' });
    expect(within(dialog).getByText(/Question waiting/)).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Mark all read' }));
    expect(await screen.findByRole('button', { name: 'Notifications, 0 unread' })).toBeTruthy();
    expect(fake.notifications[0]?.readAt).toBe(NOW);
  });
});
