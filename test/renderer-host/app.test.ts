/**
 * The window against the real host (real-host.ts): the run list, the keyboard, the run detail's answers,
 * cancels and effect resolutions, bulk actions and the host's pushes, with every run seeded the way a
 * runner makes it and every outcome read back from the store.
 */
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  askQuestion,
  createRealHost,
  RUNNER,
  seedAmbiguousRun,
  seedQuestion,
  seedStaleRun,
  startRun,
  type RealHost,
} from './real-host';
import { FIRST_OPEN, OPENS_A_PANEL, renderApp } from './render-app';

const OTHER_TAB = { type: 'human', id: 'dev', surface: 'browser' } as const;

let h: RealHost;
beforeEach(() => {
  // The person's commands come from a browser tab, as the timeline names them.
  h = createRealHost({ surface: 'browser' });
});
afterEach(() => {
  h.cleanup();
});

async function rows() {
  const grid = await screen.findByRole('grid', { name: 'Runs' });
  return within(grid);
}

const responseOf = (interactionId: string) => h.store.getInteraction(interactionId).response;

describe('run list', OPENS_A_PANEL, () => {
  it('says what each live run is doing now: its latest progress in the row and in the detail', async () => {
    const { runId, claim } = startRun(h, { title: 'Nightly import' });
    h.store.setProgress(claim, 'copying table 3 of 9');
    const { user } = renderApp(h, '#/running');
    const row = (await screen.findByText('Nightly import')).closest('[role="row"]') as HTMLElement;
    expect(within(row).getByTestId('row-now').textContent).toMatch(/· copying table 3 of 9$/);
    await user.click(row);
    expect((await screen.findByTestId('run-now', {}, FIRST_OPEN)).textContent).toBe(
      'Now: copying table 3 of 9',
    );
    expect(h.store.getRun(runId).statusDetail).toBe('copying table 3 of 9');
  });

  it('lists runs that need you, each with a status word, not colour alone', async () => {
    seedQuestion(h, { title: 'Ship release 1.2?' });
    startRun(h, { title: 'Nightly build' });
    renderApp(h);
    const grid = await rows();
    const row = await grid.findByRole('row', { name: /Ship release 1\.2\?/ });
    expect(within(row).getByText('Needs answer')).toBeTruthy();
    expect(grid.queryByText('Nightly build')).toBeNull();
    expect(screen.getByRole('link', { name: /Needs you 1/ }).getAttribute('aria-current')).toBe('page');
  });

  it('follows the lease clock: a run whose lease runs out turns stale with nothing written', async () => {
    // A long grace: the sweeper records no lost runner, so only the clock says the run is stale.
    await h.host.dispatch('settings:set', { patch: { staleGraceMs: 3_600_000, sweepIntervalMs: 250 } });
    const { runId } = startRun(h, { title: 'Lease runs out', leaseMs: 5_000 });
    renderApp(h, '#/all');
    const grid = await rows();
    const row = await grid.findByRole('row', { name: /Lease runs out/ });
    expect(within(row).getByText('Running')).toBeTruthy();
    // The host has announced everything the seeding wrote before the clock moves.
    await waitFor(() =>
      expect(
        h.pushes.some(([e, p]) => e === 'changed' && (p as { runIds: string[] }).runIds.includes(runId)),
      ).toBe(true),
    );
    const lastEvent = h.store.lastEventSeq();
    const seen = h.pushes.length;
    h.advance(5_001);
    await waitFor(
      () => expect(within(grid.getByRole('row', { name: /Lease runs out/ })).getByText('Stale')).toBeTruthy(),
      { timeout: 4_000 },
    );
    expect(h.store.lastEventSeq()).toBe(lastEvent);
    const changed = h.pushes.slice(seen).filter(([e]) => e === 'changed');
    expect(changed.map(([, p]) => p)).toEqual([expect.objectContaining({ clock: true })]);
  });

  it('says what to do next when nothing needs you', async () => {
    startRun(h, { title: 'Nightly build' });
    renderApp(h);
    expect(await screen.findByText('Nothing needs you.')).toBeTruthy();
    expect(screen.getByText(/runwarden exec -- <cmd>/)).toBeTruthy();
  });

  it('renders hostile titles, prompts and errors as inert text', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    seedQuestion(
      h,
      { title: hostile },
      { title: `<b>${hostile}</b>`, prompt: '<a href="javascript:alert(3)">click</a>' },
    );
    // A run's error is written when its runner fails it: a second run, opened after the first.
    const failed = startRun(h, { title: 'failed one' });
    h.store.failRun(failed.claim, '<script>alert(2)</script>');
    const { user, app } = renderApp(h);
    const grid = await rows();
    const row = await grid.findByRole('row', { name: new RegExp(hostile.replace(/[()]/g, '\\$&')) });
    await user.click(within(row).getByText(hostile));
    await screen.findByRole('heading', { level: 2, name: hostile }, FIRST_OPEN);
    expect(screen.getByText('<a href="javascript:alert(3)">click</a>')).toBeTruthy();
    await app.openRun(failed.runId);
    await screen.findByRole('heading', { level: 2, name: 'failed one' });
    expect(screen.getByText('<script>alert(2)</script>')).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
    expect(document.querySelector('b')).toBeNull();
    expect(document.querySelector('a[href^="javascript"]')).toBeNull();
  });
});

