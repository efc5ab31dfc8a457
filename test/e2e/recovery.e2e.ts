/**
 * The person's main flows, end to end: real runner processes started with the CLI against a temp store,
 * `runwarden serve` on the same store, the real UI in Debian's Chromium, and the store checked afterwards.
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
  type Served,
  type Workspace,
} from './harness';

interface ShowJson {
  snapshot: {
    run: { id: string; status: string; title: string; revision: number };
    interactions: Array<{ id: string; status: string; response: unknown; provenance: string | null }>;
    effects: Array<{ id: number; status: string; resolution: string | null }>;
    queue: { status: string; errorCode: string | null };
  };
  submissions: Array<{ outcome: string; payload: unknown }>;
  events: Array<{ type: string; actorType: string; payload: unknown }>;
}

let ws: Workspace;
let served: Served;
const children: Array<{ killTree: (signal?: NodeJS.Signals) => void }> = [];

test.beforeEach(async () => {
  ws = createWorkspace();
  served = await startServe(ws);
});

test.afterEach(async () => {
  for (const cli of children.splice(0)) cli.killTree('SIGKILL');
  await served.stop();
  ws.cleanup();
});

/** Presses Tab until the focused element matches (at most 30 times), as a keyboard user would. */
async function tabUntil(page: Page, matches: (el: Element) => boolean): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    const focused = (await page.evaluateHandle(() => document.activeElement)).asElement();
    if (focused && (await focused.evaluate(matches))) return;
  }
  throw new Error('Tab never reached the element');
}

function rowFor(page: Page, title: string) {
  return page.getByRole('grid', { name: 'Runs' }).getByRole('row').filter({ hasText: title });
}

