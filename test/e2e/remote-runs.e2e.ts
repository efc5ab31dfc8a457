/**
 * Remote runs in the window's run list (docs/REMOTES.md#in-the-window), over a real sshd on 127.0.0.1 (the
 * "remote" is this machine with another store): a remote run is listed with its Machine and the Machine
 * filter shows one machine's runs; a stale remote run is cancelled from the window with the same
 * confirmation as a local one, and the remote records it as the person via box; a live remote run's cancel
 * is refused by the remote itself and the run carries on.
 */
import { expect, test } from '@playwright/test';
import { openUi, type Served } from './harness';
import { CAN_RUN_REMOTES, onStore, startMachines, type Machines } from './remote-machines';

let machines: Machines;
let served: Served;
let remoteStore: string;

const remoteJson = <T>(args: string[]): T => onStore<T>(remoteStore, args);

interface Listed {
  items: Array<{ run: { id: string; title: string; status: string; revision: number } }>;
}

function remoteRun(title: string) {
  const run = remoteJson<Listed>(['ls', '--limit', '100']).items.find((i) => i.run.title === title)?.run;
  if (run === undefined) throw new Error(`no remote run "${title}"`);
  return run;
}

test.beforeEach(async () => {
  test.skip(!CAN_RUN_REMOTES, 'needs /usr/sbin/sshd and root');
  machines = await startMachines({ box: true });
  served = machines.served;
  remoteStore = machines.stores.box ?? '';
});

test.afterEach(async () => {
  if (CAN_RUN_REMOTES) await machines.stop();
});

test('a remote run is listed with its machine, cancelled from the window; a live one is refused', async ({
  page,
}) => {
  const stale = remoteRun('Snapshot production databases');
  await openUi(page, served, '#/all');
  await expect(page.locator('[data-machine="box"]').getByTestId('machine-state')).toContainText(
    'box: connected',
    { timeout: 20_000 },
  );
  // Every machine's runs: this machine's rows say so; the filter then shows box's alone.
  await expect(page.getByTestId('row-machine').filter({ hasText: 'this machine' }).first()).toBeVisible();
  await page.getByTestId('machine-filter').selectOption('box');
  await expect(page).toHaveURL(/machine=box/);
  const row = page.locator(`[id="run-row-box:${stale.id}"]`);
  await expect(row).toBeVisible({ timeout: 10_000 });
  await expect(row.getByTestId('row-machine')).toHaveText('box');
  await expect(page.getByTestId('row-machine').filter({ hasText: 'this machine' })).toHaveCount(0);

  // Cancel the stale remote run: the same confirmation as a local one, acted on by box's own handlers.
  await row.click();
  await page
    .getByRole('toolbar', { name: 'Run actions' })
    .getByRole('button', { name: 'Cancel run…' })
    .click();
  const dialog = page.getByRole('dialog', { name: /^Cancel run: / });
  await expect(dialog.getByRole('list', { name: 'Consequences' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel run', exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('run-reason')).toContainText('Cancelled');
  const shown = remoteJson<{
    snapshot: { run: { status: string } };
    events: Array<{ type: string; actorId: string | null; surface: string | null }>;
  }>(['show', stale.id]);
  expect(shown.snapshot.run.status).toBe('cancelled');
  const cancelled = shown.events.find((e) => e.type === 'run.cancelled');
  expect(cancelled?.actorId).toMatch(/ via box$/);
  expect(cancelled?.surface).toBe('browser');

  // A live remote run: the remote's own handlers refuse a cancel, and the run carries on.
  const live = remoteRun('Nightly integration tests');
  const response = await fetch(`${served.origin}/api/invoke/runs:cancel`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${served.token}` },
    body: JSON.stringify({ runId: `box:${live.id}`, expectedRevision: live.revision, reason: 'try' }),
  });
  const refused = (await response.json()) as { ok: boolean; error?: { code: string; message: string } };
  expect(refused.ok).toBe(false);
  expect(refused.error?.message).toMatch(/live|running|runner/i);
  expect(remoteRun('Nightly integration tests').status).toBe('running');
});
