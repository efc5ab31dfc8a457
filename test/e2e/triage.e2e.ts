/**
 * Triage where the question is, keyboard first: a real runner blocked in `runwarden ask` is answered from its list
 * row and from the notifications panel; the command palette acts on the selected run; a keyboard-only person
 * answers, resolves, cancels a stale run and retries it in the demo without a trap or a lost focus; focus is
 * always visible.
 */
import { expect, test, type Page } from '@playwright/test';
import {
  cliJson,
  createWorkspace,
  openUi,
  runCli,
  runIdOf,
  screenshot,
  startServe,
  type Cli,
  type Served,
  type Workspace,
} from './harness';

let ws: Workspace;
let served: Served;
const children: Cli[] = [];

test.beforeEach(async () => {
  ws = createWorkspace();
  served = await startServe(ws);
});

test.afterEach(async () => {
  for (const cli of children.splice(0)) cli.killTree('SIGKILL');
  await served.stop();
  ws.cleanup();
});

interface ShowJson {
  snapshot: {
    run: { id: string; status: string; parentRunId: string | null };
    interactions: Array<{ status: string; response: unknown }>;
    effects: Array<{ status: string; resolution: string | null }>;
  };
  submissions: Array<{ outcome: string }>;
}

const show = (runId: string) => cliJson<ShowJson>(ws, ['show', runId]);

/** Starts `runwarden exec` around a blocked `ask` and returns its run id once printed. */
async function asking(title: string, askArgs: string): Promise<{ cli: Cli; runId: string }> {
  const cli = runCli(ws, ['exec', '--title', title, '--', 'sh', '-c', `runwarden ask ${askArgs}`]);
  children.push(cli);
  return { cli, runId: await runIdOf(cli) };
}

async function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (el === null || el === document.body) return 'body';
    return `${el.tagName.toLowerCase()}:${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}`;
  });
}

async function tabUntil(page: Page, text: string | RegExp, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    if (typeof text === 'string' ? now.endsWith(`:${text}`) : text.test(now)) return;
  }
  throw new Error(`Tab never reached ${String(text)} (last: ${await focused(page)})`);
}

