/**
 * Settings' Updates section in browser mode (docs/DESKTOP-CHECKLIST.md#updates): `runwarden serve` has no
 * updater, so the section names the running version and says why updates are not available here, with
 * nothing to press; the channels behind the desktop's buttons refuse with a sentence.
 */
import { expect, test } from '@playwright/test';
import { seriousViolations } from './axe-scan';
import { createWorkspace, openUi, screenshot, startServe } from './harness';

test('Settings → Updates in a browser: the version, and why there are no updates here', async ({ page }) => {
  const ws = createWorkspace();
  const served = await startServe(ws);
  try {
    await openUi(page, served);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const section = dialog.getByTestId('updates-section');
    await expect(section.getByTestId('update-status')).toHaveText(
      /^Updates are not available in a browser: this page is served by runwarden serve/,
    );
    const version = (await section.getByTestId('update-version').textContent()) ?? '';
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    await expect(section.getByRole('button')).toHaveCount(0);
    await expect(section.getByRole('checkbox')).toHaveCount(0);
    expect(await seriousViolations(page)).toEqual([]);
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-updates-browser');

    // The desktop's channels, asked over serve's API as the page's client asks: refused with the sentence why.
    for (const channel of ['updates:check', 'updates:restart']) {
      const response = await fetch(`${served.origin}/api/invoke/${channel}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${served.token}` },
        body: '{}',
      });
      expect(await response.json()).toMatchObject({
        ok: false,
        error: {
          code: 'FORBIDDEN',
          message: "Updates are checked and installed from the desktop app's Settings, not from a browser.",
        },
      });
    }
  } finally {
    await served.stop();
    ws.cleanup();
  }
});
