/**
 * Keyboard and layout, in Chromium against `runwarden serve` (docs/WINDOW.md#layout, #keyboard): below
 * 1100 px what the open-run drawer covers is inert (Tab never reaches it), Escape gives focus back to the
 * list, j/k with a run open show the next run in it; the open run's words (Created/Started, "without a terminal", "timed out"), its actions in one fixed
 * order with focus kept after Resume and after Cancel run…, the Needs you "·" spacing, the view tabs on one
 * line at 1280 px with a run open, and the Live pill in the top bar, over neither a toast nor the open run.
 */
import { expect, test, type Page } from '@playwright/test';
import { openStore } from '../../main/store/open-store';
import { createWorkspace, openUi, startServe, type Served, type Workspace } from './harness';

let ws: Workspace;
let served: Served;
let parked = '';
let timedOut = '';

test.beforeAll(async () => {
  ws = createWorkspace();
  const store = openStore(ws.store);
  try {
    const runner = { type: 'runner' as const, id: 'e2e', surface: 'sdk' as const };
    const owner = { ownerType: 'runner' as const, ownerId: 'e2e-runner', pid: 4242, hostname: 'elsewhere' };
    for (let i = 0; i < 12; i += 1)
      store.reserveRun({ projectPath: ws.project, workflow: 'sync', title: `filler ${i}` }, runner);
    const p = store.reserveRun(
      { projectPath: ws.project, workflow: 'reindex', title: 'Rebuild index' },
      runner,
    );
    const pc = store.claimRun(p.id, { ...owner, startId: 'p', leaseMs: 60_000 }).claim;
    store.park(pc, 'runnerExited');
    parked = p.id;
    const t = store.reserveRun(
      { projectPath: ws.project, workflow: 'terraform', title: 'Plan network', executionMode: 'headless' },
      runner,
    );
    const tc = store.claimRun(t.id, { ...owner, startId: 't', leaseMs: 60_000 }).claim;
    store.markRunning(tc);
    const attempt = store.startAttempt(tc, 'plan');
    store.finishAttempt(tc, attempt.id, 'timed_out', 'plan took longer than 10 minutes');
    store.timeOutRun(tc);
    timedOut = t.id;
  } finally {
    store.close();
  }
  served = await startServe(ws);
});

test.afterAll(async () => {
  await served.stop();
  ws.cleanup();
});

const pane = (page: Page) => page.getByRole('complementary', { name: 'Run details' });

test('below 1100 px the drawer makes what it covers inert; Escape gives the list its focus back', async ({
  page,
}) => {
  await page.setViewportSize({ width: 900, height: 700 });
  await openUi(page, served, `#/all?run=${timedOut}`);
  await expect(pane(page).getByRole('heading', { level: 2 })).toHaveText('Plan network');
  await expect(page.locator('main')).toHaveAttribute('inert', '');
  // Tab through the whole page: focus never lands under the drawer.
  for (let i = 0; i < 40; i += 1) {
    await page.keyboard.press('Tab');
    const under = await page.evaluate(() => document.activeElement?.closest('main') !== null);
    expect(under, `Tab ${i + 1} reached a control under the drawer`).toBe(false);
  }
  await page.keyboard.press('Escape');
  await expect(pane(page)).toHaveCount(0);
  await expect(page.locator('main')).not.toHaveAttribute('inert', '');
  await expect(page.getByRole('grid', { name: 'Runs' })).toBeFocused();
  // Wide, the open run is a column beside the list: nothing is inert.
  await page.setViewportSize({ width: 1280, height: 700 });
  await openUi(page, served, `#/all?run=${timedOut}`);
  await expect(pane(page).getByRole('heading', { level: 2 })).toHaveText('Plan network');
  await expect(page.locator('main')).not.toHaveAttribute('inert', '');
});

