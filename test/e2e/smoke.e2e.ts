import { expect, test } from '@playwright/test';
import { createWorkspace, openUi, screenshot, startServe } from './harness';

test('serves the UI on a fresh store', async ({ page }) => {
  const ws = createWorkspace();
  const served = await startServe(ws);
  try {
    await openUi(page, served);
    await expect(page.locator('body')).not.toBeEmpty();
    await page.waitForTimeout(1000);
    await screenshot(page, 'empty');
  } finally {
    await served.stop();
    ws.cleanup();
  }
});