describe('keyboard', OPENS_A_PANEL, () => {
  it('moves with j/k, opens with Enter, closes with Esc, and jumps views with g', async () => {
    const a = seedStaleRun(h, 'Older stale run');
    const b = seedQuestion(h, { title: 'Newer question' }).runId;
    const { user, history } = renderApp(h);
    const grid = await rows();
    await grid.findByRole('row', { name: /Newer question/ });
    // The active row is the grid's active descendant; aria-selected is for the runs picked for a bulk action.
    const selected = () => [screen.getByRole('grid', { name: 'Runs' }).getAttribute('aria-activedescendant')];
    expect(selected()).toEqual([`run-row-${b}`]);
    await user.keyboard('j');
    expect(selected()).toEqual([`run-row-${a}`]);
    expect(document.activeElement?.getAttribute('role')).toBe('grid');
    await user.keyboard('k');
    expect(selected()).toEqual([`run-row-${b}`]);
    await user.keyboard('{Enter}');
    const heading = await screen.findByRole('heading', { level: 2, name: 'Newer question' }, FIRST_OPEN);
    expect(document.activeElement).toBe(heading);
    expect(history.hash).toContain(`run=${b}`);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('complementary', { name: 'Run details' })).toBeNull());
    await user.keyboard('ga');
    await waitFor(() => expect(history.hash.startsWith('#/all')).toBe(true));
    await user.keyboard('/');
    expect(document.activeElement).toBe(screen.getByRole('searchbox', { name: 'Search runs' }));
    await user.keyboard('{Escape}?');
    expect(await screen.findByRole('dialog', { name: 'Keyboard shortcuts' }, FIRST_OPEN)).toBeTruthy();
  });

  it('answers a question with the keyboard only', async () => {
    const { interaction } = seedQuestion(h, { title: 'Pick a region' }, { choices: ['eu-west', 'us-east'] });
    const { user } = renderApp(h);
    await (await rows()).findByRole('row', { name: /Pick a region/ });
    await user.keyboard('{Enter}');
    await screen.findByRole('heading', { level: 2, name: 'Pick a region' }, FIRST_OPEN);
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
    expect(responseOf(interaction.id)).toBe('us-east');
  });
});

