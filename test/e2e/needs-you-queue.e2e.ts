/**
 * Needs you past its first page, in Chromium against `runwarden serve`: the store orders and counts the queue
 * (main/store/needs-you-queue.ts), so the soonest deadline is the first row even when it is the oldest run,
 * the group headers count the whole queue, and loading later pages moves no row already shown.
 *
 * The runs are seeded through the store's own API on the same file, the way runners make them (a second
 * connection, as test/renderer-host does): 150 runs by CLI would spend the test's time starting processes.
 */
import { expect, test, type Page } from '@playwright/test';
import { openStore } from '../../main/store/open-store';
import { createWorkspace, openUi, screenshot, startServe, type Served, type Workspace } from './harness';

const QUESTIONS = 230;
const PARKED = 20;
const HOUR = 3_600_000;

let ws: Workspace;
let served: Served;
let firstQuestion = '';

test.beforeAll(async () => {
  ws = createWorkspace();
  const store = openStore(ws.store);
  try {
    const owner = { ownerType: 'runner' as const, ownerId: 'e2e-runner', pid: 4242, hostname: 'elsewhere' };
    const now = Date.now();
    // Made oldest first; the oldest question is due soonest, so newest-first would show it on a later page.
    for (let i = 0; i < QUESTIONS; i += 1) {
      const run = store.reserveRun(
        { projectPath: ws.project, workflow: 'deploy', title: `question ${String(i).padStart(3, '0')}` },
        { type: 'runner', id: 'e2e', surface: 'sdk' },
      );
      const claim = store.claimRun(run.id, { ...owner, startId: `s${i}`, leaseMs: 24 * HOUR }).claim;
      if (i === 0) firstQuestion = run.id;
      store.requestInteraction(claim, {
        kind: 'decision',
        title: `Go on with ${i}?`,
        choices: ['yes', 'no'],
        deadlineAt: now + HOUR + i * 60_000,
      });
    }
    for (let i = 0; i < PARKED; i += 1) {
      const run = store.reserveRun(
        { projectPath: ws.project, workflow: 'sync', title: `parked ${i}` },
        { type: 'runner', id: 'e2e', surface: 'sdk' },
      );
      const claim = store.claimRun(run.id, { ...owner, startId: `p${i}`, leaseMs: 24 * HOUR }).claim;
      store.park(claim, 'runnerExited');
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

/** The titles of the rows drawn now, top to bottom. */
async function drawnTitles(page: Page): Promise<string[]> {
  return page
    .getByRole('grid', { name: 'Runs' })
    .locator('[role="row"][id^="run-row-"] .c-title')
    .allTextContents();
}

test('Needs you past one page: soonest deadline first, whole-queue counts, no row moves as pages load', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served, '#/needs-you');
  const grid = page.getByRole('grid', { name: 'Runs' });
  await expect(grid).toHaveAttribute('aria-busy', 'false');
  const tab = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Needs you/ });
  await expect(tab).toContainText(String(QUESTIONS + PARKED));
  // The first row is the soonest deadline, the oldest run, which newest-first would have put on page 3.
  await expect(grid.locator('[role="row"][id^="run-row-"]').first()).toContainText('question 000');
  await expect(grid.locator('.group-head').first()).toHaveText(`Questions waiting · ${QUESTIONS}`);
  const before = await drawnTitles(page);
  expect(before.slice(0, 5)).toEqual([
    'question 000',
    'question 001',
    'question 002',
    'question 003',
    'question 004',
  ]);
  await screenshot(page, 'needs-you-queue-1280');

  // Scroll to the end: the later pages load, the parked runs come after every question.
  const scroller = grid.locator('.body');
  for (let i = 0; i < 30; i += 1) {
    await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    const titles = await drawnTitles(page);
    if (titles.includes('parked 0')) break;
    await page.waitForTimeout(100);
  }
  await expect(grid.locator('.group-head', { hasText: 'Parked' })).toHaveText(
    `Parked: needs a decision · ${PARKED}`,
  );
  const tail = await drawnTitles(page);
  // Within a group, newest first: the last parked run made is the first of its group.
  expect(tail.at(-1)).toBe('parked 0');
  expect(tail.filter((t) => t.startsWith('question')).every((t) => t > 'question 1')).toBe(true);

  // Back at the top, the rows first shown are where they were.
  await scroller.evaluate((el) => el.scrollTo(0, 0));
  await expect.poll(async () => (await drawnTitles(page)).slice(0, before.length)).toEqual(before);
  await expect(grid).toHaveAttribute('aria-rowcount', String(QUESTIONS + PARKED + 1));

  // The keyboard reaches the end and comes back: End, PageUp, Home.
  await grid.focus();
  await page.keyboard.press('End');
  const active = () =>
    grid.evaluate(
      (el) =>
        document.getElementById(el.getAttribute('aria-activedescendant') ?? '')?.querySelector('.c-title')
          ?.textContent,
    );
  await expect.poll(active).toBe('parked 0');
  await page.keyboard.press('PageUp');
  await expect.poll(active).toBe('parked 15');
  await page.keyboard.press('Home');
  await expect.poll(active).toBe('question 000');
  await expect(grid).toBeFocused();
});

test('#/run/<id> opens the run as the desktop link does; a hash naming no view says so', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served, `#/run/${firstQuestion}`);
  await expect(page.getByRole('heading', { level: 2, name: 'question 000' })).toBeVisible();
  await expect(
    page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All/ }),
  ).toHaveAttribute('aria-current', 'page');
  await page.evaluate(() => (window.location.hash = '#/nope'));
  await expect(page.getByText('There is no view “nope”: showing Needs you.')).toBeVisible();
});
