/**
 * Three machines in one window (docs/REMOTES.md#in-the-window): this one and two over their own real sshd
 * on 127.0.0.1 (box and other: this machine with two other stores). The counts add all three; a question
 * on other is answered from the window and a stale run of other's cancelled through the window's
 * confirmation, both recorded on other as the person via other; box's live question is answered from its
 * row in the list, recorded on box via box; other's cable pulled → other unreachable
 * within 10 s and left out of the counts, box still connected and counted, this machine's rows untouched.
 */
import { expect, test, type Page } from '@playwright/test';
import type { SshFixture } from '../helpers/sshd';
import { openUi, screenshot, type Served } from './harness';
import { CAN_RUN_REMOTES, onStore, startMachines, type Machines } from './remote-machines';

let machines: Machines;
let served: Served;
let sshds: SshFixture[] = [];

interface Shown {
  snapshot: { run: { status: string }; interactions: Array<{ id: string; status: string }> };
  events: Array<{ type: string; actorId: string | null; surface: string | null }>;
}

function onMachine<T>(name: string, args: string[]): T {
  return onStore<T>(machines.stores[name] ?? '', args);
}

function runOn(name: string, title: string): { id: string; status: string } {
  const listed = onMachine<{ items: Array<{ run: { id: string; title: string; status: string } }> }>(name, [
    'ls',
    '--limit',
    '100',
  ]);
  const run = listed.items.find((i) => i.run.title === title)?.run;
  if (run === undefined) throw new Error(`no run "${title}" on ${name}`);
  return run;
}

async function needsYou(machine: string | null): Promise<number> {
  const [channel, input] =
    machine === null
      ? ['attention:summary', { limit: 0 }]
      : ['remotes:call', { machine, channel: 'attention:summary', input: { limit: 0 } }];
  const response = await fetch(`${served.origin}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${served.token}` },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { ok: boolean; value: { needsYou: number } };
  if (!body.ok) throw new Error(`${channel}: ${JSON.stringify(body)}`);
  return body.value.needsYou;
}

function state(page: Page, name: string) {
  return page.getByTestId('remote-machines').locator(`[data-machine="${name}"]`).getByTestId('machine-state');
}

test.beforeEach(async () => {
  test.skip(!CAN_RUN_REMOTES, 'needs /usr/sbin/sshd and root');
  // box has live runners (a live question); other's runs are all parked or stale.
  machines = await startMachines({ box: true, other: false });
  served = machines.served;
  sshds = machines.sshds;
});

test.afterEach(async () => {
  if (CAN_RUN_REMOTES) await machines.stop();
});

test('three machines in one window: answer and recover on other; its cable pulled, box stays', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openUi(page, served, '#/needs-you');
  await expect(state(page, 'box')).toContainText('box: connected', { timeout: 20_000 });
  await expect(state(page, 'other')).toContainText('other: connected', { timeout: 20_000 });
  const tab = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Needs you/ });
  const [here, box, other] = [await needsYou(null), await needsYou('box'), await needsYou('other')];
  await expect(tab.locator('.count')).toHaveText(String(here + box + other), { timeout: 10_000 });
  await expect(page).toHaveTitle(`(${here + box + other}) Runwarden`);
  // Every machine's rows in one list, each saying whose it is.
  for (const name of ['this machine', 'box', 'other'])
    await expect(page.getByTestId('row-machine').filter({ hasText: name }).first()).toBeVisible();
  await screenshot(page, 'three-machines');

  // Answer other's question from the window.
  const question = page
    .getByTestId('remote-machines')
    .locator('[data-machine="other"]')
    .getByTestId('remote-question')
    .filter({ has: page.getByRole('button') })
    .first();
  await expect(question).toBeVisible();
  const choice = question.getByRole('button').first();
  const choiceText = (await choice.innerText()).trim();
  await choice.click();
  await expect(page.getByRole('status').filter({ hasText: `on other: ${choiceText}` })).toBeVisible();
  await expect(tab.locator('.count')).toHaveText(String(here + box + other - 1), { timeout: 15_000 });

  // Recover other's stale run through the window's confirmation.
  const stale = runOn('other', 'Snapshot production databases');
  await page.getByTestId('machine-filter').selectOption('other');
  const row = page.locator(`[id="run-row-other:${stale.id}"]`);
  await row.click();
  await page
    .getByRole('toolbar', { name: 'Run actions' })
    .getByRole('button', { name: 'Cancel run…' })
    .click();
  const dialog = page.getByRole('dialog', { name: /^Cancel run: / });
  await expect(dialog.getByRole('list', { name: 'Consequences' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel run', exact: true }).click();
  await expect(dialog).toHaveCount(0);
  const shown = onMachine<Shown>('other', ['show', stale.id]);
  expect(shown.snapshot.run.status).toBe('cancelled');
  const cancelled = shown.events.find((e) => e.type === 'run.cancelled');
  expect(cancelled?.actorId).toMatch(/ via other$/);
  const answered = onMachine<{ items: Array<{ run: { id: string } }> }>('other', ['ls', '--limit', '100'])
    .items.map((i) => onMachine<Shown>('other', ['show', i.run.id]))
    .flatMap((s) => s.events)
    .find((e) => e.type === 'interaction.answered');
  expect(answered?.actorId).toMatch(/ via other$/);

  // Answer box's live question from its row in the list, as a local one is answered.
  await page.getByTestId('machine-filter').selectOption('box');
  const deploy = runOn('box', 'Deploy billing v2.4.1');
  await page.locator(`[id="run-row-box:${deploy.id}"]`).getByRole('button', { name: 'Answer…' }).click();
  const quick = page.getByRole('dialog', { name: 'Answer: Deploy billing v2.4.1 to production?' });
  await quick.getByRole('button', { name: 'yes', exact: true }).click();
  await expect(quick).toHaveCount(0);
  const onBox = onMachine<Shown>('box', ['show', deploy.id]);
  expect(onBox.snapshot.interactions.every((i) => i.status !== 'pending')).toBe(true);
  const boxAnswer = onBox.events.find((e) => e.type === 'interaction.answered');
  expect(boxAnswer?.actorId).toMatch(/ via box$/);
  expect(boxAnswer?.surface).toBe('browser');

  // Pull other's cable: other says so within 10 s and leaves the counts; box carries on.
  await page.getByTestId('machine-filter').selectOption('');
  const otherNow = await needsYou('other');
  const boxNow = await needsYou('box');
  const pulledAt = Date.now();
  sshds[1]?.kill();
  await expect(state(page, 'other')).toContainText(/other: unreachable since \d\d:\d\d — /, {
    timeout: 10_000,
  });
  expect(Date.now() - pulledAt).toBeLessThan(10_000);
  await expect(state(page, 'box')).toContainText('box: connected');
  await expect(page.getByTestId('not-counted')).toHaveText(
    new RegExp(`^Not counted: other, unreachable \\(${otherNow} needed you, last known \\d\\d:\\d\\d\\)$`),
  );
  await expect(tab.locator('.count')).toHaveText(String(here + boxNow));
  await expect(page.getByTestId('row-machine').filter({ hasText: 'this machine' }).first()).toBeVisible();
  await expect(
    page
      .getByTestId('row-machine')
      .filter({ hasText: /^other · last known/ })
      .first(),
  ).toBeVisible();
  // The group headers count what can be acted on now, and other's rows apart.
  await expect(
    page
      .locator('.group-head')
      .filter({ hasText: /· \d+, and \d+ last known$/ })
      .first(),
  ).toBeVisible();
  await screenshot(page, 'three-machines-other-down');
});