/** Waits until the store itself lists the run under needs-you (the runner has asked its question). */
async function waitUntilNeedsYou(runId: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const page = await cliJson<{ items: Array<{ run: { id: string } }> }>(ws, ['ls', '--needs-you']);
    if (page.items.some((item) => item.run.id === runId)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} never needed anyone`);
}

async function show(runId: string): Promise<ShowJson> {
  return cliJson<ShowJson>(ws, ['show', runId]);
}

test('a question appears under Needs you, the person answers, the blocked ask prints it and the run completes', async ({
  page,
}) => {
  await openUi(page, served);
  const exec = runCli(ws, [
    'exec',
    '--title',
    'Deploy api',
    '--workflow',
    'release',
    '--',
    'sh',
    '-c',
    'runwarden ask --title "Deploy to prod?" --prompt "Build 142 passed." --choice yes --choice no',
  ]);
  children.push(exec);
  const runId = await runIdOf(exec);

  // Needs you is the default view. How fast the push arrives is the bench's to judge, not this test's:
  // it only has to arrive.
  const row = rowFor(page, 'Deploy api');
  await expect(row).toBeVisible({ timeout: 30_000 });
  await screenshot(page, 'needs-you-light');
  await row.click();
  const form = page.getByRole('form', { name: 'Answer: Deploy to prod?' });
  await expect(form).toBeVisible();
  await expect(page.getByText('Build 142 passed.')).toBeVisible();
  await screenshot(page, 'run-detail-question-light');
  await form.getByRole('radio', { name: 'yes' }).check();
  await form.getByRole('button', { name: 'Send answer' }).click();

  expect(await exec.exited).toBe(0);
  expect(exec.output().stdout.trim()).toBe('yes');
  const detail = await show(runId);
  expect(detail.snapshot.run.status).toBe('completed');
  expect(detail.snapshot.interactions[0]).toMatchObject({ status: 'settled', response: 'yes' });
  expect(detail.submissions.filter((s) => s.outcome === 'accepted')).toHaveLength(1);
});

test('a killed runner turns stale; cancel is refused while its lease is live, then succeeds with the cascade shown', async ({
  page,
}) => {
  const exec = runCli(ws, ['exec', '--title', 'Nightly ETL', '--lease-ms', '60000', '--', 'sleep', '600']);
  children.push(exec);
  const runId = await runIdOf(exec);

  await openUi(page, served, '#/all');
  const row = rowFor(page, 'Nightly ETL');
  await expect(row).toBeVisible({ timeout: 4_500 });
  await row.click();
  const actions = page.getByRole('toolbar', { name: 'Run actions' });
  // Live: only a cooperative request is offered, and the store refuses a direct cancel.
  await expect(actions.getByRole('button', { name: /request cancel/i })).toBeVisible();
  await expect(actions.getByRole('button', { name: /^cancel run/i })).toHaveCount(0);
  const refused = runCli(ws, ['cancel', runId, '--reason', 'trying too early']);
  expect(await refused.exited).toBe(3);
  expect(refused.output().stderr).toMatch(/--request/);

  // The runner dies without releasing anything. The sweeper sees its process is gone.
  exec.child.kill('SIGKILL');
  await expect(page.getByTestId('run-reason')).toContainText(/stopped|lost|gone|expired/i, {
    timeout: 6_000,
  });
  await expect(actions.getByRole('button', { name: /^cancel run/i })).toBeVisible();
  await screenshot(page, 'stale-run-light');
  await actions.getByRole('button', { name: /^cancel run/i }).click();

  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Nightly ETL');
  await screenshot(page, 'cancel-confirmation-light');
  await dialog.getByRole('textbox').fill('Runner was killed by the OOM killer');
  await dialog.getByRole('button', { name: /^cancel run/i }).click();

  await expect(page.getByTestId('run-reason')).toContainText(/cancelled/i);
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await expect(timeline).toContainText(/cancel/i);
  await expect(timeline).toContainText('Runner was killed by the OOM killer');
  const detail = await show(runId);
  expect(detail.snapshot.run.status).toBe('cancelled');
  const cancelled = detail.events.find((e) => e.type === 'run.cancelled');
  expect(cancelled).toMatchObject({ actorType: 'human', payload: { stale: true } });
});

test('an ambiguous effect is resolved and the parked run resumed', async ({ page }) => {
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
  const list = await cliJson<{
    items: Array<{ run: { id: string; title: string }; display: { status: string } }>;
  }>(ws, ['ls', '--status', 'ambiguous']);
  const target = list.items[0];
  if (!target) throw new Error('the demo has no run with an ambiguous effect');

  await openUi(page, served, '#/all');
  await screenshot(page, 'all-runs-light');
  await rowFor(page, target.run.title).first().click();
  const effects = page.getByRole('region', { name: 'Effects' });
  await effects.getByRole('textbox').first().fill('The payment provider shows the charge went through.');
  await effects.getByRole('button', { name: 'It happened…' }).first().click();
  const confirm = page.getByRole('dialog', { name: 'Record that it happened?' });
  await expect(confirm).toContainText('will not run it again');
  await screenshot(page, 'resolve-confirm-light');
  await confirm.getByRole('button', { name: 'Record: it happened' }).click();
  // Resolved: still parked for the effect, and the reason says a person may resume it now.
  await expect(page.getByTestId('run-reason')).toContainText(/^Parked/);
  await expect(page.getByTestId('run-reason')).toContainText('Every side effect is resolved now');

  const actions = page.getByRole('toolbar', { name: 'Run actions' });
  await actions.getByRole('button', { name: /^resume/i }).click();
  const dialog = page.getByRole('dialog');
  if (await dialog.isVisible()) await dialog.getByRole('button', { name: /^resume/i }).click();
  await expect(page.getByTestId('run-reason')).toContainText(/queued/i);

  const detail = await show(target.run.id);
  expect(detail.snapshot.effects.filter((e) => e.status === 'ambiguous')).toHaveLength(0);
  expect(detail.snapshot.effects.some((e) => e.resolution === 'applied')).toBe(true);
  expect(detail.snapshot.queue.status).toBe('queued');
});

test('a second tab answering the same question gets "already answered", and nothing doubles', async ({
  page,
  context,
}) => {
  const exec = runCli(ws, [
    'exec',
    '--title',
    'Rotate keys',
    '--',
    'sh',
    '-c',
    'runwarden ask --title "Rotate now?" --choice yes --choice no',
  ]);
  children.push(exec);
  const runId = await runIdOf(exec);
  await waitUntilNeedsYou(runId);
  const second = await context.newPage();
  // The second tab misses live updates (a sleeping laptop, a slow network): it still shows the open question
  // after the first tab has answered it.
  await second.route('**/api/events**', (route) => route.abort());
  await openUi(page, served);
  await openUi(second, served);
  for (const tab of [page, second]) {
    await rowFor(tab, 'Rotate keys').click({ timeout: 6_000 });
    await tab.getByRole('form', { name: 'Answer: Rotate now?' }).getByRole('radio', { name: 'yes' }).check();
  }
  for (const tab of [page, second]) {
    await tab
      .getByRole('form', { name: 'Answer: Rotate now?' })
      .getByRole('button', { name: 'Send answer' })
      .click();
  }
  const refusals = [page, second].map((tab) =>
    tab.getByRole('alert').filter({ hasText: /already answered/i }),
  );
  const refusalCount = async () =>
    (await Promise.all(refusals.map((r) => r.count()))).reduce((a, b) => a + b, 0);
  await expect.poll(refusalCount, { timeout: 5_000 }).toBe(1);

  expect(await exec.exited).toBe(0);
  expect(exec.output().stdout.trim()).toBe('yes');
  const detail = await show(runId);
  expect(detail.submissions.filter((s) => s.outcome === 'accepted')).toHaveLength(1);
  expect(detail.events.filter((e) => e.type === 'interaction.answered')).toHaveLength(1);
});

test('HTML and script in titles, prompts and notifications render as inert text', async ({ page }) => {
  const hostileTitle = '<img src=x onerror="window.rwPwned=1">Deploy';
  const hostilePrompt = '<script>window.rwPwned=2</script> [click](https://evil.example) <b>bold</b>';
  const exec = runCli(ws, [
    'exec',
    '--title',
    hostileTitle,
    '--',
    'sh',
    '-c',
    `runwarden notify --level failure '<a href="https://evil.example">open me</a>' '<iframe src=https://evil.example>' && runwarden ask --title '<svg onload="window.rwPwned=3">Go?' --prompt '${hostilePrompt}' --choice ok`,
  ]);
  children.push(exec);
  await runIdOf(exec);
  await openUi(page, served);
  await rowFor(page, 'Deploy').click({ timeout: 6_000 });
  await expect(page.getByRole('heading', { name: hostileTitle })).toBeVisible();
  await expect(page.getByText(hostilePrompt)).toBeVisible();
  await screenshot(page, 'hostile-content-light');
  const detail = page.locator('section.detail');
  expect(await detail.locator('img, script, svg[onload], iframe, a[href^="https://evil"]').count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as unknown as { rwPwned?: number }).rwPwned)).toBeUndefined();
  await page.getByRole('button', { name: /notifications/i }).click();
  await expect(page.getByText('<a href="https://evil.example">open me</a>').first()).toBeVisible();
  expect(await page.locator('a[href^="https://evil"], iframe').count()).toBe(0);
});

test('keyboard only: reach and answer a pending question without the mouse', async ({ page }) => {
  const exec = runCli(ws, [
    'exec',
    '--title',
    'Publish docs',
    '--',
    'sh',
    '-c',
    'runwarden ask --title "Publish?" --choice publish --choice hold',
  ]);
  children.push(exec);
  await runIdOf(exec);
  await openUi(page, served);
  await expect(rowFor(page, 'Publish docs')).toBeVisible({ timeout: 4_500 });
  await expect(page.getByRole('grid', { name: 'Runs' })).toHaveAttribute('aria-busy', 'false');
  await page.keyboard.press('j');
  await page.keyboard.press('Enter');
  const form = page.getByRole('form', { name: 'Answer: Publish?' });
  await expect(form).toBeVisible();
  // From the opened run, Tab reaches the "Answer" action, which moves focus into the question.
  await tabUntil(page, (el) => el.tagName === 'BUTTON' && el.textContent?.trim() === 'Answer');
  await page.keyboard.press('Enter');
  await expect(form.getByRole('radio').first()).toBeFocused();
  await page.keyboard.press('Space');
  await tabUntil(page, (el) => el.tagName === 'BUTTON' && el.textContent?.trim() === 'Send answer');
  await page.keyboard.press('Enter');
  expect(await exec.exited).toBe(0);
  expect(exec.output().stdout.trim()).toBe('publish');
});
