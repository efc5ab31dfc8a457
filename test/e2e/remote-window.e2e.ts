/**
 * Another machine in the window, over a real sshd on 127.0.0.1 (the "remote" is this machine with another
 * store; docs/REMOTES.md#in-the-window): the Needs-you tab, the sidebar's total and the title count box's
 * runs with this machine's; box's notices are in the Notifications panel, named, and resolved when box's
 * question is answered there; a live remote run's output follows in the run's detail; its pause is asked
 * through box's own handlers, and an orphan's command is stopped there, both recorded as the person via
 * box; sshd killed leaves box out of every count, says so, and marks its notices last known.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { killQuietly, waitFor } from '../helpers/cli';
import type { SshFixture } from '../helpers/sshd';
import { CLI_BIN, openUi, screenshot, type Served } from './harness';
import { CAN_RUN_REMOTES, onStore, startMachines, type Machines } from './remote-machines';

let machines: Machines;
let served: Served;
let sshd: SshFixture;
let remoteStore: string;
let remoteProject: string;
let children: ChildProcess[] = [];

interface Shown {
  snapshot: {
    run: { id: string; revision: number; status: string };
    lease: { commandPgid: number | null } | null;
    interactions: Array<{ id: string; status: string; title: string }>;
  };
  display: { status: string };
  events: Array<{ type: string; actorId: string | null; surface: string | null }>;
}

const remoteJson = <T>(args: string[]): T => onStore<T>(remoteStore, args);

/** A `runwarden exec` on box's store, in its own process group; its run id. */
async function remoteExec(script: string, leaseMs: string): Promise<{ runId: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [CLI_BIN, 'exec', '--project', remoteProject, '--lease-ms', leaseMs, '--', 'sh', '-c', script],
    { env: { ...process.env, RUNWARDEN_STORE: remoteStore }, cwd: remoteProject, stdio: 'pipe' },
  );
  children.push(child);
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const runId = await waitFor(`the remote exec's run (${err})`, () => /run_[0-9a-z]+/.exec(err)?.[0]);
  return { runId, child };
}

async function invoke<T>(channel: string, input: unknown): Promise<T> {
  const response = await fetch(`${served.origin}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${served.token}` },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { ok: boolean; value?: T; error?: unknown };
  if (!body.ok) throw new Error(`${channel}: ${JSON.stringify(body.error)}`);
  return body.value as T;
}

/** The sidebar total's text: the number, then "need you" for a screen reader. */
function needing(n: number): RegExp {
  return new RegExp(`^${n}\\s*need you$`);
}

async function connected(page: Page): Promise<void> {
  await expect(page.locator('[data-machine="box"]').getByTestId('machine-state')).toContainText(
    'box: connected',
    { timeout: 20_000 },
  );
}

test.beforeEach(async () => {
  test.skip(!CAN_RUN_REMOTES, 'needs /usr/sbin/sshd and root');
  machines = await startMachines({ box: true });
  served = machines.served;
  [sshd] = machines.sshds as [SshFixture];
  remoteStore = machines.stores.box ?? '';
  remoteProject = join(machines.dir, 'remote-project');
  mkdirSync(remoteProject);
});

test.afterEach(async () => {
  if (!CAN_RUN_REMOTES) return;
  for (const child of children) if (child.pid !== undefined) killQuietly(child.pid, 'SIGKILL');
  children = [];
  await machines.stop();
});