test('a question is answered from its list row, with the deadline and default shown; the ask gets it', async ({
  page,
}) => {
  const { cli, runId } = await asking(
    'Roll out v3',
    '--title "Roll out now?" --prompt "Canary is **green**." --choice now --choice later --default later --timeout 1h',
  );
  await openUi(page, served);
  const grid = page.getByRole('grid', { name: 'Runs' });
  const row = grid.getByRole('row').filter({ hasText: 'Roll out v3' });
  await expect(row).toBeVisible({ timeout: 6_000 });
  await grid.focus();
  await page.keyboard.press('a');
  const dialog = page.getByRole('dialog', { name: 'Answer: Roll out now?' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('timer')).toContainText(/59m|1h/);
  await expect(dialog.getByText(/if nobody\s+answers by the deadline/)).toBeVisible();
  await expect(dialog.locator('strong')).toHaveText('green');
  await expect(dialog.getByRole('button', { name: /^later\s*\(default\)$/ })).toBeVisible();
  await screenshot(page, 'quick-answer-list');
  // Enter right after `a` picks nothing: the heading has focus, the question stays open, the ask waits.
  await expect(dialog.getByRole('heading', { level: 2 })).toBeFocused();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Space');
  await expect(dialog).toBeVisible();
  expect((await show(runId)).snapshot.interactions[0]?.status).not.toBe('settled');
  await dialog.getByRole('button', { name: 'now', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('status', { name: 'Results' })).toContainText('Answered “Roll out now?”: now.');
  expect(await cli.exited).toBe(0);
  expect(cli.output().stdout.trim()).toBe('now');
  const detail = await show(runId);
  expect(detail.snapshot.interactions[0]).toMatchObject({ status: 'settled', response: 'now' });
  expect(detail.submissions.filter((s) => s.outcome === 'accepted')).toHaveLength(1);
  expect(page.url()).not.toContain('run=');
});

test('a question is answered from the notifications panel, stacked over it', async ({ page }) => {
  const { cli, runId } = await asking('Rotate keys', '--title "Rotate the keys?" --choice yes --choice no');
  await openUi(page, served);
  const button = page.getByRole('button', { name: /^Notifications, [1-9]\d* unread$/ });
  await expect(button).toBeVisible({ timeout: 8_000 });
  await button.click();
  const panel = page.getByRole('dialog', { name: 'Notifications' });
  const note = panel.getByRole('listitem').filter({ hasText: 'Rotate the keys?' });
  await note.getByRole('button', { name: 'Answer…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Answer: Rotate the keys?' });
  await expect(dialog).toBeVisible();
  await screenshot(page, 'quick-answer-notifications');
  await dialog.getByRole('button', { name: 'yes', exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(panel).toBeVisible();
  expect(await cli.exited).toBe(0);
  expect(cli.output().stdout.trim()).toBe('yes');
  expect((await show(runId)).snapshot.interactions[0]).toMatchObject({ status: 'settled', response: 'yes' });
});

test('the command palette lists the selected run’s actions with their keys and runs one', async ({
  page,
}) => {
  await asking('Long job', '--title "Continue?" --choice yes --choice no');
  await openUi(page, served);
  const grid = page.getByRole('grid', { name: 'Runs' });
  await expect(grid.getByRole('row').filter({ hasText: 'Long job' })).toBeVisible({ timeout: 6_000 });
  await grid.focus();
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Commands' });
  await expect(palette).toBeVisible();
  await expect(palette.getByRole('combobox', { name: 'Type a command' })).toBeFocused();
  const options = palette.getByRole('option');
  await expect(options.first()).toContainText('Open the run — Long job');
  await expect(options.filter({ hasText: 'Answer — Long job' })).toContainText('a');
  await screenshot(page, 'command-palette');
  await page.keyboard.type('request cancel');
  await expect(options).toHaveCount(1);
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: /^Request cancel: “Long job”\?/ });
  await expect(confirm).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  expect(await focused(page)).not.toBe('body');
});

test('keyboard only, on the demo: answer, resolve an effect, cancel a stale run, retry it; focus is never lost', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
  await page.setViewportSize({ width: 900, height: 800 });
  await openUi(page, served);
  const grid = page.getByRole('grid', { name: 'Runs' });
  await expect(grid).toHaveAttribute('aria-busy', 'false');
  const search = async (text: string) => {
    await page.keyboard.press('/');
    await page.keyboard.type(text);
    await expect(grid.getByRole('row').nth(1)).toContainText(text);
    await expect(grid).toHaveAttribute('aria-busy', 'false');
    await page.keyboard.press('Escape');
    await expect(grid).toBeFocused();
  };

  // 1. Answer the demo's choice question from its row.
  await search('Deploy billing');
  await page.keyboard.press('a');
  const quick = page.getByRole('dialog', { name: 'Answer: Deploy to production?' });
  await expect(quick).toBeVisible();
  // `a` then Enter answers nothing: focus starts on the question's heading, not on a choice.
  await expect(quick.getByRole('heading', { name: 'Answer: Deploy to production?' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(quick).toBeVisible();
  await tabUntil(page, 'yes', 10);
  await page.keyboard.press('Enter');
  await expect(quick).toHaveCount(0);
  expect(await focused(page)).not.toBe('body');

  // 2. Resolve the ambiguous effect.
  await search('Refund order');
  await page.keyboard.press('Enter');
  await tabUntil(page, 'Resolve effects');
  await page.keyboard.press('Enter');
  await page.keyboard.type('The provider shows no refund.');
  await tabUntil(page, 'It did not happen…');
  await page.keyboard.press('Enter');
  // Nothing is recorded before the confirmation, which names the effect and starts on "Go back".
  const confirm = page.getByRole('dialog', { name: 'Record that it did not happen?' });
  await expect(confirm).toContainText('Refund');
  await expect(confirm).toContainText('A retry runs it again');
  expect(await focused(page)).toMatch(/:Go back$/);
  await tabUntil(page, 'Record: it did not happen', 5);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('region', { name: 'Effects' })).toContainText('It did not happen (said by');
  await expect(page.getByTestId('effect-status').first()).toHaveText('did not happen');
  // The resolver went away with the focus on its button: focus is on the run again, not on the page.
  await expect.poll(() => focused(page), { message: 'focus after resolving' }).not.toBe('body');
  await page.keyboard.press('Escape');

  // 3. Cancel a stale run.
  await search('Snapshot production');
  await page.keyboard.press('Enter');
  const heading = page.getByRole('complementary', { name: 'Run details' }).getByRole('heading', { level: 2 });
  await expect(heading).toBeFocused();
  await tabUntil(page, 'Cancel run…');
  await page.keyboard.press('Enter');
  const cancel = page.getByRole('dialog', { name: /^Cancel run: / });
  await expect(cancel.getByRole('list', { name: 'Consequences' })).toBeVisible();
  await tabUntil(page, 'Cancel run');
  await page.keyboard.press('Enter');
  await expect(cancel).toHaveCount(0);
  await expect(page.getByTestId('run-reason')).toContainText('Cancelled');
  expect(await focused(page), 'focus after the cancel').not.toBe('body');

  // 4. Retry it.
  const cancelledId = /run=([A-Za-z0-9_-]+)/.exec(page.url())?.[1] ?? '';
  await heading.focus();
  await tabUntil(page, 'Retry…');
  await page.keyboard.press('Enter');
  const retry = page.getByRole('dialog', { name: /^Retry: / });
  await expect(retry).toBeVisible();
  await tabUntil(page, 'Retry');
  await page.keyboard.press('Enter');
  await expect(retry).toHaveCount(0);
  await expect(page).not.toHaveURL(new RegExp(`run=${cancelledId}`));
  await expect(heading).toBeFocused();
  await screenshot(page, 'keyboard-triage-900');

  const [answered, refund, stale] = await Promise.all([
    cliJson<{ items: Array<{ run: { id: string; title: string } }> }>(ws, [
      'ls',
      '--search',
      'Deploy billing',
    ]),
    cliJson<{ items: Array<{ run: { id: string; title: string } }> }>(ws, ['ls', '--search', 'Refund order']),
    show(cancelledId),
  ]);
  expect((await show(answered.items[0]!.run.id)).snapshot.interactions[0]).toMatchObject({
    status: 'settled',
    response: 'yes',
  });
  expect((await show(refund.items[0]!.run.id)).snapshot.effects[0]).toMatchObject({
    resolution: 'not_applied',
  });
  expect(stale.snapshot.run.status).toBe('cancelled');
});

test('focus is always visible: every stop of a Tab walk through the page draws an outline', async ({
  page,
}) => {
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
  await openUi(page, served);
  await expect(page.getByRole('grid', { name: 'Runs' })).toHaveAttribute('aria-busy', 'false');
  const invisible: string[] = [];
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    const seen = await page.evaluate(() => {
      const el = document.activeElement;
      if (el === null || el === document.body) return null;
      const style = getComputedStyle(el);
      const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
      // The grid shows its focus on the active row instead of around itself.
      const row = el.getAttribute('role') === 'grid' ? el.querySelector('.row.active') : null;
      const rowOutlined = row !== null && getComputedStyle(row).outlineStyle !== 'none';
      return {
        outlined: outlined || rowOutlined,
        what: `${el.tagName} ${el.textContent?.trim().slice(0, 30)}`,
      };
    });
    if (seen !== null && !seen.outlined) invisible.push(seen.what);
  }
  expect(invisible).toEqual([]);
});
