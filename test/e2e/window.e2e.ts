/**
 * The window a person triages in, on the demo store in Chromium: every dialog traps focus, closes on Escape and
 * gives focus back; the layout fits at 900, 1280 and 1920 px (screenshots in artifacts/screenshots/); a retry is
 * confirmed and both runs link to each other; axe-core finds nothing serious on any view or dialog, light or dark.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { seriousViolations } from './axe-scan';
import {
  cliJson,
  createWorkspace,
  openUi,
  runCli,
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
  // A run whose title and error are single unbroken words far wider than any pane.
  const long = runCli(ws, [
    'exec',
    '--title',
    `Unbroken-${'x'.repeat(240)}`,
    '--',
    'sh',
    '-c',
    `echo ${'y'.repeat(300)} >&2; exit 3`,
  ]);
  await long.exited;
  // A folder and a title with a right-to-left override: shown reversed unless the window marks it.
  const hidden = join(ws.dir, 'invoice-\u202eFDP.exe');
  mkdirSync(hidden);
  const rlo = runCli(
    ws,
    ['exec', '--title', 'Report \u202etxt.exe', '--', 'sh', '-c', 'echo bad >&2; exit 1'],
    { cwd: hidden },
  );
  await rlo.exited;
  served = await startServe(ws);
});

test.afterAll(async () => {
  await served.stop();
  ws.cleanup();
});

/** The served page without the token (the cookie from the first visit logs later visits in). */
function base(): string {
  return served.url.replace(/\/\?(code|token)=.*/, '/');
}

async function go(page: Page, hash: string): Promise<void> {
  await page.goto(`${base()}${hash}`);
  await expect(page.getByRole('grid', { name: 'Runs' })).toHaveAttribute('aria-busy', 'false');
}

/** The first run the store lists with exactly this display status (`runwarden ls --status` lists a view). */
async function firstRun(status: string): Promise<{ id: string; title: string }> {
  const page = await cliJson<{
    items: Array<{ run: { id: string; title: string }; display: { status: string } }>;
  }>(ws, ['ls', '--status', status, '--limit', '200']);
  const run = page.items.find((item) => item.display.status === status)?.run;
  if (run === undefined) throw new Error(`the demo has no ${status} run`);
  return run;
}

/**
 * A finished run that offers Retry: none of its retries is still queued or running (the window holds Retry
 * back then, docs/WINDOW.md#commands-and-retry). The retry test below queues a retry of one.
 */
async function retryableRun(): Promise<{ id: string; title: string }> {
  for (const status of ['failed', 'timed_out', 'cancelled']) {
    const page = await cliJson<{
      items: Array<{ run: { id: string; title: string }; display: { status: string } }>;
    }>(ws, ['ls', '--status', status, '--limit', '200']);
    for (const item of page.items.filter((i) => i.display.status === status)) {
      const detail = await cliJson<{ retries: Array<{ status: string }> }>(ws, ['show', item.run.id]);
      if (detail.retries.every((r) => ['completed', 'failed', 'timed_out', 'cancelled'].includes(r.status))) {
        return item.run;
      }
    }
  }
  throw new Error('the demo has no finished run without an open retry');
}

/** What has focus, as a short description (for messages), and whether it sits inside `container`. */
async function focusIn(container: Locator): Promise<{ inside: boolean; onBody: boolean; what: string }> {
  return container.evaluate((box) => {
    const el = document.activeElement;
    return {
      inside: el !== null && box.contains(el),
      onBody: el === document.body || el === null,
      what:
        el === null
          ? 'nothing'
          : `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`,
    };
  });
}

/**
 * Tabs forwards 25 times, then backwards 25 times, through a dialog: after every press focus is on a control
 * inside it — never on the page behind, never on the body or the browser's own UI (docs/WINDOW.md#dialogs).
 */
async function expectTrapped(page: Page, dialog: Locator): Promise<void> {
  for (const key of [...Array<string>(25).fill('Tab'), ...Array<string>(25).fill('Shift+Tab')]) {
    await page.keyboard.press(key);
    const focus = await focusIn(dialog);
    expect(focus.inside, `after ${key} focus left the dialog for ${focus.what}`).toBe(true);
    expect(focus.onBody).toBe(false);
  }
}

