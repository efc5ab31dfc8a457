/**
 * Remote runs in the window's run list (docs/REMOTES.md#in-the-window), over a real sshd on 127.0.0.1 (the
 * "remote" is this machine with another store): a remote run is listed with its Machine and the Machine
 * filter shows one machine's runs; a stale remote run is cancelled from the window with the same
 * confirmation as a local one, and the remote records it as the person via box; a live remote run's cancel
 * is refused by the remote itself and the run carries on.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { killQuietly } from '../helpers/cli';
import { sshdAvailable, startSshd, type SshFixture } from '../helpers/sshd';
import {
  CLI_BIN,
  cliJson,
  createWorkspace,
  openUi,
  startServe,
  type Served,
  type Workspace,
} from './harness';

const canRun = sshdAvailable() && process.getuid?.() === 0;
if (!canRun && process.env.CI === 'true')
  throw new Error('CI needs openssh-server and root for the remote tests');

let ws: Workspace;
let served: Served;
let sshd: SshFixture;
let sshDir: string;
let remoteStore: string;
let runnerPids: number[] = [];

interface Listed {
  items: Array<{ run: { id: string; title: string; status: string; revision: number } }>;
}

function remoteJson<T>(args: string[]): T {
  const out = execFileSync(process.execPath, [CLI_BIN, ...args, '--json'], {
    env: { ...process.env, RUNWARDEN_STORE: remoteStore },
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { value: T }).value;
}

function remoteRun(title: string) {
  const run = remoteJson<Listed>(['ls', '--limit', '100']).items.find((i) => i.run.title === title)?.run;
  if (run === undefined) throw new Error(`no remote run "${title}"`);
  return run;
}

test.beforeEach(async () => {
  test.skip(!canRun, 'needs /usr/sbin/sshd and root');
  sshDir = mkdtempSync(join(tmpdir(), 'runwarden-e2e-ssh-'));
  sshd = await startSshd(sshDir);
  remoteStore = join(sshDir, 'remote.sqlite');
  ws = createWorkspace();
  ws.env.PATH = sshd.env.PATH;
  const demo = execFileSync(
    process.execPath,
    [CLI_BIN, 'demo', '--dir', join(sshDir, 'projects'), '--live-minutes', '5', '--json'],
    { env: { ...process.env, RUNWARDEN_STORE: remoteStore }, encoding: 'utf8' },
  );
  runnerPids = (JSON.parse(demo) as { value: { runnerPids: number[] } }).value.runnerPids;
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
  const command = `env RUNWARDEN_STORE=${remoteStore} ${process.execPath} ${CLI_BIN}`;
  await cliJson(ws, ['remote', 'add', 'box', sshd.alias, '--runwarden', command]);
  served = await startServe(ws);
});

test.afterEach(async () => {
  if (!canRun) return;
  await served.stop();
  for (const pid of runnerPids) killQuietly(pid, 'SIGKILL');
  sshd.stop();
  ws.cleanup();
  rmSync(sshDir, { recursive: true, force: true });
});

test('a remote run is listed with its machine, cancelled from the window; a live one is refused', async ({
  page,
}) => {
  const stale = remoteRun('Snapshot production databases');
  await openUi(page, served, '#/all');
  await expect(page.locator('[data-machine="box"]').getByTestId('machine-state')).toContainText(
    'box: connected',
    { timeout: 20_000 },
  );
  // Every machine's runs: this machine's rows say so; the filter then shows box's alone.
  await expect(page.getByTestId('row-machine').filter({ hasText: 'this machine' }).first()).toBeVisible();
  await page.getByTestId('machine-filter').selectOption('box');
  await expect(page).toHaveURL(/machine=box/);
  const row = page.locator(`[id="run-row-box:${stale.id}"]`);
  await expect(row).toBeVisible({ timeout: 10_000 });
  await expect(row.getByTestId('row-machine')).toHaveText('box');
  await expect(page.getByTestId('row-machine').filter({ hasText: 'this machine' })).toHaveCount(0);

  // Cancel the stale remote run: the same confirmation as a local one, acted on by box's own handlers.
  await row.click();
  await page
    .getByRole('toolbar', { name: 'Run actions' })
    .getByRole('button', { name: 'Cancel run…' })
    .click();
  const dialog = page.getByRole('dialog', { name: /^Cancel run: / });
  await expect(dialog.getByRole('list', { name: 'Consequences' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel run', exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('run-reason')).toContainText('Cancelled');
  const shown = remoteJson<{
    snapshot: { run: { status: string } };
    events: Array<{ type: string; actorId: string | null; surface: string | null }>;
  }>(['show', stale.id]);
  expect(shown.snapshot.run.status).toBe('cancelled');
  const cancelled = shown.events.find((e) => e.type === 'run.cancelled');
  expect(cancelled?.actorId).toMatch(/ via box$/);
  expect(cancelled?.surface).toBe('browser');

  // A live remote run: the remote's own handlers refuse a cancel, and the run carries on.
  const live = remoteRun('Nightly integration tests');
  const response = await fetch(`${served.origin}/api/invoke/runs:cancel`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${served.token}` },
    body: JSON.stringify({ runId: `box:${live.id}`, expectedRevision: live.revision, reason: 'try' }),
  });
  const refused = (await response.json()) as { ok: boolean; error?: { code: string; message: string } };
  expect(refused.ok).toBe(false);
  expect(refused.error?.message).toMatch(/live|running|runner/i);
  expect(remoteRun('Nightly integration tests').status).toBe('running');
});