describe('run detail', OPENS_A_PANEL, () => {
  it('validates and sends an answer built from declared fields, showing the default and the deadline', async () => {
    const { runId, claim } = startRun(h, { title: 'Release notes' });
    const interaction = askQuestion(h, claim, {
      kind: 'input',
      choices: undefined,
      fields: [
        { name: 'version', type: 'string', label: 'Version', required: true },
        { name: 'replicas', type: 'number', label: 'Replicas' },
        { name: 'canary', type: 'boolean', label: 'Canary first' },
      ],
      hasDefault: true,
      defaultResponse: { version: '1.0.0', canary: true },
      deadlineAt: h.now() + 90_000,
    });
    const { user } = renderApp(h, `#/needs-you?run=${runId}`);
    const form = await screen.findByRole('form', { name: /Answer: Deploy to production\?/ }, FIRST_OPEN);
    expect(screen.getByRole('timer', { name: 'Deadline 1m 30s left' })).toBeTruthy();
    // The default in the question's own terms (its field labels), not as JSON.
    expect(screen.getByText('Version: 1.0.0 · Canary first: yes')).toBeTruthy();
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
    expect(h.count('answerInteraction')).toBe(0);
    await user.type(version, '2.0.0');
    await user.clear(within(form).getByRole('textbox', { name: 'Replicas' }));
    await user.type(within(form).getByRole('textbox', { name: 'Replicas' }), '3');
    await user.click(within(form).getByRole('button', { name: 'Send answer' }));
    await screen.findByText('Answer sent.');
    expect(responseOf(interaction.id)).toEqual({ version: '2.0.0', replicas: 3, canary: true });
  });

  it('says "already answered" when another tab answered first', async () => {
    const { runId, interaction } = seedQuestion(h, { title: 'Two tabs' });
    // No delay between clicks: the person's answer goes out before the host's push about the other
    // tab's answer can close the form (the push winning the race is the other, quieter outcome).
    const { user } = renderApp(h, `#/needs-you?run=${runId}`, { delay: null });
    const form = await screen.findByRole('form', { name: /Answer:/ }, FIRST_OPEN);
    // The other tab answers first, through its own connection.
    h.store.answerInteraction(interaction.id, {
      interactionRevision: interaction.revision,
      idempotencyKey: 'other-tab-key-1',
      payload: 'no',
      actor: OTHER_TAB,
    });
    await user.click(within(form).getByRole('radio', { name: 'yes' }));
    await user.click(within(form).getByRole('button', { name: 'Send answer' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/Already answered/);
    expect(screen.getByText('no')).toBeTruthy();
    expect(screen.queryByRole('form', { name: /Answer:/ })).toBeNull();
    expect(responseOf(interaction.id)).toBe('no');
  });

  it('confirms a stale cancel with the store-reported cascade, then shows it in the timeline', async () => {
    const runId = seedStaleRun(h, 'Stuck deploy', [
      { summary: 'POST /a', key: 'a-1' },
      { summary: 'POST /b', key: 'b-1' },
    ]);
    const { user } = renderApp(h, `#/stale?run=${runId}`);
    await screen.findByRole('heading', { level: 2, name: 'Stuck deploy' }, FIRST_OPEN);
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
    await within(timeline).findByText('Cancelled');
    expect(
      within(timeline).getByText(/Cascade: 1 attempt cancelled, 2 applying effects became ambiguous/),
    ).toBeTruthy();
    expect(within(timeline).getByText(/human dev via browser/)).toBeTruthy();
    // An outcome that now needs a person is a warning, not a green success.
    const notice = await screen.findByText(
      /^Cancelled, and it needs you: .*2 applying effects became ambiguous/,
    );
    expect(notice.classList.contains('warning')).toBe(true);
    expect(h.store.getRun(runId).status).toBe('cancelled');
    expect(h.store.getSnapshot(runId).effects.map((e) => e.status)).toEqual(['ambiguous', 'ambiguous']);
  });

  it('shows a refused command with its recovery as a button, and re-reads the run', async () => {
    const runId = seedStaleRun(h, 'Came back to life');
    const { user } = renderApp(h, `#/stale?run=${runId}`);
    await screen.findByRole('heading', { level: 2, name: 'Came back to life' }, FIRST_OPEN);
    // The one refusal here the store cannot be brought to give: LIVE_OWNER at confirm. It checks the
    // revision first, and a runner that comes back renews its lapsed lease with a revision bump, so the
    // real answer is STALE_VIEW (commands.test.ts). This checks how the window shows a refusal and its recovery.
    h.refuseNext('cancelRun', {
      code: 'LIVE_OWNER',
      message: 'A runner renewed its lease a moment ago.',
      recovery: { kind: 'requestCancel', runId },
    });
    const readsBefore = h.count('getRunDetail');
    await user.click(screen.getByRole('button', { name: 'Cancel run…' }));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByText(/1 active step will be cancelled/);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel run' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Cancel run refused.');
    expect(alert.textContent).toContain('A runner renewed its lease a moment ago.');
    expect(h.count('getRunDetail')).toBeGreaterThan(readsBefore);
    await user.click(within(alert).getByRole('button', { name: 'Request cancel instead' }));
    expect(await screen.findByRole('dialog', { name: /Request cancel: “Came back to life”\?/ })).toBeTruthy();
    expect(h.store.getRun(runId).status).toBe('running');
  });

  it('resolves an ambiguous effect with a required note, then resumes the parked run', async () => {
    const { runId, effect } = seedAmbiguousRun(h, 'Charge card', { summary: 'charge $20', key: 'chg-1' });
    const { user } = renderApp(h, `#/needs-you?run=${runId}`);
    await screen.findByRole('heading', { level: 2, name: 'Charge card' }, FIRST_OPEN);
    expect(screen.getByText('chg-1')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'It did not happen…' }));
    expect(screen.getByText('Say how you know (required).')).toBeTruthy();
    expect(h.count('resolveEffect')).toBe(0);
    await user.type(
      screen.getByRole('textbox', { name: 'How do you know? (required)' }),
      'No charge in Stripe',
    );
    await user.click(screen.getByRole('button', { name: 'It did not happen…' }));
    const confirm = screen.getByRole('dialog', { name: 'Record that it did not happen?' });
    expect(confirm.textContent).toContain('charge $20');
    expect(h.count('resolveEffect')).toBe(0);
    await user.click(within(confirm).getByRole('button', { name: 'Record: it did not happen' }));
    await screen.findByText(/did not happen\./);
    expect(h.store.getEffect(effect.id)).toMatchObject({ resolution: 'not_applied' });
    // The run's reason follows at once: the outcome is no longer unknown, and it says what is left to do.
    expect((await screen.findByTestId('run-reason')).textContent).toContain(
      'Every side effect is resolved now',
    );
    expect(screen.getByTestId('effect-status').textContent).toBe('did not happen');
    const toolbar = await screen.findByRole('toolbar', { name: 'Run actions' });
    await user.click(await within(toolbar).findByRole('button', { name: 'Resume' }));
    await screen.findByText('Resumed: the run is queued again.');
    expect(h.store.getRun(runId).status).toBe('queued');
  });
});