/** Focuses a control with the keyboard (Tab presses from the top of the page), as a keyboard user would. */
async function tabTo(page: Page, target: Locator, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error('Tab never reached the control');
}

test.describe('dialogs: focus moves in, stays in, Escape closes, focus comes back', () => {
  test.beforeEach(async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openUi(page, served);
  });

  for (const [button, name] of [
    ['Keyboard shortcuts', 'Keyboard shortcuts'],
    [/^Notifications/, 'Notifications'],
  ] as const) {
    test(`${name}`, async ({ page }) => {
      await go(page, '#/needs-you');
      const opener = page.getByRole('button', { name: button });
      await tabTo(page, opener);
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name });
      await expect(dialog).toBeVisible();
      expect((await focusIn(dialog)).inside).toBe(true);
      await expectTrapped(page, dialog);
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
      await expect(opener).toBeFocused();
    });
  }

  test('Command palette: Ctrl+K opens it, Tab wraps inside, Escape gives focus back to the list', async ({
    page,
  }) => {
    await go(page, '#/needs-you');
    const grid = page.getByRole('grid', { name: 'Runs' });
    await grid.focus();
    await page.keyboard.press('j');
    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog', { name: 'Commands' });
    await expect(dialog).toBeVisible();
    expect((await focusIn(dialog)).inside).toBe(true);
    await expectTrapped(page, dialog);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
  });

  test('quick answer: opened with a, Tab wraps inside, Escape answers nothing', async ({ page }) => {
    const run = await firstRun('needs-answer');
    await go(page, `#/needs-you?run=${run.id}`);
    const grid = page.getByRole('grid', { name: 'Runs' });
    await grid.focus();
    await page.keyboard.press('a');
    const dialog = page.getByRole('dialog', { name: /^Answer: / });
    await expect(dialog).toBeVisible();
    expect((await focusIn(dialog)).inside).toBe(true);
    await expectTrapped(page, dialog);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    const shown = await cliJson<{ snapshot: { run: { status: string } } }>(ws, ['show', run.id]);
    expect(shown.snapshot.run.status).toBe('waiting');
  });

  test('Settings: a bad number is refused in place, a save is shown, focus and Escape still work after it', async ({
    page,
  }) => {
    await go(page, '#/needs-you');
    const opener = page.getByRole('button', { name: 'Settings' });
    await tabTo(page, opener);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expect(dialog).toBeVisible();
    // Browser mode: no tray, no login item, no desktop notifications to pause.
    await expect(dialog.getByText('Launch at login')).toHaveCount(0);
    await expect(dialog.getByText(/Pause desktop notifications/)).toHaveCount(0);
    const every = dialog.getByRole('textbox', { name: 'Check every' });
    await expect(every).toHaveValue('2');
    await every.fill('0x10');
    await dialog.getByRole('button', { name: 'Save settings' }).click();
    await expect(dialog.getByText('Check every: type a number, like 0.25.')).toBeVisible();
    await expect(every).toBeFocused();
    await expect(page.getByRole('status', { name: 'Results' })).not.toContainText('Settings saved.');

    await every.fill('3');
    const save = dialog.getByRole('button', { name: 'Save settings' });
    await save.focus();
    await page.keyboard.press('Enter');
    // The dialog's own line (the toasts, above the dialog, are a status region inside it too).
    await expect(dialog.getByRole('status').filter({ hasText: /Saved at/ })).toBeVisible();
    await expect(page.getByRole('status', { name: 'Results' })).toContainText('Settings saved.');
    expect((await focusIn(dialog)).inside, 'focus stays in Settings after saving').toBe(true);
    await expectTrapped(page, dialog);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(opener).toBeFocused();
    // Saved in milliseconds, shown in seconds.
    await page.keyboard.press('Enter');
    await expect(
      page.getByRole('dialog', { name: 'Settings' }).getByRole('textbox', { name: 'Check every' }),
    ).toHaveValue('3');
    await page
      .getByRole('dialog', { name: 'Settings' })
      .getByRole('textbox', { name: 'Check every' })
      .fill('2');
    await page
      .getByRole('dialog', { name: 'Settings' })
      .getByRole('button', { name: 'Save settings' })
      .click();
    await expect(
      page
        .getByRole('dialog', { name: 'Settings' })
        .getByRole('status')
        .filter({ hasText: /Saved at/ }),
    ).toBeVisible();
  });

  test('cancel confirmation: starts inside, nothing behind it is reachable, Escape keeps the run', async ({
    page,
  }) => {
    const stale = await firstRun('stale');
    await go(page, `#/stale?run=${stale.id}`);
    const cancel = page
      .getByRole('toolbar', { name: 'Run actions' })
      .getByRole('button', { name: 'Cancel run…' });
    await cancel.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /^Cancel run: / });
    await expect(dialog).toBeVisible();
    expect((await focusIn(dialog)).inside, 'focus starts in the dialog').toBe(true);
    let downloads = 0;
    page.on('download', () => (downloads += 1));
    await expectTrapped(page, dialog);
    // The page behind is inert: its Download JSON cannot even be focused by script, let alone by Tab.
    const behind = await page.getByRole('button', { name: 'Download JSON' }).evaluate((el) => {
      (el as HTMLElement).focus();
      return document.activeElement === el;
    });
    expect(behind, 'a control behind the modal took focus').toBe(false);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(cancel).toBeFocused();
    expect(downloads).toBe(0);
    const shown = await cliJson<{ snapshot: { run: { status: string } } }>(ws, ['show', stale.id]);
    expect(shown.snapshot.run.status).not.toBe('cancelled');
  });

  test('bulk dialog: opened from the keyboard, Escape closes it and focus returns to its button', async ({
    page,
  }) => {
    await go(page, '#/all');
    await page.getByRole('grid', { name: 'Runs' }).focus();
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
    await expect(bar).toContainText('2 selected');
    const open = bar.getByRole('button', { name: 'Retry…' });
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: /^Retry/ });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('list', { name: 'Dry run results' })).toBeVisible();
    await expectTrapped(page, dialog);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(open).toBeFocused();
  });
});