test('j/k with a run open show the next and previous run in it: the drawer and the list agree', async ({
  page,
}) => {
  await page.setViewportSize({ width: 900, height: 700 });
  await openUi(page, served, '#/all');
  const grid = page.getByRole('grid', { name: 'Runs' });
  await expect(grid).toHaveAttribute('aria-busy', 'false');
  await expect(grid).toHaveAttribute('aria-activedescendant', `run-row-${timedOut}`);
  await grid.focus();
  await page.keyboard.press('Enter');
  const heading = pane(page).getByRole('heading', { level: 2 });
  await expect(heading).toHaveText('Plan network');
  await expect(heading).toBeFocused();
  // In the drawer (the list under it is inert): j shows the next run there, and the list's active row is it.
  await page.keyboard.press('j');
  await expect(heading).toHaveText('Rebuild index');
  await expect(grid).toHaveAttribute('aria-activedescendant', `run-row-${parked}`);
  await expect(heading).toBeFocused();
  expect(await page.evaluate(() => location.hash)).toContain(`run=${parked}`);
  await page.keyboard.press('j');
  await expect(heading).toHaveText('filler 11');
  await page.keyboard.press('k');
  await expect(heading).toHaveText('Rebuild index');
  await expect(grid).toHaveAttribute('aria-activedescendant', `run-row-${parked}`);
  // Wide, the list beside the open run keeps the keyboard while the open run follows its active row.
  await page.setViewportSize({ width: 1280, height: 700 });
  await grid.focus();
  await page.keyboard.press('k');
  await expect(heading).toHaveText('Plan network');
  await expect(grid).toHaveAttribute('aria-activedescendant', `run-row-${timedOut}`);
  await expect(grid).toBeFocused();
  // One history entry for the open run, however far it moved: Back closes it, not back to the run before.
  await page.goBack();
  await expect(pane(page)).toHaveCount(0);
  expect(await page.evaluate(() => location.hash)).toBe('#/all');
});

test('the open run says when it was created and started, how, and "timed out" in words', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 800 });
  await openUi(page, served, `#/all?run=${timedOut}`);
  const detail = pane(page);
  await expect(detail.getByTestId('run-started')).toHaveText(/^(now|\d+s ago), without a terminal$/);
  await expect(detail.getByRole('table')).toContainText('timed out');
  await expect(detail).not.toContainText('timed_out');
  await expect(detail).not.toContainText('headless');
  // Header cells never break inside a word.
  for (const header of await detail.getByRole('columnheader').all()) {
    const lines = await header.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return range.getClientRects().length;
    });
    expect(lines, (await header.textContent()) ?? '').toBeLessThanOrEqual(1);
  }
});

test('actions keep their order after Resume and focus stays in the run after Cancel run…', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served, '#/needs-you');
  const row = page.getByRole('row', { name: /Rebuild index/ });
  await expect(row).toContainText('Resume or cancel · Parked');
  await openUi(page, served, `#/all?run=${parked}`);
  const toolbar = pane(page).getByRole('toolbar', { name: 'Run actions' });
  await expect(toolbar.getByRole('button')).toHaveText(['Resume', 'Pause…', 'Cancel run…']);
  await toolbar.getByRole('button', { name: 'Resume' }).click();
  await expect(toolbar.getByRole('button')).toHaveText(['Pause…', 'Cancel run…']);
  await expect(toolbar.getByRole('button').first()).toBeFocused();
  await toolbar.getByRole('button', { name: 'Cancel run…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog
    .getByRole('button', { name: /^Cancel/ })
    .last()
    .click();
  await expect(dialog).toHaveCount(0);
  await expect(pane(page).getByTestId('run-reason')).toContainText('Cancelled');
  const focused = await page.evaluate(() => {
    const active = document.activeElement;
    return active === null || active === document.body
      ? 'body'
      : (active.closest('aside')?.tagName ?? 'elsewhere');
  });
  expect(focused).toBe('ASIDE');
});

test('at 1280 px with a run open the tabs stay on one line and the Live pill covers nothing', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served, `#/all?run=${timedOut}`);
  await expect(pane(page).getByRole('heading', { level: 2 })).toHaveText('Plan network');
  const tops = await page
    .getByRole('navigation', { name: 'Views' })
    .getByRole('link')
    .evaluateAll((links) => links.map((a) => Math.round(a.getBoundingClientRect().top)));
  expect(new Set(tops).size).toBe(1);
  const live = page.getByRole('status', { name: 'Connection' });
  await expect(live).toHaveText('Live');
  const pill = await live.boundingBox();
  const bar = await page.locator('header.topbar').boundingBox();
  const side = await pane(page).boundingBox();
  expect(pill !== null && bar !== null && side !== null).toBe(true);
  if (pill === null || bar === null || side === null) return;
  expect(pill.y + pill.height).toBeLessThanOrEqual(bar.y + bar.height);
  expect(pill.y + pill.height).toBeLessThanOrEqual(side.y);
});
