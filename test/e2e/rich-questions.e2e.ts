/**
 * Rich questions in the window (docs/WINDOW.md#answering): a form of two choice fields — a multi-select with
 * descriptions-free options and the person's own words, and a single choice — answered with checkboxes, a
 * radio button and the Other box, and sent as one answer; a permission-style decision in the run detail
 * starts on no choice, so Enter answers nothing until one is picked.
 */
import { expect, test } from '@playwright/test';
import {
  cliJson,
  createWorkspace,
  openUi,
  runCli,
  runIdOf,
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
  snapshot: { interactions: Array<{ status: string; response: unknown }> };
}

const question = async (runId: string) =>
  (await cliJson<ShowJson>(ws, ['show', runId])).snapshot.interactions[0];

async function asking(askArgs: string[]): Promise<string> {
  const cli = runCli(ws, ['exec', '--title', 'Pick checks', '--', 'runwarden', 'ask', ...askArgs]);
  children.push(cli);
  return runIdOf(cli);
}

test('a multi-select with own words and a single choice are answered as one form', async ({ page }) => {
  const runId = await asking([
    '--title',
    'Which checks should run?',
    '--field',
    'checks:choices=Tests|Lint|Types|*',
    '--field',
    'runner:choice=Vitest|Jest',
  ]);
  await openUi(page, served, `#/run/${runId}`);
  const form = page.getByRole('form', { name: 'Answer: Which checks should run?' });
  await expect(form.getByRole('group', { name: /checks \(pick any\)/ })).toBeVisible();
  // Nothing picked: the form says so and sends nothing.
  await form.getByRole('button', { name: 'Send answer' }).click();
  await expect(form.getByText('checks: pick at least one.')).toBeVisible();
  expect((await question(runId))?.status).toBe('pending');

  await form.getByRole('checkbox', { name: 'Types' }).check();
  await form.getByRole('checkbox', { name: 'Tests' }).check();
  await form.getByRole('textbox', { name: 'checks: your own answer' }).fill('only the fast ones');
  await expect(form.getByRole('checkbox', { name: 'Other' })).toBeChecked();
  await form.getByRole('radio', { name: 'Jest' }).check();
  await form.getByRole('button', { name: 'Send answer' }).click();
  await expect
    .poll(async () => (await question(runId))?.response, { timeout: 15_000 })
    .toEqual({ checks: ['Tests', 'Types', 'only the fast ones'], runner: 'Jest' });
});

test('a permission question in the run starts on no choice: Enter answers nothing', async ({ page }) => {
  const runId = await asking([
    '--title',
    'Claude Code wants to run: git push --force',
    '--prompt',
    'Command:\n```\ngit push --force\n```',
    '--choice',
    'allow',
    '--choice',
    'deny',
  ]);
  await openUi(page, served, `#/run/${runId}`);
  const form = page.getByRole('form', { name: 'Answer: Claude Code wants to run: git push --force' });
  await expect(form).toBeVisible();
  // The command is shown as code, not as body text.
  await expect(page.locator('article code', { hasText: 'git push --force' }).first()).toBeVisible();
  for (const radio of await form.getByRole('radio').all()) await expect(radio).not.toBeChecked();
  await expect(form.getByRole('radio')).not.toHaveCount(0);
  const active = await page.evaluate(() => document.activeElement?.tagName.toLowerCase() ?? 'body');
  expect(['input', 'button']).not.toContain(active);
  await page.keyboard.press('Enter');
  // Into the form: Enter on the first choice, none picked, sends nothing and says so.
  await form.getByRole('radio', { name: 'allow' }).focus();
  await page.keyboard.press('Enter');
  await expect(form.getByText('Pick one.')).toBeVisible();
  await page.waitForTimeout(500);
  expect(await question(runId)).toMatchObject({ status: 'pending' });
});