const WIDTHS = [900, 1280, 1920] as const;

test.describe('layout', () => {
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of WIDTHS) {
      test(`${width} px, ${scheme}: the open run, its close button, the current tab and the titles fit`, async ({
        page,
      }) => {
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height: 800 });
        await openUi(page, served);
        const run = await firstRun('needs-answer');
        await go(page, `#/all?run=${run.id}`);
        const detail = page.getByRole('complementary', { name: 'Run details' });
        // Measured once the run has loaded (its reason line shows), and polled: a busy machine lays out late.
        await expect(detail.getByTestId('run-reason')).toBeVisible();
        const close = detail.getByRole('button', { name: 'Close run details' });
        await expect
          .poll(
            async () => {
              const box = await close.boundingBox();
              return box === null ? Number.POSITIVE_INFINITY : box.x + box.width;
            },
            { message: 'the close button is inside the window' },
          )
          .toBeLessThanOrEqual(width);
        await expect
          .poll(() => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), {
            message: 'nothing runs off the side',
          })
          .toBeLessThanOrEqual(0);
        const all = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^All/ });
        await expect(all).toHaveAttribute('aria-current', 'page');
        await expect(all).toBeInViewport({ ratio: 1 });
        // The detail pane never scrolls sideways: long words wrap.
        await expect
          .poll(
            () =>
              detail.evaluate((el) => {
                const pane = el.querySelector('section.detail') ?? el;
                return pane.scrollWidth - pane.clientWidth;
              }),
            { message: 'the detail pane does not scroll sideways' },
          )
          .toBeLessThanOrEqual(0);
        // A title and an error that are one long word wrap instead of widening the pane.
        const long = await cliJson<{ items: Array<{ run: { id: string } }> }>(ws, [
          'ls',
          '--search',
          'Unbroken-',
        ]);
        await go(page, `#/all?run=${long.items[0]!.run.id}`);
        await expect(detail.getByRole('heading', { level: 2, name: /^Unbroken-x+$/ })).toBeVisible();
        await expect
          .poll(
            () =>
              detail.evaluate((el) => {
                const pane = el.querySelector('section.detail') ?? el;
                return pane.scrollWidth - pane.clientWidth;
              }),
            { message: 'a long word does not widen the detail pane' },
          )
          .toBeLessThanOrEqual(0);
        await go(page, `#/all?run=${run.id}`);
        await expect(detail.getByTestId('run-reason')).toBeVisible();
        // The title column is still there at every width (minor columns go first).
        const grid = page.getByRole('grid', { name: 'Runs' });
        const title = grid.getByRole('columnheader', { name: 'Title' });
        if (width >= 1100) await expect(title).toBeInViewport();
        await screenshot(page, `layout-${width}-${scheme}`);
        await page.keyboard.press('Escape');
        await expect(detail).toHaveCount(0);
        await expect(title).toBeInViewport();
        await expect(grid.getByRole('columnheader', { name: 'Status' })).toBeInViewport();
        await screenshot(page, `layout-${width}-${scheme}-list`);
      });
    }
  }

  for (const width of WIDTHS) {
    test(`${width} px, Needs you with a run open: the title and the reason stay readable beside the detail`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 800 });
      await openUi(page, served);
      const run = await firstRun('needs-answer');
      await go(page, `#/needs-you?run=${run.id}`);
      const detail = page.getByRole('complementary', { name: 'Run details' });
      await expect(detail.getByTestId('run-reason')).toBeVisible();
      const grid = page.getByRole('grid', { name: 'Runs' });
      const row = grid.getByRole('row').filter({ hasText: run.title }).first();
      await expect(row).toBeVisible();
      // Rendered widths, not a screenshot: each column wide enough for its words, in view, not covered.
      const widths = await row.evaluate((el) => {
        const w = (sel: string) => el.querySelector<HTMLElement>(sel)?.getBoundingClientRect().width ?? 0;
        return { title: w('.c-title'), why: w('.c-why') };
      });
      expect(widths.title, 'the Title column').toBeGreaterThanOrEqual(160);
      expect(widths.why, 'the Why / next step column').toBeGreaterThanOrEqual(200);
      if (width >= 1100) {
        await expect(grid.getByRole('columnheader', { name: 'Title' })).toBeInViewport({ ratio: 1 });
        await expect(grid.getByRole('columnheader', { name: 'Why / next step' })).toBeInViewport({
          ratio: 1,
        });
      }
      // The question card's status reads on one line ("pending", not "pen / ding").
      const status = detail.getByTestId('interaction-status').first();
      await expect(status).toBeVisible();
      const lines = await status.evaluate((el) => {
        const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 16;
        return Math.round(el.getBoundingClientRect().height / lineHeight);
      });
      expect(lines, 'the question status wraps').toBeLessThanOrEqual(1);
      await screenshot(page, `needs-you-open-${width}`);
    });
  }

  test('the sidebar folds away and comes back from the keyboard', async ({ page }) => {
    await page.setViewportSize({ width: 900, height: 700 });
    await openUi(page, served);
    await go(page, '#/needs-you');
    const toggle = page.getByRole('button', { name: 'Projects' });
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await expect(page.getByRole('navigation', { name: 'Projects' })).toBeVisible();
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(page.getByRole('navigation', { name: 'Projects' })).toHaveCount(0);
    await screenshot(page, 'layout-900-sidebar-folded');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('navigation', { name: 'Projects' })).toBeVisible();
  });
});

