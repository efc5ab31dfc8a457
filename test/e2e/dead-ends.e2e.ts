/**
 * No dead ends, in Chromium against `runwarden serve` (docs/WINDOW.md#no-dead-ends): an orphan whose command
 * runs on another machine offers no Stop the command (it would be refused) and says where to stop it and
 * with what; a link to a run this store does not hold says so; a link to a project with no runs here shows
 * the filter and says the project has no runs, with a way back to every project.
 */
import { expect, test } from '@playwright/test';
import { openStore } from '../../main/store/open-store';
import { createWorkspace, openUi, screenshot, startServe, type Served, type Workspace } from './harness';

let ws: Workspace;
let served: Served;
let orphan = '';

test.beforeAll(async () => {
  ws = createWorkspace();
  const store = openStore(ws.store);
  try {
    const run = store.reserveRun(
      { projectPath: ws.project, workflow: 'backfill', title: 'Backfill events elsewhere' },
      { type: 'runner', id: 'e2e', surface: 'sdk' },
    );
    const owner = { ownerType: 'runner' as const, ownerId: 'far-runner', pid: 4242, hostname: 'build-07' };
    const { claim } = store.claimRun(run.id, { ...owner, startId: 's1', leaseMs: 60_000 });
    store.markRunning(claim);
    store.recordCommand(claim, { pid: 48213, pgid: 48213, startId: null });
    store.markOrphaned(run.id, claim.generation, { type: 'host', id: 'sweeper', surface: 'sweeper' });
    orphan = run.id;
  } finally {
    store.close();
  }
  served = await startServe(ws);
});

test.afterAll(async () => {
  await served.stop();
  ws.cleanup();
});

test('an orphan on another machine offers nothing that would be refused, and says where to stop it', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served, `#/run/${orphan}`);
  const pane = page.getByRole('complementary', { name: 'Run details' });
  await expect(pane.getByRole('heading', { level: 2 })).toHaveText('Backfill events elsewhere');
  await expect(pane.getByRole('button', { name: /Stop the command/ })).toHaveCount(0);
  const note = pane.getByTestId('no-action');
  await expect(note).toContainText('build-07');
  await expect(note.locator('code')).toHaveText(`runwarden cancel --stop-command ${orphan}`);
  await expect(pane.getByTestId('run-reason')).toContainText('where this machine cannot see or stop it');
  await screenshot(page, 'dead-end-orphan-1280');
});

test('a link to a run this store does not hold says so, and closes', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 800 });
  await openUi(page, served, '#/run/run_01nosuchrun000');
  const pane = page.getByRole('complementary', { name: 'Run details' });
  await expect(pane.getByRole('heading', { level: 2 })).toHaveText('No such run');
  await expect(pane.getByTestId('run-missing')).toContainText('This store has no run run_01nosuchrun000.');
  await expect(pane.getByRole('button', { name: 'Try again' })).toHaveCount(0);
  await pane.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(pane).toHaveCount(0);
});

test('a link to a project with no runs here shows the filter and says so', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served, `#/all?project=${encodeURIComponent('/srv/nowhere/app')}`);
  const filter = page.getByTestId('project-filter');
  await expect(filter).toContainText('/srv/nowhere/app');
  await expect(filter).toContainText('no run in this store was started there');
  await expect(page.getByText('This project has no runs.')).toBeVisible();
  await filter.getByRole('button', { name: 'Show every project' }).click();
  await expect(filter).toHaveCount(0);
  await expect(page.getByRole('grid', { name: 'Runs' }).getByText('Backfill events elsewhere')).toBeVisible();
});
