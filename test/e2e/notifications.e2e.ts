/**
 * A question's notification lives exactly as long as the question (docs/WINDOW.md#notifications): a real
 * runner blocked in `runwarden ask` is answered from the CLI in another process, and the window's panel then
 * lists its notification as answered — not unread, nothing to act on — while the live region and Needs you
 * agree that nothing needs the person.
 */
import { expect, test } from '@playwright/test';
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
  snapshot: { interactions: Array<{ id: string; status: string }> };
}

test('a question answered from the CLI leaves the panel with no unread "Needs an answer"', async ({
  page,
}) => {
  const asking = runCli(ws, [
    'exec',
    '--title',
    'Rotate keys',
    '--',
    'sh',
    '-c',
    'runwarden ask --title "Rotate the keys?" --choice yes --choice no',
  ]);
  children.push(asking);
  const runId = await runIdOf(asking);
  await openUi(page, served);
  const bell = page.getByRole('button', { name: /^Notifications, 1 unread$/ });
  await expect(bell).toBeVisible({ timeout: 10_000 });
  const needsYou = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Needs you/ });
  await expect(needsYou.locator('.count')).toHaveText('1');

  let questionId = '';
  await expect(async () => {
    const shown = await cliJson<ShowJson>(ws, ['show', runId]);
    questionId = shown.snapshot.interactions[0]?.id ?? '';
    expect(questionId).not.toBe('');
  }).toPass({ timeout: 10_000 });
  const answer = runCli(ws, ['answer', questionId, 'yes']);
  expect(await answer.exited).toBe(0);
  expect(await asking.exited).toBe(0);
  expect(asking.output().stdout.trim()).toBe('yes');

  await expect(page.getByRole('button', { name: /^Notifications, 0 unread$/ })).toBeVisible({
    timeout: 10_000,
  });
  await page.getByRole('button', { name: /^Notifications/ }).click();
  const panel = page.getByRole('dialog', { name: 'Notifications' });
  await expect(panel.getByText('0 unread')).toBeVisible();
  const note = panel.getByRole('listitem').filter({ hasText: 'Needs an answer: Rotate the keys?' });
  await expect(note).toHaveCount(1);
  await expect(note.getByTestId('notification-resolution')).toHaveText(/^Answered\b/);
  await expect(note.getByRole('button', { name: 'Answer…' })).toHaveCount(0);
  await expect(note.getByRole('button', { name: 'Mark read' })).toHaveCount(0);
  await expect(note).not.toHaveClass(/\bunread\b/);
  await expect(panel.getByRole('listitem').and(page.locator('.unread'))).toHaveCount(0);
  await screenshot(page, 'notifications-resolved');
  await page.keyboard.press('Escape');
  // The live region never keeps "1 run needs you." once Needs you says 0.
  await expect(needsYou.locator('.count')).toHaveText('0');
  const live = page.locator('[role="status"][aria-live="polite"][aria-atomic="true"]');
  await expect(live).not.toHaveText(/[1-9]\d* runs? needs? you/);
});