test('hidden characters: a right-to-left override in a folder name and a title shows as a visible marker', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served);
  const found = await cliJson<{ items: Array<{ run: { id: string } }> }>(ws, ['ls', '--search', 'Report']);
  const runId = found.items[0]?.run.id;
  if (runId === undefined) throw new Error('the run with a hidden character is missing');
  await go(page, `#/all?run=${runId}`);
  const detail = page.getByRole('complementary', { name: 'Run details' });
  await expect(detail.getByRole('heading', { level: 2 })).toHaveText('Report <U+202E>txt.exe');
  await expect(detail.getByText('invoice-<U+202E>FDP.exe').first()).toBeVisible();
  const row = page.getByRole('grid', { name: 'Runs' }).getByRole('row').filter({ hasText: 'Report' });
  await expect(row).toContainText('Report <U+202E>txt.exe');
  await expect(row).toContainText('invoice-<U+202E>FDP.exe');
  // Nowhere on the page is the override itself left to reorder the text.
  const raw = await page.evaluate(() => {
    const text = document.body.innerText;
    const at = text.indexOf('\u202e');
    return at === -1 ? '' : text.slice(Math.max(0, at - 60), at + 20);
  });
  expect(raw, 'a raw U+202E is on the page').toBe('');
  await screenshot(page, 'hidden-characters-1280');
});

