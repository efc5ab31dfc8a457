/**
 * The run list's Age cell gets its full date when the pointer reaches it, not for every row drawn while
 * scrolling (docs/PERFORMANCE.md#the-window).
 */
import { expect, test } from '@playwright/test';
import { cliJson, createWorkspace, openUi, startServe } from './harness';

test('the Age cell shows its full date on hover; rows not hovered carry none', async ({ page }) => {
  const ws = createWorkspace();
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
  const served = await startServe(ws);
  try {
    await openUi(page, served, '#/all');
    const cells = page.locator('[id^="run-row-"] .c-age');
    await expect(cells.first()).toBeVisible();
    expect(await cells.count()).toBeGreaterThan(1);
    const first = cells.first();
    expect(await first.getAttribute('title')).toBeNull();
    await first.hover();
    await expect(first).toHaveAttribute('title', /\d{4}/);
    // The moment the age counts from (the run's creation, or its open question's), in this browser's format.
    const created = Number(await first.getAttribute('data-age-at'));
    const label = await first.getAttribute('data-age-label');
    expect(['Created', 'Asked']).toContain(label);
    const expected = await page.evaluate(
      (at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(at),
      created,
    );
    await expect(first).toHaveAttribute('title', `${label} ${expected}`);
    expect(await cells.nth(1).getAttribute('title')).toBeNull();
  } finally {
    await served.stop();
    ws.cleanup();
  }
});
