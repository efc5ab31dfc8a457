/**
 * The first Tab stop of the window is "Skip to runs" (docs/WINDOW.md#keyboard): hidden until focused, then on
 * screen; Enter puts focus in the run list on its active row, so j/k work at once. Without it a keyboard person
 * at 900 px passes the top bar and every project link first.
 */
import { expect, test, type Page } from '@playwright/test';
import { cliJson, createWorkspace, openUi, startServe, type Served, type Workspace } from './harness';

let ws: Workspace;
let served: Served;

test.beforeEach(async () => {
  ws = createWorkspace();
  served = await startServe(ws);
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
});

test.afterEach(async () => {
  await served.stop();
  ws.cleanup();
});

/** What has focus: its role or tag and its name. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (el === null || el === document.body) return 'body';
    const role = el.getAttribute('role') ?? el.tagName.toLowerCase();
    return `${role}:${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}`;
  });
}

for (const width of [900, 1400]) {
  test(`at ${width} px, Tab then Enter lands in the run list on its active row`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await openUi(page, served, '#/all');
    const grid = page.getByRole('grid', { name: 'Runs' });
    await expect(grid).toHaveAttribute('aria-busy', 'false');
    await expect(page.locator('[id^="run-row-"]').first()).toBeVisible();
    const skip = page.getByRole('link', { name: 'Skip to runs' });
    // Out of sight before it has focus: a mouse user never sees it.
    const before = await skip.boundingBox();
    expect(before === null || before.y + before.height <= 0).toBe(true);

    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('a:Skip to runs');
    const box = await skip.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(800);
    const hash = await page.evaluate(() => location.hash);

    await page.keyboard.press('Enter');
    await expect(grid).toBeFocused();
    expect(await page.evaluate(() => location.hash)).toBe(hash);
    const active = await grid.getAttribute('aria-activedescendant');
    expect(active).toMatch(/^run-row-/);
    await expect(page.locator(`[id="${active}"]`)).toBeInViewport();

    // The list has the keyboard now: j moves the active row.
    await page.keyboard.press('j');
    await expect(grid).not.toHaveAttribute('aria-activedescendant', active!);
    await expect(grid).toBeFocused();
  });
}

test('Enter on the skip link after scrolling brings the active row back into view', async ({ page }) => {
  await page.setViewportSize({ width: 900, height: 500 });
  await openUi(page, served, '#/all');
  const grid = page.getByRole('grid', { name: 'Runs' });
  await expect(page.locator('[id^="run-row-"]').first()).toBeVisible();
  const active = await grid.getAttribute('aria-activedescendant');
  expect(active).toMatch(/^run-row-/);
  // Scroll the list away from the active (first) row with the wheel, focus elsewhere, then skip back.
  await page.locator('[id^="run-row-"]').first().hover();
  await page.mouse.wheel(0, 4000);
  await expect(page.locator(`[id="${active}"]`)).not.toBeInViewport();
  await page.getByRole('searchbox', { name: 'Search runs' }).focus();
  for (let i = 0; i < 5 && (await focused(page)) !== 'a:Skip to runs'; i++)
    await page.keyboard.press('Shift+Tab');
  expect(await focused(page)).toBe('a:Skip to runs');
  await page.keyboard.press('Enter');
  await expect(grid).toBeFocused();
  await expect(page.locator(`[id="${active}"]`)).toBeInViewport();
});