test('retry: confirmed with what runs again, then both runs link to each other', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served);
  const failed = await retryableRun();
  await go(page, `#/all?run=${failed.id}`);
  const retry = page.getByRole('toolbar', { name: 'Run actions' }).getByRole('button', { name: 'Retry…' });
  await retry.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: /^Retry: / });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Consequences' })).toContainText('A new run of workflow');
  await expect(dialog.getByRole('list', { name: 'Consequences' })).toContainText('This run stays as it is.');
  await screenshot(page, 'retry-confirm');
  await dialog.getByRole('button', { name: 'Retry' }).click();
  await expect(dialog).toHaveCount(0);

  const detail = page.getByRole('complementary', { name: 'Run details' });
  await expect(detail.getByText('Retry of', { exact: true })).toBeVisible();
  await expect(page).not.toHaveURL(new RegExp(`run=${failed.id}`));
  const newId = /run=([A-Za-z0-9_-]+)/.exec(page.url())?.[1] ?? '';
  expect(newId).not.toBe('');
  const shown = await cliJson<{ snapshot: { run: { parentRunId: string | null; lineage: string | null } } }>(
    ws,
    ['show', newId],
  );
  expect(shown.snapshot.run).toMatchObject({ parentRunId: failed.id, lineage: 'retry' });
  await expect(detail.getByRole('list', { name: 'Timeline' })).toContainText('Run created');

  // From the new run back to the one it retries, and from there forward again (detail and timeline).
  await detail.getByRole('button', { name: failed.id, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`run=${failed.id}`));
  await expect(detail.getByText('Retried as', { exact: true })).toBeVisible();
  const timeline = detail.getByRole('list', { name: 'Timeline' });
  await expect(timeline.getByText('Retried as a new run')).toBeVisible();
  await timeline.getByRole('button', { name: `Open the retry ${newId}` }).click();
  await expect(page).toHaveURL(new RegExp(`run=${newId}`));
  await detail
    .getByRole('list', { name: 'Timeline' })
    .getByRole('button', { name: `Open the run it retries, ${failed.id}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`run=${failed.id}`));

  // A second retry while the first is queued would run the same work twice: not offered, and the retry
  // is named with its status (the store refuses it too: person-commands.test.ts).
  await expect(detail.getByText(`(queued)`, { exact: true })).toBeVisible();
  await expect(retry).toHaveCount(0);
});

test('search: part of a run id finds it, and the tab counts follow the search', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openUi(page, served);
  const stale = await firstRun('stale');
  await go(page, '#/all');
  const tabs = page.getByRole('navigation', { name: 'Views' });
  const allBefore = Number(
    /\d+/.exec((await tabs.getByRole('link', { name: /^All/ }).textContent()) ?? '')?.[0],
  );
  expect(allBefore).toBeGreaterThan(10);
  await page.keyboard.press('/');
  // The id without its run_ prefix, as a person copies it from a log line: that run alone.
  await page.keyboard.type(stale.id.slice(4));
  const grid = page.getByRole('grid', { name: 'Runs' });
  await expect(grid.getByRole('row').filter({ hasText: stale.title })).toBeVisible();
  await expect(tabs).toHaveAttribute('data-counts', 'search');
  await expect(tabs.getByRole('link', { name: /^All/ })).toHaveText(/All\s*1$/);
  await expect(tabs.getByRole('link', { name: /^Stale/ })).toHaveText(/Stale\s*1$/);
  await expect(tabs.getByRole('link', { name: /^Failed/ })).toHaveText(/Failed\s*0$/);
  // Only its start: every run whose id begins so, as the CLI finds them too.
  const start = stale.id.slice(0, 16);
  const sameStart = await cliJson<{ items: unknown[] }>(ws, ['ls', '--search', start, '--limit', '200']);
  expect(sameStart.items.length).toBeGreaterThanOrEqual(1);
  await page.keyboard.press('Control+a');
  await page.keyboard.type(start);
  await expect(grid.getByRole('row').filter({ hasText: stale.title })).toBeVisible();
  await expect(tabs.getByRole('link', { name: /^All/ })).toHaveText(
    new RegExp(`All\\s*${sameStart.items.length}$`),
  );
  await page.keyboard.press('Control+a');
  await page.keyboard.type('billing');
  const billing = await cliJson<{ items: unknown[] }>(ws, ['ls', '--search', 'billing', '--limit', '200']);
  await expect(tabs.getByRole('link', { name: /^All/ })).toHaveText(
    new RegExp(`All\\s*${billing.items.length}$`),
  );
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Backspace');
  await expect(tabs).toHaveAttribute('data-counts', 'all');
  await expect(tabs.getByRole('link', { name: /^All/ })).toHaveText(new RegExp(`All\\s*${allBefore}$`));
});

const VIEWS = ['needs-you', 'running', 'queued', 'parked', 'stale', 'failed', 'all'] as const;

test.describe('axe-core: no serious or critical violation', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`every view, run detail and dialog, ${scheme}`, async ({ page }) => {
      test.setTimeout(180_000);
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: 1280, height: 800 });
      await openUi(page, served);
      const found: Record<string, unknown> = {};
      const scan = async (name: string) => {
        const violations = await seriousViolations(page);
        if (violations.length > 0) found[name] = violations;
      };
      for (const view of VIEWS) {
        await go(page, `#/${view}`);
        await scan(`view ${view}`);
      }
      const question = await firstRun('needs-answer');
      await go(page, `#/needs-you?run=${question.id}`);
      await expect(
        page.getByRole('complementary', { name: 'Run details' }).getByRole('heading', { level: 2 }),
      ).toBeVisible();
      await scan('run detail (question)');
      const ambiguous = await firstRun('ambiguous');
      await go(page, `#/parked?run=${ambiguous.id}`);
      await expect(page.getByRole('region', { name: 'Effects' })).toBeVisible();
      await scan('run detail (ambiguous effect)');

      const dialogs: Array<[string, () => Promise<void>]> = [
        ['notifications', () => page.getByRole('button', { name: /^Notifications/ }).click()],
        ['settings', () => page.getByRole('button', { name: 'Settings' }).click()],
        ['shortcuts', () => page.getByRole('button', { name: 'Keyboard shortcuts' }).click()],
      ];
      for (const [name, open] of dialogs) {
        await open();
        await expect(page.getByRole('dialog')).toBeVisible();
        await page.getByRole('dialog').getByRole('heading', { level: 2 }).waitFor();
        await scan(`dialog ${name}`);
        await page.keyboard.press('Escape');
        await expect(page.getByRole('dialog')).toHaveCount(0);
      }
      const stale = await firstRun('stale');
      await go(page, `#/stale?run=${stale.id}`);
      await page
        .getByRole('toolbar', { name: 'Run actions' })
        .getByRole('button', { name: 'Cancel run…' })
        .click();
      await expect(page.getByRole('dialog').getByRole('list', { name: 'Consequences' })).toBeVisible();
      await scan('dialog cancel');
      await page.keyboard.press('Escape');
      const finished = await retryableRun();
      await go(page, `#/all?run=${finished.id}`);
      await page
        .getByRole('toolbar', { name: 'Run actions' })
        .getByRole('button', { name: 'Retry…' })
        .click();
      await expect(page.getByRole('dialog', { name: /^Retry/ })).toBeVisible();
      await scan('dialog retry');
      await page.keyboard.press('Escape');
      await go(page, '#/needs-you?q=Deploy%20billing');
      await page.getByRole('grid', { name: 'Runs' }).focus();
      await page.keyboard.press('a');
      await expect(page.getByRole('dialog', { name: /^Answer: / })).toBeVisible();
      await scan('dialog quick answer');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+k');
      await expect(page.getByRole('dialog', { name: 'Commands' })).toBeVisible();
      await scan('dialog command palette');
      await page.keyboard.press('Escape');
      await go(page, '#/stale');
      await page.getByRole('checkbox', { name: /^Select all/ }).check();
      await page
        .getByRole('toolbar', { name: 'Bulk actions' })
        .getByRole('button', { name: 'Cancel…' })
        .click();
      await expect(page.getByRole('dialog').getByRole('list', { name: 'Dry run results' })).toBeVisible();
      await scan('dialog bulk cancel');
      await page.keyboard.press('Escape');
      expect(found).toEqual({});
    });
  }
});