describe('bulk actions', () => {
  it('previews per run and asks for the typed count above five', async () => {
    const titles = Array.from({ length: 6 }, (_, i) => `Stale ${i}`);
    const ids = titles.map((title) => seedStaleRun(h, title));
    const { user } = renderApp(h, '#/stale');
    const grid = await rows();
    await grid.findByRole('row', { name: /Stale 5/ });
    for (const title of titles) await user.click(grid.getByRole('checkbox', { name: `Select ${title}` }));
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
    expect(ids.map((id) => h.store.getRun(id).status)).toEqual(ids.map(() => 'cancelled'));
    expect(
      h.calls.filter(([m]) => m === 'bulkAction').map(([, i]) => (i as { dryRun: boolean }).dryRun),
    ).toEqual([true, false]);
  });

  it('x toggles the active run into the selection', async () => {
    seedStaleRun(h, 'One');
    const { user } = renderApp(h, '#/stale');
    await (await rows()).findByRole('row', { name: /One/ });
    fireEvent.keyDown(window, { key: 'x' });
    expect(await screen.findByText('1 selected')).toBeTruthy();
    await user.keyboard('x');
    expect(screen.queryByText('1 selected')).toBeNull();
  });
});

describe('pushes', OPENS_A_PANEL, () => {
  it('open-run selects the run; changed refreshes the open run and the list', async () => {
    const { runId, claim } = startRun(h, { title: 'From the tray' });
    renderApp(h, '#/all');
    await (await rows()).findByRole('row', { name: /From the tray/ });
    h.emitShellPush('open-run', { runId });
    await screen.findByRole('heading', { level: 2, name: 'From the tray' }, FIRST_OPEN);
    // The runner starts a step: the host's change feed pushes `changed`, nothing else tells the window.
    h.store.startAttempt(claim, 'deploy-eu');
    const detail = screen.getByRole('complementary', { name: 'Run details' });
    // The detail's facts (a <dl>): its Step line shows the step.
    await waitFor(() => {
      const facts = [...detail.querySelectorAll('dt')].find((dt) => dt.textContent === 'Step');
      expect(facts?.nextElementSibling?.textContent).toBe('deploy-eu');
    });
    const row = (await rows()).getByRole('row', { name: /From the tray/ });
    await waitFor(() => expect(row.textContent).toContain('deploy-eu'));
  });

  it('shows the store banner for a store the host opened read-only', async () => {
    h.cleanup();
    h = createRealHost({ newerSchema: true });
    renderApp(h);
    const banner = await screen.findByRole('status', { name: 'Store status' });
    expect(banner.textContent).toContain('Read-only');
    expect(banner.textContent).toContain('This store was written by a newer Runwarden');
    expect(h.pushes).toContainEqual(['store-status', expect.objectContaining({ mode: 'read-only' })]);
  });

  it('counts unread notifications and marks them read', async () => {
    const { runId } = startRun(h);
    const { user } = renderApp(h);
    await screen.findByRole('button', { name: 'Notifications, 0 unread' });
    // The runner's own notification: the change feed tells the window.
    h.store.notify(runId, { level: 'attention', title: 'Question waiting' }, RUNNER);
    const button = await screen.findByRole('button', { name: 'Notifications, 1 unread' });
    await user.click(button);
    const dialog = await screen.findByRole('dialog', { name: 'Notifications' }, FIRST_OPEN);
    expect(within(dialog).getByText(/Question waiting/)).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Mark all read' }));
    expect(await screen.findByRole('button', { name: 'Notifications, 0 unread' })).toBeTruthy();
    expect(h.store.listNotifications({ limit: 10 }).map((n) => n.readAt)).toEqual([h.now()]);
  });
});
