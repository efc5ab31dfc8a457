/**
 * Another machine in the window (docs/REMOTES.md#in-the-window), over a real sshd on 127.0.0.1: the "remote" is
 * this machine with another store. Its live question is answered from the window and recorded there as the
 * person via box; sshd killed shows "box: unreachable since HH:MM" within 10 s with the last-known rows marked
 * and no action, a call sent meanwhile is refused and never delivered later, the local runs carry on, and the
 * machine comes back when sshd does.
 */
import { expect, test } from '@playwright/test';
import type { SshFixture } from '../helpers/sshd';
import { openUi, type Served } from './harness';
import { CAN_RUN_REMOTES, onStore, startMachines, type Machines } from './remote-machines';

let machines: Machines;
let served: Served;
let sshd: SshFixture;
let remoteStore: string;

const remoteJson = <T>(args: string[]): T => onStore<T>(remoteStore, args);

test.beforeEach(async () => {
  test.skip(!CAN_RUN_REMOTES, 'needs /usr/sbin/sshd and root');
  machines = await startMachines({ box: true });
  served = machines.served;
  [sshd] = machines.sshds as [SshFixture];
  remoteStore = machines.stores.box ?? '';
});

test.afterEach(async () => {
  if (CAN_RUN_REMOTES) await machines.stop();
});

test('answers a remote question from the window; a pulled cable is shown, refused, and heals', async ({
  page,
}) => {
  await openUi(page, served, '#/all');
  const box = page.locator('[data-machine="box"]');
  await expect(box.getByTestId('machine-state')).toContainText('box: connected', { timeout: 20_000 });
  const question = box
    .getByTestId('remote-question')
    .filter({ hasText: 'Deploy billing v2.4.1 to production?' });
  await expect(question).toBeVisible();
  await question.getByRole('button', { name: 'yes' }).click();
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: 'Answered "Deploy billing v2.4.1 to production?" on box: yes' }),
  ).toBeVisible();
  await expect(question).toHaveCount(0);
  const runs = remoteJson<{ items: Array<{ run: { id: string; title: string } }> }>(['ls', '--limit', '100']);
  const deploy = runs.items.find((i) => i.run.title === 'Deploy billing v2.4.1');
  const detail = remoteJson<{
    events: Array<{ type: string; actorId: string | null; surface: string | null }>;
  }>(['show', deploy?.run.id ?? 'missing']);
  const answered = detail.events.find((e) => e.type === 'interaction.answered');
  expect(answered?.actorId).toMatch(/ via box$/);
  expect(answered?.surface).toBe('browser');

  // The other question, still open, is what the cable-pull leaves as last known.
  const other = box.getByTestId('remote-question').first();
  await expect(other).toBeVisible();
  const killedAt = Date.now();
  sshd.kill();
  await expect(box.getByTestId('machine-state')).toContainText(/box: unreachable since \d\d:\d\d — /, {
    timeout: 10_000,
  });
  expect(Date.now() - killedAt).toBeLessThan(10_000);
  await expect(box.locator('ul.last-known')).toBeVisible();
  await expect(box.getByText(/Last known at \d\d:\d\d/)).toBeVisible();
  await expect(box.getByRole('button')).toHaveCount(0);

  // A call while it is down is refused now and never sent later.
  const pending = remoteJson<{ items: Array<{ run: { id: string }; openInteractions: number }> }>([
    'ls',
    '--needs-you',
  ]);
  const asking = pending.items.find((i) => i.openInteractions > 0);
  const shown = remoteJson<{
    snapshot: {
      interactions: Array<{
        id: string;
        revision: number;
        status: string;
        kind: string;
        choices: string[] | null;
      }>;
    };
  }>(['show', asking?.run.id ?? 'missing']);
  const open = shown.snapshot.interactions.find((i) => i.status === 'pending');
  const q = open ?? { id: 'missing', revision: 0 };
  const response = await fetch(`${served.origin}/api/invoke/remotes:call`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${served.token}` },
    body: JSON.stringify({
      machine: 'box',
      channel: 'interactions:answer',
      input: {
        interactionId: q.id,
        interactionRevision: q.revision,
        idempotencyKey: 'while-down-1',
        payload: { ttl: 60, purgeCache: false },
      },
    }),
  });
  const refused = (await response.json()) as { ok: boolean; error?: { code: string; message: string } };
  expect(refused).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
  expect(refused.error?.message).toContain('nothing was sent');

  // This machine's runs are untouched: the list still answers and shows them.
  await expect(page.locator('[id^="run-row-"]').first()).toBeVisible();

  await sshd.start();
  await expect(box.getByTestId('machine-state')).toContainText('box: connected', { timeout: 45_000 });
  await expect(box.locator('ul.last-known')).toHaveCount(0);
  const after = remoteJson<{ snapshot: { interactions: Array<{ id: string; status: string }> } }>([
    'show',
    asking?.run.id ?? 'missing',
  ]);
  expect(after.snapshot.interactions.find((i) => i.id === open?.id)?.status).toBe('pending');
});
