/**
 * The window's dialogs, settings, retry, bulk cancel, triage, chrome, prompts, quick answers, palette and
 * search against the real host (real-host.ts): runs seeded as runners make them, outcomes read back
 * from the store, pushes from the host's change feed.
 */
import { screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cloneRuns,
  createRealHost,
  recordEffect,
  seedAmbiguousRun,
  seedCompletedRun,
  seedQuestion,
  seedStaleRun,
  startRun,
  type RealHost,
} from './real-host';
import { FIRST_OPEN, OPENS_A_PANEL, renderApp } from './render-app';

const OTHER_TAB = { type: 'human', id: 'dev', surface: 'browser' } as const;

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

const responseOf = (interactionId: string) => h.store.getInteraction(interactionId).response;

describe('dialogs', OPENS_A_PANEL, () => {
  it('open as modal <dialog>s, close on Escape and give focus back to their opener', async () => {
    startRun(h);
    const { user } = renderApp(h);
    for (const name of ['Settings', 'Keyboard shortcuts']) {
      const opener = screen.getByRole('button', { name });
      opener.focus();
      await user.keyboard('{Enter}');
      const dialog = await screen.findByRole('dialog', { name }, FIRST_OPEN);
      expect(dialog.tagName).toBe('DIALOG');
      expect(dialog.hasAttribute('open')).toBe(true);
      expect(dialog.contains(document.activeElement)).toBe(true);
      await user.keyboard('{Escape}');
      await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
      expect(document.activeElement).toBe(opener);
    }
  });

  it('a cancelled run loses its Cancel button: focus goes to the run heading, not the page', async () => {
    const runId = seedStaleRun(h, 'Gone soon');
    const { user } = renderApp(h, `#/stale?run=${runId}`);
    await screen.findByRole('heading', { level: 2, name: 'Gone soon' }, FIRST_OPEN);
    await user.click(screen.getByRole('button', { name: 'Cancel run…' }));
    const dialog = await screen.findByRole('dialog', { name: /Cancel run/ });
    await within(dialog).findByText(/1 active step will be cancelled/);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel run' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('heading', { level: 2, name: 'Gone soon' })),
    );
    expect(h.store.getRun(runId).status).toBe('cancelled');
  });
});

describe('settings', OPENS_A_PANEL, () => {
  it('shows seconds and minutes, refuses 0x10 without saving, saves visibly in milliseconds', async () => {
    const { user } = renderApp(h);
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' }, FIRST_OPEN);
    const every = (await within(dialog).findByRole('textbox', { name: 'Check every' })) as HTMLInputElement;
    expect(every.value).toBe('2');
    await user.clear(every);
    await user.type(every, '0x10');
    await user.click(within(dialog).getByRole('button', { name: 'Save settings' }));
    expect(within(dialog).getByText('Check every: type a number, like 0.25.')).toBeTruthy();
    expect(document.activeElement).toBe(every);
    expect(h.count('setSettings')).toBe(0);
    await user.clear(every);
    await user.type(every, '1.5');
    const grace = within(dialog).getByRole('textbox', { name: 'Stale grace' });
    await user.clear(grace);
    await user.type(grace, '30');
    const save = within(dialog).getByRole('button', { name: 'Save settings' });
    await user.click(save);
    await within(dialog).findByText(/^Saved at /);
    // What the store keeps, read by another connection, and what the host now runs with.
    expect(h.store.getSetting('sweepIntervalMs', null)).toBe(1500);
    expect(h.store.getSetting('staleGraceMs', null)).toBe(30_000);
    expect(h.host.settings).toMatchObject({ sweepIntervalMs: 1500, staleGraceMs: 30_000 });
    expect(document.activeElement).toBe(save);
    expect(within(screen.getByRole('status', { name: 'Results' })).getByText('Settings saved.')).toBeTruthy();
  });

  it('hides the desktop-only settings in a browser tab', async () => {
    const { user } = renderApp(h, '', { shell: 'browser' });
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' }, FIRST_OPEN);
    await within(dialog).findByRole('textbox', { name: 'Check every' });
    expect(within(dialog).queryByText('Launch at login')).toBeNull();
    expect(within(dialog).queryByText(/Pause desktop notifications/)).toBeNull();
    expect(within(dialog).queryByText(/keeps Runwarden in the\s+tray/)).toBeNull();
    expect(within(dialog).queryByText('Command line')).toBeNull();
    expect(h.count('getCliPathStatus')).toBe(0);
  });
});