test('counts and notices take in box; answered there, both follow; a pulled cable leaves box out', async ({
  page,
}) => {
  await openUi(page, served, '#/needs-you');
  await connected(page);
  const here = (await invoke<{ needsYou: number }>('attention:summary', { limit: 0 })).needsYou;
  const boxNeeds = async () =>
    (
      await invoke<{ needsYou: number }>('remotes:call', {
        machine: 'box',
        channel: 'attention:summary',
        input: { limit: 0 },
      })
    ).needsYou;
  const there = await boxNeeds();
  expect(here).toBeGreaterThan(0);
  expect(there).toBeGreaterThan(0);
  const tab = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Needs you/ });
  const total = page.getByTestId('all-projects-count');
  await expect(tab.locator('.count')).toHaveText(String(here + there));
  await expect(total).toHaveText(needing(here + there));
  await expect(page).toHaveTitle(`(${here + there}) Runwarden`);
  // One machine's counts with the Machine filter; the title stays every machine's.
  await page.getByTestId('machine-filter').selectOption('this');
  await expect(tab.locator('.count')).toHaveText(String(here));
  await expect(total).toHaveText(needing(here));
  await page.getByTestId('machine-filter').selectOption('box');
  await expect(tab.locator('.count')).toHaveText(String(there));
  await expect(page).toHaveTitle(`(${here + there}) Runwarden`);
  await page.getByTestId('machine-filter').selectOption('');

  // A question asked on box now: counted here, and its notice (box's own history) in the panel, named;
  // answered on box, its notice is resolved here and the counts follow.
  const asker = await remoteExec(
    `${process.execPath} ${CLI_BIN} ask --title 'Ship the remote build?' --prompt 'From box.' --choice yes --choice no --timeout 5m`,
    '20000',
  );
  await expect(tab.locator('.count')).toHaveText(String(here + there + 1), { timeout: 15_000 });
  await expect(page).toHaveTitle(`(${here + there + 1}) Runwarden`);
  await page.getByRole('button', { name: /^Notifications, \d+ unread/ }).click();
  const panel = page.getByRole('list', { name: 'Notification history' });
  const notice = panel.locator('li[data-machine="box"]').filter({ hasText: 'Ship the remote build?' });
  await expect(notice).toBeVisible({ timeout: 15_000 });
  await expect(notice.getByTestId('notification-machine')).toHaveText('box');
  await expect(notice.getByTestId('notification-resolution')).toHaveCount(0);
  await expect(notice.getByRole('button', { name: 'Answer…' })).toBeVisible();
  const question = await waitFor('the question on box', () =>
    remoteJson<Shown>(['show', asker.runId]).snapshot.interactions.find((i) => i.status === 'pending'),
  );
  execFileSync(process.execPath, [CLI_BIN, 'answer', question.id, 'yes'], {
    env: { ...process.env, RUNWARDEN_STORE: remoteStore },
  });
  await expect(notice.getByTestId('notification-resolution')).toContainText('Answered', { timeout: 15_000 });
  await screenshot(page, 'remote-notifications');
  await expect(tab.locator('.count')).toHaveText(String(here + there), { timeout: 15_000 });
  await expect(page).toHaveTitle(`(${here + there}) Runwarden`);

  // The cable pulled: box is left out of every count and named apart; its notices are last known.
  const left = await boxNeeds();
  sshd.kill();
  await expect(page.getByTestId('not-counted')).toHaveText(
    new RegExp(`^Not counted: box, unreachable \\(${left} needed you, last known \\d\\d:\\d\\d\\)$`),
    { timeout: 10_000 },
  );
  await expect(tab.locator('.count')).toHaveText(String(here));
  await expect(total).toHaveText(needing(here));
  await expect(page).toHaveTitle(`(${here}) Runwarden`);
  await expect(notice.getByTestId('notification-last-known')).toContainText(/last known at \d\d:\d\d/);
  await expect(notice.getByRole('button')).toHaveCount(0);
  await sshd.start();
  await expect(page.getByTestId('not-counted')).toHaveCount(0, { timeout: 45_000 });
  await expect(tab.locator('.count')).toHaveText(String(here + left));
});

test('a remote run: its output follows live; pause is asked on box, recorded via box', async ({ page }) => {
  const { runId } = await remoteExec('i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.3; done', '20000');
  await openUi(page, served, `#/run/box:${runId}`);
  await connected(page);
  const log = page.getByTestId('run-log');
  await expect(log).toContainText('tick 2', { timeout: 15_000 });
  const shownAt = Number(/tick (\d+)\D*$/.exec((await log.innerText()).trim())?.[1] ?? 0);
  // Lines printed after the run was opened reach the window without a reload.
  await expect(log).toContainText(`tick ${shownAt + 8}`, { timeout: 15_000 });

  await page
    .getByRole('toolbar', { name: 'Run actions' })
    .getByRole('button', { name: 'Request pause…' })
    .click();
  const dialog = page.getByRole('dialog', { name: /pause/i });
  await dialog.getByRole('button', { name: /pause/i }).last().click();
  await expect(dialog).toHaveCount(0);
  const shown = remoteJson<Shown>(['show', runId]);
  const asked = shown.events.find((e) => e.type === 'run.pause_requested');
  expect(asked?.actorId).toMatch(/ via box$/);
  expect(asked?.surface).toBe('browser');
});

test("a remote orphan's command is stopped through box, with the same confirmation", async ({ page }) => {
  const bgFile = join(remoteProject, 'bg.pid');
  const { runId, child } = await remoteExec(
    `(trap '' TERM; exec sleep 1000) & echo $! > ${bgFile}; while :; do sleep 0.2; done`,
    '1500',
  );
  const bg = await waitFor('the background job', () => {
    try {
      return Number(readFileSync(bgFile, 'utf8')) || undefined;
    } catch {
      return undefined;
    }
  });
  await waitFor('the command recorded', () => remoteJson<Shown>(['show', runId]).snapshot.lease?.commandPgid);
  child.kill('SIGKILL');
  await openUi(page, served, `#/run/box:${runId}`);
  await connected(page);
  // box's own sweeper (its serve --stdio host) finds the orphan.
  await waitFor(
    'box to see the orphan',
    () => remoteJson<Shown>(['show', runId]).display.status === 'orphaned',
    20_000,
  );
  const stop = page
    .getByRole('toolbar', { name: 'Run actions' })
    .getByRole('button', { name: 'Stop the command…' });
  await expect(stop).toBeVisible({ timeout: 15_000 });
  await stop.click();
  const dialog = page.getByRole('dialog', { name: /stop/i });
  await expect(dialog.getByRole('list', { name: 'Consequences' })).toBeVisible();
  await dialog.getByRole('button', { name: /stop/i }).last().click();
  await expect(dialog).toHaveCount(0);
  await waitFor(
    'the group gone',
    () => {
      try {
        process.kill(bg, 0);
        return false;
      } catch {
        return true;
      }
    },
    20_000,
  );
  const shown = remoteJson<Shown>(['show', runId]);
  const asked = shown.events.find((e) => e.type === 'run.command_stop_requested');
  expect(asked?.actorId).toMatch(/ via box$/);
  expect(asked?.surface).toBe('browser');
});
