/**
 * `runwarden demo` then `runwarden serve`: every state shows in the browser, and every main view is kept
 * as a screenshot in light and dark (artifacts/screenshots/).
 */
import { expect, test } from '@playwright/test';
import {
  cliJson,
  createWorkspace,
  openUi,
  screenshot,
  startServe,
  type Served,
  type Workspace,
} from './harness';

let ws: Workspace;
let served: Served;

test.beforeAll(async () => {
  ws = createWorkspace();
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
  served = await startServe(ws);
});

test.afterAll(async () => {
  await served.stop();
  ws.cleanup();
});

const VIEWS = [
  ['needs-you', 'Needs you'],
  ['running', 'Running'],
  ['queued', 'Queued'],
  ['parked', 'Parked'],
  ['stale', 'Stale'],
  ['failed', 'Failed'],
  ['all', 'All'],
] as const;

/** What the demo promises a new user sees at once (its --help). */
const DEMO_STATES = [
  'Needs answer',
  'Running',
  'Waiting',
  'Stale',
  'Ambiguous',
  'Parked',
  'Paused',
  'Queued',
  'Failed',
  'Timed out',
  'Completed',
  'Cancelled',
];

test('the demo shows every state in the All view, each badge with an icon and a word', async ({ page }) => {
  await openUi(page, served, '#/all');
  const grid = page.getByRole('grid', { name: 'Runs' });
  for (const label of DEMO_STATES) {
    await expect(grid.getByText(new RegExp(`^\\W*${label}$`)).first(), label).toBeVisible();
  }
});

for (const scheme of ['light', 'dark'] as const) {
  test(`every main view, ${scheme}`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await openUi(page, served);
    for (const [id, name] of VIEWS) {
      await page.goto(`${served.url.replace(/\/\?code=.*/, '/')}#/${id}`);
      const tab = page
        .getByRole('navigation', { name: 'Views' })
        .getByRole('link', { name: new RegExp(`^${name}`) });
      await expect(tab).toHaveAttribute('aria-current', 'page');
      await expect(page.getByRole('grid', { name: 'Runs' }).getByRole('row').nth(1)).toBeVisible();
      await screenshot(page, `view-${id}-${scheme}`);
    }
    // A run that needs an answer, opened from the keyboard.
    await page.goto(`${served.url.replace(/\/\?code=.*/, '/')}#/needs-you`);
    const grid = page.getByRole('grid', { name: 'Runs' });
    await expect(grid).toHaveAttribute('aria-busy', 'false');
    await expect(grid.getByRole('row').nth(1)).toContainText('Needs answer');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('run-reason')).toContainText(/answer/i);
    await screenshot(page, `run-detail-${scheme}`);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: /^Notifications/ }).click();
    await expect(page.getByRole('dialog', { name: 'Notifications' })).toBeVisible();
    await screenshot(page, `notifications-${scheme}`);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
    await screenshot(page, `settings-${scheme}`);
    await page.keyboard.press('Escape');

    await page.keyboard.press('?');
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
    await screenshot(page, `shortcuts-${scheme}`);
  });
}
