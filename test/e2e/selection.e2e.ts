/**
 * One selection model, in Chromium against `runwarden serve` (docs/WINDOW.md#commands-and-retry): a picked
 * run is aria-selected (not the active row), the header checkbox speaks for the rows shown, a picked run that
 * leaves the list is counted and named in the bulk bar before any action, and a bulk result keeps its titles,
 * says one count in its heading and its toast, and keeps focus in the dialog.
 *
 * Runs are seeded through the store's own API on the same file, as runners make them.
 */
import { expect, test } from '@playwright/test';
import { openStore } from '../../main/store/open-store';
import { createWorkspace, openUi, screenshot, startServe, type Served, type Workspace } from './harness';

const PERSON = { type: 'human' as const, id: 'e2e', surface: 'cli' as const };

let ws: Workspace;
let served: Served;
const ids = new Map<string, string>();

test.beforeAll(async () => {
  ws = createWorkspace();
  const store = openStore(ws.store);
  try {
    for (const title of ['queued 1', 'queued 2', 'queued 3', 'queued 4']) {
      const run = store.reserveRun(
        { projectPath: ws.project, workflow: 'sync', title },
        { type: 'runner', id: 'e2e', surface: 'sdk' },
      );
      ids.set(title, run.id);
    }
  } finally {
    store.close();
  }
  served = await startServe(ws);
});

test.afterAll(async () => {
  await served.stop();
  ws.cleanup();
});

test('a picked run that leaves the list is named before any action; the result keeps titles and one count', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served, '#/queued');
  const grid = page.getByRole('grid', { name: 'Runs' });
  const rows = grid.locator('[role="row"][id^="run-row-"]');
  await expect(rows).toHaveCount(4);
  const pickAll = grid.getByRole('checkbox', { name: /^Select all/ });

  // The active row is not the selection: j moves the cursor, nothing is aria-selected.
  await grid.focus();
  await page.keyboard.press('j');
  await expect(grid.locator('[aria-selected="true"]')).toHaveCount(0);
  // x picks the active row: it is aria-selected, the header checkbox is mixed.
  await page.keyboard.press('x');
  await expect(grid.locator('[aria-selected="true"]')).toHaveCount(1);
  expect(await pickAll.evaluate((el) => (el as HTMLInputElement).indeterminate)).toBe(true);
  await pickAll.click();
  await expect(pickAll).toBeChecked();
  await expect(grid.locator('[aria-selected="true"]')).toHaveCount(4);

  // One of them is cancelled elsewhere: it leaves Queued, and the bar says so by name.
  const store = openStore(ws.store);
  try {
    const id = ids.get('queued 1') ?? '';
    store.cancelRun(id, { reason: 'done elsewhere', actor: PERSON });
  } finally {
    store.close();
  }
  await expect(rows).toHaveCount(3);
  const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
  await expect(bar.getByTestId('bulk-count')).toHaveText('4 selected, 1 not in this view');
  await expect(bar.getByTestId('bulk-outside')).toContainText('queued 1');
  // The header checkbox speaks for the three rows shown: all of them are picked.
  await expect(pickAll).toBeChecked();

  // The dry run marks it; the result keeps every title after the runs left the list.
  await bar.getByRole('button', { name: 'Cancel…' }).click();
  const dialog = page.getByRole('dialog', { name: /Cancel/ });
  await expect(dialog.getByRole('heading')).toHaveText('Cancel 3 runs?');
  await expect(dialog.getByRole('list', { name: 'Dry run results' })).toContainText(
    /queued 1.*not in this view/,
  );
  await dialog.getByRole('button', { name: 'Cancel 3 runs' }).click();
  await expect(dialog.getByRole('heading')).toHaveText('Cancelled 3 runs, 1 refused');
  await expect(dialog.getByTestId('bulk-summary')).toHaveText('Cancelled 3 runs, 1 refused.');
  // The toast (behind the modal, so found by its place, not its role) says the same count.
  await expect(page.locator('.toasts .toast').filter({ hasText: 'Cancelled' })).toContainText(
    'Cancelled 3 runs, 1 refused.',
  );
  await expect(rows).toHaveCount(0);
  const results = dialog.getByRole('list', { name: 'Results' });
  for (const title of ['queued 1', 'queued 2', 'queued 3', 'queued 4'])
    await expect(results).toContainText(title);
  // Focus stays in the dialog, on its Close button.
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await screenshot(page, 'bulk-result-1280');
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(bar).toHaveCount(0);
});
