/**
 * BulkDialog.svelte on its own, over the real host (real-host.ts): the dialog says one count (the runs the
 * confirm acts on), how many will be skipped, why live runs are skipped, and offers those a cancel request.
 */
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appContext } from '../../renderer/src/lib/state/app-context';
import BulkDialog from '../../renderer/src/lib/components/BulkDialog.svelte';
import { createRealHost, seedCompletedRun, seedStaleRun, startRun, type RealHost } from './real-host';
import { createApp } from './render-app';

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

/** The dialog opened on these runs, each at the revision the store has now (what a selection records). */
async function openOn(action: 'cancel' | 'retry', runIds: string[]) {
  const { app } = createApp(h, '#/all');
  render(BulkDialog, { context: appContext(app) });
  const items = runIds.map((runId) => ({ runId, expectedRevision: h.store.getRun(runId).revision }));
  await app.bulk.open(action, items);
  return app;
}

describe('bulk dialog', () => {
  it('counts only the runs it acts on, says the rest are skipped, and why live ones are', async () => {
    const stale = [seedStaleRun(h, 'Stale A'), seedStaleRun(h, 'Stale B')];
    const live = startRun(h, { title: 'Live' }).runId;
    const done = seedCompletedRun(h, 'Done');
    await openOn('cancel', [...stale, live, done]);

    const dialog = screen.getByRole('dialog', { name: 'Cancel 2 runs?' });
    expect(within(dialog).getByTestId('bulk-skipped').textContent).toBe('2 will be skipped');
    expect(within(dialog).getByText('Dry run: 2 would cancel, 2 will be skipped.')).toBeTruthy();
    const rows = within(within(dialog).getByRole('list', { name: 'Dry run results' })).getAllByRole(
      'listitem',
    );
    const rowOf = (runId: string) => rows.find((li) => li.textContent?.includes(runId));
    expect(rowOf(live)?.textContent).toContain('Skipped: A live runner holds it');
    expect(rowOf(done)?.textContent).toContain('Skipped: ');
    expect(rowOf(done)?.textContent).not.toContain('live runner');
    for (const id of stale) expect(rowOf(id)?.textContent).not.toContain('Skipped');
    // Two runs to act on: under the typing threshold, the confirm names the same count.
    expect(within(dialog).queryByRole('textbox', { name: /^Type \d+ to confirm$/ })).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Cancel 2 runs' })).toBeTruthy();
    expect(
      within(dialog).getByText(/1 run is held by a live runner: a cancel would be refused/),
    ).toBeTruthy();
  });

  it('asks a live run’s runner to stop instead, and cancels nothing under it', async () => {
    const user = userEvent.setup();
    const live = startRun(h, { title: 'Live' }).runId;
    const stale = seedStaleRun(h, 'Stale');
    await openOn('cancel', [live, stale]);
    const dialog = screen.getByRole('dialog', { name: 'Cancel 1 run?' });
    await user.click(within(dialog).getByRole('button', { name: 'Request cancel of 1 live run' }));
    const requests = await within(dialog).findByRole('list', { name: 'Cancel requests' });
    expect(within(requests).getByRole('listitem').textContent).toContain(
      'Cancel requested: the runner stops at its next check.',
    );
    expect(within(dialog).queryByRole('button', { name: /^Request cancel/ })).toBeNull();
    expect(h.store.getRun(live)).toMatchObject({ status: 'running', cancelRequested: true });
    expect(h.store.getRun(stale).status).not.toBe('cancelled');
  });

  it('will not confirm without a reason, or before the count is typed when the batch is large', async () => {
    const user = userEvent.setup();
    const stale = Array.from({ length: 6 }, (_, i) => seedStaleRun(h, `Stale ${i}`));
    await openOn('cancel', stale);
    const dialog = screen.getByRole('dialog', { name: 'Cancel 6 runs?' });
    expect(within(dialog).queryByTestId('bulk-skipped')).toBeNull();
    const confirm = within(dialog).getByRole('button', { name: 'Cancel 6 runs' }) as HTMLButtonElement;
    const typed = within(dialog).getByRole('textbox', { name: 'Type 6 to confirm' });
    await user.type(typed, '6');
    expect(confirm.disabled).toBe(false);
    await user.clear(within(dialog).getByRole('textbox', { name: 'Reason (recorded for each run)' }));
    expect(confirm.disabled).toBe(true);
    await user.type(
      within(dialog).getByRole('textbox', { name: 'Reason (recorded for each run)' }),
      'cleanup',
    );
    await user.clear(typed);
    await user.type(typed, '5');
    expect(confirm.disabled).toBe(true);
    await user.clear(typed);
    await user.type(typed, '6');
    await user.click(confirm);
    await within(dialog).findByRole('heading', { name: 'Cancelled 6 runs' });
    expect(within(dialog).getByTestId('bulk-summary').textContent?.trim()).toBe('Cancelled 6 runs.');
    // Focus stays in the dialog, on its Close button, after the form's buttons gave way.
    await waitFor(() =>
      expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Close' })),
    );
    expect(stale.map((id) => h.store.getRun(id).status)).toEqual(stale.map(() => 'cancelled'));
  });

  it('Back closes it without acting', async () => {
    const user = userEvent.setup();
    const stale = seedStaleRun(h, 'Stale');
    const app = await openOn('cancel', [stale]);
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Back' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(app.bulk.isOpen).toBe(false);
    expect(h.store.getRun(stale).status).not.toBe('cancelled');
  });
});