describe('retry', OPENS_A_PANEL, () => {
  it('is confirmed, naming the workflow and command that run again, and opens the new run linked back', async () => {
    const done = seedCompletedRun(h, 'nightly', {
      workflow: 'etl',
      command: { argv: ['make', 'etl'], cwd: '/src/app' },
    });
    const { user, app } = renderApp(h, `#/all?run=${done}`);
    await screen.findByRole('heading', { level: 2, name: 'nightly' }, FIRST_OPEN);
    await user.click(screen.getByRole('button', { name: 'Retry…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Retry: “nightly”?' });
    const lines = within(dialog).getByRole('list', { name: 'Consequences' });
    expect(lines.textContent).toContain('A new run of workflow “etl” starts with the same input.');
    expect(lines.textContent).toContain('It runs the command again: make etl in /src/app.');
    expect(h.count('retryRun')).toBe(0);
    await user.click(within(dialog).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(app.route.runId).not.toBe(done));
    expect(h.count('retryRun')).toBe(1);
    const detail = screen.getByRole('complementary', { name: 'Run details' });
    await within(detail).findByText('Retry of');
    expect(within(detail).getByRole('button', { name: done })).toBeTruthy();
    // And back: the original run lists the retry in its detail and its timeline.
    await user.click(within(detail).getByRole('button', { name: done }));
    await within(detail).findByText('Retried as');
    const retries = h.store.listRetries(done);
    expect(retries).toHaveLength(1);
    expect(within(detail).getByRole('button', { name: `Open the retry ${retries[0]?.id}` })).toBeTruthy();
  });

  it('is held back, with the reason, while a side effect of the run is unresolved', async () => {
    const { runId, claim } = startRun(h, { title: 'charged twice?' });
    recordEffect(h, claim, { summary: 'charge card', key: 'charge-1', settle: 'ambiguous' });
    h.store.failRun(claim, 'card declined?');
    const { app } = renderApp(h, `#/all?run=${runId}`);
    await screen.findByRole('heading', { level: 2, name: 'charged twice?' }, FIRST_OPEN);
    expect(app.detail.data?.snapshot.run.status).toBe('failed');
    const toolbar = screen.getByRole('toolbar', { name: 'Run actions' });
    expect(within(toolbar).queryByRole('button', { name: 'Retry…' })).toBeNull();
    expect(within(toolbar).getByRole('button', { name: 'Resolve effects' })).toBeTruthy();
    expect(screen.getByTestId('run-reason').textContent).toMatch(/Resolve it before retrying\./);
    expect(screen.getByRole('button', { name: 'It happened…' })).toBeTruthy();
  });
});

describe('bulk cancel', () => {
  it('says one count, the one the button acts on, and why live runs are skipped; offers them a cancel request', async () => {
    const stale = Array.from({ length: 6 }, (_, i) => seedStaleRun(h, `Stale ${i}`));
    const live = [startRun(h, { title: 'Live A' }), startRun(h, { title: 'Live B' })];
    const { user, app } = renderApp(h, '#/all');
    const grid = await screen.findByRole('grid', { name: 'Runs' });
    await within(grid).findByRole('row', { name: /Live B/ });
    await user.click(within(grid).getByRole('checkbox', { name: /^Select all 8 loaded runs$/ }));
    const bar = screen.getByRole('toolbar', { name: 'Bulk actions' });
    expect(within(bar).getByText('8 selected')).toBeTruthy();
    await user.click(within(bar).getByRole('button', { name: 'Cancel…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel 6 runs?' });
    await within(dialog).findByRole('list', { name: 'Dry run results' });
    expect(within(dialog).getByTestId('bulk-skipped').textContent).toBe('2 will be skipped');
    // The live runs are skipped for that reason (a runner holds them), not for the status they show.
    const dry = within(within(dialog).getByRole('list', { name: 'Dry run results' })).getAllByRole(
      'listitem',
    );
    const liveItems = dry.filter((li) => /Live [AB]/.test(li.textContent ?? ''));
    expect(liveItems).toHaveLength(2);
    for (const li of liveItems) {
      expect(li.textContent).toContain('Skipped: A live runner holds it');
      expect(li.textContent).toContain('request a cancel instead');
    }
    expect(within(dialog).getByText('Type 6 to confirm')).toBeTruthy();
    const confirm = within(dialog).getByRole('button', { name: 'Cancel 6 runs' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Type 6 to confirm' }), '8');
    expect((confirm as HTMLButtonElement).disabled).toBe(true);
    await user.clear(within(dialog).getByRole('textbox', { name: 'Type 6 to confirm' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Type 6 to confirm' }), '6');
    await user.click(confirm);
    const results = await within(dialog).findByRole('list', { name: 'Results' });
    const items = within(results).getAllByRole('listitem');
    expect(items).toHaveLength(8);
    expect(items.filter((li) => /Refused: /.test(li.textContent ?? ''))).toHaveLength(2);
    // The heading turned from the question to the result, with the runs the dry run refused counted.
    expect(within(dialog).getByRole('heading', { name: 'Cancelled 6 runs, 2 refused' })).toBeTruthy();
    // The toast says the same count as the dialog.
    await waitFor(() =>
      expect(app.toasts.items.map((t) => t.text)).toContain('Cancelled 6 runs, 2 refused.'),
    );
    expect(stale.map((id) => h.store.getRun(id).status)).toEqual(stale.map(() => 'cancelled'));
    expect(live.map((r) => h.store.getRun(r.runId).status)).toEqual(['running', 'running']);
    // The cooperative request for the two live runs: their runners are asked, nothing is cancelled under them.
    await user.click(within(dialog).getByRole('button', { name: 'Request cancel of 2 live runs' }));
    const requests = await within(dialog).findByRole('list', { name: 'Cancel requests' });
    expect(within(requests).getAllByRole('listitem')).toHaveLength(2);
    expect(live.map((r) => h.store.getRun(r.runId).cancelRequested)).toEqual([true, true]);
  });
});

describe('the list as a triage queue', () => {
  it('says why each run needs you and what to do next', async () => {
    seedStaleRun(h, 'Stuck');
    seedQuestion(h, { title: 'Ask' });
    renderApp(h);
    const grid = await screen.findByRole('grid', { name: 'Runs' });
    const ask = await within(grid).findByRole('row', { name: /Ask/ });
    expect(within(ask).getByRole('button', { name: 'Answer…' })).toBeTruthy();
    // The question itself beside the button, whole: the button already says an answer is wanted.
    expect(ask.textContent).toContain('Deploy to production?');
    expect(ask.textContent).not.toContain('Waiting for an answer:');
    const stuck = within(grid).getByRole('row', { name: /Stuck/ });
    expect(stuck.textContent).toContain('Cancel it, or wait for its runner');
    expect(within(grid).getByRole('columnheader', { name: 'Why / next step' })).toBeTruthy();
  });
});

describe('window chrome', OPENS_A_PANEL, () => {
  it('names the Notifications button by what it shows, has one h1, and counts what needs you in the title', async () => {
    seedQuestion(h);
    seedStaleRun(h);
    renderApp(h);
    const button = await screen.findByRole('button', { name: 'Notifications, 0 unread' });
    expect(button.hasAttribute('aria-label')).toBe(false);
    expect(screen.getAllByRole('heading', { level: 1 }).map((e) => e.textContent)).toEqual(['Runwarden']);
    await waitFor(() => expect(document.title).toBe('(2) Runwarden'));
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    expect(decodeURIComponent(icon?.href ?? '')).toContain('>2</text>');
  });

  it('isolates run text and shows a right-to-left override as a visible marker (docs/WINDOW.md#text-from-runs)', async () => {
    const runId = seedStaleRun(h, '\u202Egnp.exe');
    const { user } = renderApp(h, `#/stale?run=${runId}`);
    const heading = await screen.findByRole('heading', { level: 2, name: '<U+202E>gnp.exe' }, FIRST_OPEN);
    expect(heading.getAttribute('dir')).toBe('auto');
    await user.click(screen.getByRole('button', { name: 'Cancel run…' }));
    const dialog = await screen.findByRole('dialog');
    const title = within(dialog).getByRole('heading', { level: 2 });
    expect(title.querySelector('bdi')?.textContent).toBe('<U+202E>gnp.exe');
  });

  it('folds the projects sidebar away and back', async () => {
    startRun(h);
    const { user } = renderApp(h);
    const toggle = screen.getByRole('button', { name: 'Projects' });
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    await user.click(toggle);
    expect(screen.queryByRole('navigation', { name: 'Projects' })).toBeNull();
    await user.click(toggle);
    expect(screen.getByRole('navigation', { name: 'Projects' })).toBeTruthy();
  });
});

describe('prompts in markdown', OPENS_A_PANEL, () => {
  it('renders emphasis and lists as elements, keeps raw HTML as text, shows links without a link, loads no image', async () => {
    const { runId } = seedQuestion(
      h,
      { title: 'Rotate keys' },
      {
        prompt:
          'Rotate **now**?\n\n- one\n- two\n\n<img src=x onerror=alert(1)> [docs](https://evil.example/x) ![logo](https://evil.example/logo.png)',
      },
    );
    renderApp(h, `#/needs-you?run=${runId}`);
    const prompt = await screen.findByTestId('prompt', {}, FIRST_OPEN);
    expect(prompt.querySelector('strong')?.textContent).toBe('now');
    expect(prompt.querySelectorAll('li')).toHaveLength(2);
    expect(prompt.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(prompt.textContent).toContain('docs');
    expect(prompt.textContent).toContain('(https://evil.example/x)');
    expect(prompt.textContent).toContain('[image not loaded: logo, https://evil.example/logo.png]');
    expect(document.querySelector('img')).toBeNull();
    expect(prompt.querySelector('a')).toBeNull();
  });
});

describe('answering where the question is', OPENS_A_PANEL, () => {
  it('from the list row: the deadline and default are shown, one press answers, the run never opens', async () => {
    const { interaction } = seedQuestion(
      h,
      { title: 'Pick region' },
      { title: 'Which region?', choices: ['eu', 'us'], hasDefault: true, defaultResponse: 'eu' },
    );
    const { user, history } = renderApp(h);
    const grid = await screen.findByRole('grid', { name: 'Runs' });
    const row = await within(grid).findByRole('row', { name: /Pick region/ });
    await user.click(within(row).getByRole('button', { name: /^Answer…/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Answer: Which region?' });
    expect(within(dialog).getByRole('timer').textContent).toBe('5m 00s left');
    expect(within(dialog).getByText(/if nobody\s+answers by the deadline/)).toBeTruthy();
    expect(within(dialog).getByRole('button', { name: /^eu\s*\(default\)$/ })).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'us' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(responseOf(interaction.id)).toBe('us');
    const sent = h.calls.filter(([m]) => m === 'answerInteraction').map(([, i]) => i);
    expect(sent).toEqual([
      expect.objectContaining({
        interactionId: interaction.id,
        interactionRevision: interaction.revision,
        payload: 'us',
      }),
    ]);
    expect(
      within(screen.getByRole('status', { name: 'Results' })).getByText(/Answered “Which region\?”: us\./),
    ).toBeTruthy();
    expect(history.hash).not.toContain('run=');
  });

  it('in the open run, a question answered elsewhere loses its deadline and default at once', async () => {
    const { interaction, runId } = seedQuestion(
      h,
      { title: 'Pick region' },
      { title: 'Which region?', choices: ['eu', 'us'], hasDefault: true, defaultResponse: 'eu' },
    );
    renderApp(h, `#/all?run=${runId}`);
    const card = await screen.findByRole('article', { name: 'Which region?' }, FIRST_OPEN);
    expect(within(card).getByRole('timer').textContent).toBe('5m 00s left');
    expect(within(card).getByText(/if nobody\s+answers by the deadline/)).toBeTruthy();
    // Answered from the CLI: the card says how it ended, with no countdown and no default left.
    h.store.answerInteraction(interaction.id, {
      interactionRevision: interaction.revision,
      idempotencyKey: 'cli-answer-region',
      payload: 'us',
      actor: { ...OTHER_TAB, surface: 'cli' },
    });
    await waitFor(() => expect(within(card).getByTestId('interaction-status').textContent).toBe('settled'), {
      timeout: 5_000,
    });
    expect(within(card).queryByRole('timer')).toBeNull();
    expect(within(card).queryByText(/if nobody\s+answers by the deadline/)).toBeNull();
    expect(within(card).getByText(/answered by a person/)).toBeTruthy();
  });

  it('with the a key on the active row; a lost connection keeps the key so the retry is adopted', async () => {
    const { interaction } = seedQuestion(h, { title: 'Flaky network' });
    const { user } = renderApp(h);
    await within(await screen.findByRole('grid', { name: 'Runs' })).findByRole('row', {
      name: /Flaky network/,
    });
    await user.keyboard('a');
    const dialog = await screen.findByRole('dialog', { name: /^Answer: / });
    // The connection drops just after the answer reached the host: it is recorded, its reply is lost,
    // and the dialog's re-read of the question is lost too.
    h.dropConnectionAfter('answerInteraction');
    await user.click(await within(dialog).findByRole('button', { name: 'yes' }));
    expect(await within(dialog).findByRole('alert')).toBeTruthy();
    expect(responseOf(interaction.id)).toBe('yes');
    // Back online, the person presses again: the same key, so the host adopts the recorded answer.
    h.reconnect();
    await user.click(within(dialog).getByRole('button', { name: 'yes' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(
      within(screen.getByRole('status', { name: 'Results' })).getByText(
        /Answer already recorded “Deploy to production\?”: yes\./,
      ),
    ).toBeTruthy();
    const keys = h.calls
      .filter(([m]) => m === 'answerInteraction')
      .map(([, i]) => (i as { idempotencyKey: string }).idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    // The retry was adopted, not recorded a second time.
    const answered = h.store
      .getRunDetail(interaction.runId, { eventsLimit: 500 })
      .events.filter((e) => e.type === 'interaction.answered');
    expect(answered).toHaveLength(1);
  });

  it('only the reply lost: the re-read finds the answer recorded and says so', async () => {
    const { interaction } = seedQuestion(h, { title: 'Lost reply' });
    const { user } = renderApp(h);
    await within(await screen.findByRole('grid', { name: 'Runs' })).findByRole('row', {
      name: /Lost reply/,
    });
    await user.keyboard('a');
    const dialog = await screen.findByRole('dialog', { name: /^Answer: / });
    h.loseReplyOf('answerInteraction');
    await user.click(await within(dialog).findByRole('button', { name: 'yes' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(
      within(screen.getByRole('status', { name: 'Results' })).getByText(
        /Answer recorded “Deploy to production\?”: yes \(the reply was lost on its way back\)\./,
      ),
    ).toBeTruthy();
    expect(responseOf(interaction.id)).toBe('yes');
    expect(h.count('answerInteraction')).toBe(1);
  });

  it('refused when another tab answered first, with the reason', async () => {
    const { interaction } = seedQuestion(h, { title: 'Race' });
    // No delay between clicks: the press goes out before the host's push about the other tab's answer.
    const { user } = renderApp(h, '', { delay: null });
    const row = await within(await screen.findByRole('grid', { name: 'Runs' })).findByRole('row', {
      name: /Race/,
    });
    await user.click(within(row).getByRole('button', { name: /^Answer…/ }));
    const dialog = await screen.findByRole('dialog', { name: /^Answer: / });
    await within(dialog).findByRole('button', { name: 'yes' });
    h.store.answerInteraction(interaction.id, {
      interactionRevision: interaction.revision,
      idempotencyKey: 'other-tab-key-9',
      payload: 'no',
      actor: OTHER_TAB,
    });
    await user.click(within(dialog).getByRole('button', { name: 'yes' }));
    expect((await within(dialog).findByText(/Already answered/)).textContent).toContain('no longer open');
    expect(responseOf(interaction.id)).toBe('no');
  });

  it('from the notifications panel, stacked over it; Escape closes only the answer', async () => {
    const { interaction } = seedQuestion(h, { title: 'From a notice' }, { title: 'Go ahead?' });
    const { user } = renderApp(h);
    // The host notifies about a new question itself (on its next sweep) and keeps it in the history.
    await user.click(
      await screen.findByRole('button', { name: 'Notifications, 1 unread' }, { timeout: 3_000 }),
    );
    const panel = await screen.findByRole('dialog', { name: 'Notifications' }, FIRST_OPEN);
    await user.click(await within(panel).findByRole('button', { name: 'Answer…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Answer: Go ahead?' });
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Answer: Go ahead?' })).toBeNull());
    expect(screen.getByRole('dialog', { name: 'Notifications' })).toBeTruthy();
    expect(dialog.isConnected).toBe(false);
    await user.click(within(panel).getByRole('button', { name: 'Answer…' }));
    await user.click(await screen.findByRole('button', { name: 'no' }));
    await waitFor(() => expect(responseOf(interaction.id)).toBe('no'));
  });
});

describe('command palette', OPENS_A_PANEL, () => {
  it('Ctrl+K lists the selected run’s actions with their keys, filters as you type, and runs one', async () => {
    seedStaleRun(h, 'Stuck job');
    const { user } = renderApp(h, '#/stale');
    await within(await screen.findByRole('grid', { name: 'Runs' })).findByRole('row', { name: /Stuck job/ });
    await user.keyboard('{Control>}k{/Control}');
    const palette = await screen.findByRole('dialog', { name: 'Commands' }, FIRST_OPEN);
    const list = within(palette).getByRole('listbox', { name: 'Commands' });
    const labels = within(list)
      .getAllByRole('option')
      .map((o) => o.textContent ?? '');
    expect(labels[0]).toMatch(/Open the run — Stuck job\s*Enter/);
    expect(labels.some((l) => /Cancel run… — Stuck job/.test(l))).toBe(true);
    expect(labels.some((l) => /Select for a bulk action — Stuck job\s*x/.test(l))).toBe(true);
    expect(labels.some((l) => /Needs you\s*g n/.test(l))).toBe(true);
    const input = within(palette).getByRole('combobox', { name: 'Type a command' });
    expect(document.activeElement).toBe(input);
    await user.type(input, 'cancel run');
    expect(within(list).getAllByRole('option')).toHaveLength(1);
    await user.keyboard('{Enter}');
    expect(await screen.findByRole('dialog', { name: /Cancel run: “Stuck job”\?/ })).toBeTruthy();
  });
});

describe('needs you as a triage queue', () => {
  it('groups questions, then stale runs, then effects to resolve, then parked and queued, with headers', async () => {
    // Created oldest first: the store lists them newest first, which is not the order of urgency. Both
    // questions end at the same moment, so within their group the store's order (newest first) holds.
    const deadlineAt = h.now() + 5 * 60_000;
    seedQuestion(h, { title: 'Q old' }, { deadlineAt });
    seedStaleRun(h, 'S');
    seedAmbiguousRun(h, 'E');
    seedQuestion(h, { title: 'Q new' }, { deadlineAt });
    // A run whose runner exited without finishing it: parked, for a person to resume.
    const parked = startRun(h, { title: 'P' });
    h.store.park(parked.claim, 'runnerExited');
    renderApp(h);
    const grid = await screen.findByRole('grid', { name: 'Runs' });
    await within(grid).findByRole('row', { name: /Q new/ });
    const order = [...grid.querySelectorAll('.group-head, [role="row"]')].map(
      (r) =>
        r.getAttribute('data-group') ??
        /(Q old|Q new|S|E|P)$/.exec(r.querySelector('.c-title')?.textContent ?? '')?.[1] ??
        'head',
    );
    expect(order).toEqual(['head', 'answer', 'Q new', 'Q old', 'stale', 'S', 'effects', 'E', 'parked', 'P']);
    // The header is drawn for the eye; its words open the group's first row for a screen reader.
    const first = within(grid).getByRole('row', { name: /Effects to resolve, 1:/ });
    expect(first.querySelector('.c-title')?.textContent).toBe('E');
  });
});

describe('search', () => {
  it('tab counts follow the active search, and come back when it is cleared', async () => {
    seedStaleRun(h, 'zebra api');
    seedStaleRun(h, 'build web');
    seedQuestion(h, { title: 'zebra web' });
    startRun(h, { title: 'zebra docs' });
    const { app } = renderApp(h, '#/all');
    const tab = (name: string) => screen.getByRole('link', { name: new RegExp(`^${name} \\d+`) });
    await waitFor(() => expect(tab('All').textContent).toMatch(/All\s*4/));
    expect(tab('Stale').textContent).toMatch(/Stale\s*2/);
    await app.setSearch('zebra');
    await waitFor(() => expect(tab('All').textContent).toMatch(/All\s*3/));
    expect(tab('Stale').textContent).toMatch(/Stale\s*1/);
    expect(tab('Needs you').textContent).toMatch(/Needs you\s*2/);
    expect(tab('Running').textContent).toMatch(/Running\s*1/);
    await app.setSearch('');
    await waitFor(() => expect(tab('All').textContent).toMatch(/All\s*4/));
  });

  it('a search past the count cap shows its tab counts as lower bounds: "20000+", "at least"', async () => {
    const { runId } = startRun(h, { title: 'zebra fleet' });
    // One more than the cap (20,000) of runs matching "zebra", and one that does not match.
    cloneRuns(h, runId, 20_000);
    seedCompletedRun(h, 'build web');
    const { app } = renderApp(h, '#/all');
    const tabs = screen.getByRole('navigation', { name: 'Views' });
    const tab = (name: string) => within(tabs).getByRole('link', { name: new RegExp(`^${name} \\d+`) });
    // From 10,000 a tab's count is shown short, the exact number in its tooltip.
    await waitFor(() => expect(tab('All').textContent).toMatch(/All\s*20K$/), { timeout: 10_000 });
    expect(tab('All').querySelector('.count')?.getAttribute('title')).toBe(
      `${(20_002).toLocaleString()} runs`,
    );
    await app.setSearch('zebra');
    await waitFor(() => expect(tabs.getAttribute('data-counts')).toBe('search-lower-bound'), {
      timeout: 10_000,
    });
    expect(tab('All').textContent).toMatch(/All\s*20000\+$/);
    expect(tab('All').querySelector('.count')?.getAttribute('title')).toMatch(/^At least 20000\b/);
    expect(tab('Running').textContent).toMatch(/Running\s*20000\+$/);
    // A narrow search is counted in full: no "+", no "at least".
    await app.setSearch('web');
    await waitFor(() => expect(tabs.getAttribute('data-counts')).toBe('search'), { timeout: 10_000 });
    expect(tab('All').textContent).toMatch(/All\s*1$/);
    expect(tab('All').querySelector('.count')?.hasAttribute('title')).toBe(false);
  });
});
