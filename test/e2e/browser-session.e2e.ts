/**
 * Browser mode's session rules and connection states, in Chromium against real `runwarden serve` processes
 * (docs/ARCHITECTURE.md#browser-mode): two serves in one browser, what another loopback port receives, the
 * one-time sign-in URL, a stopped and a restarted serve, and a symlink out of the UI folder.
 */
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test, type Page } from '@playwright/test';
import {
  createWorkspace,
  REPO_ROOT,
  runCli,
  screenshot,
  startServe,
  type Served,
  type Workspace,
} from './harness';

const cleanups: Array<() => Promise<void> | void> = [];
test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).toReversed()) await cleanup();
});

async function serveWithRun(title: string, uiDir?: string): Promise<{ ws: Workspace; served: Served }> {
  const ws = createWorkspace();
  cleanups.push(() => ws.cleanup());
  const exec = runCli(ws, ['exec', '--title', title, '--', 'true']);
  expect(await exec.exited).toBe(0);
  const served = await startServe(ws, uiDir === undefined ? {} : { uiDir });
  cleanups.push(() => served.stop());
  return { ws, served };
}

const connection = (page: Page) => page.getByRole('status', { name: 'Connection' });
const runsGrid = (page: Page) => page.getByRole('grid', { name: 'Runs' });

/** A plain listener on another loopback port that records the Cookie header of every request. */
async function cookieCatcher(): Promise<{ origin: string; cookies: string[] }> {
  const cookies: string[] = [];
  const server = http.createServer((req, res) => {
    cookies.push(req.headers.cookie ?? '');
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>elsewhere</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cookies };
}

test('two serves in one browser both stay signed in, each with its own per-port session', async ({
  page,
  context,
}) => {
  const a = await serveWithRun('Alpha store run');
  const b = await serveWithRun('Beta store run');
  await page.goto(`${a.served.url}#/all`);
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();
  await expect(page).toHaveURL(`${a.served.origin}/#/all`); // the used code left the address bar

  const second = await context.newPage();
  await second.goto(`${b.served.url}#/all`);
  await expect(runsGrid(second).getByText('Beta store run')).toBeVisible();

  // Signing in to B did not sign the A tab out: a reload and a live push still work there.
  await page.reload();
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();
  await expect(connection(page)).toHaveText(/Live/);
  const exec = runCli(a.ws, ['exec', '--title', 'Alpha pushed later', '--', 'true']);
  expect(await exec.exited).toBe(0);
  await expect(runsGrid(page).getByText('Alpha pushed later')).toBeVisible({ timeout: 15_000 });
  await second.reload();
  await expect(runsGrid(second).getByText('Beta store run')).toBeVisible();
  await expect(runsGrid(second).getByText('Alpha store run')).toHaveCount(0);
  await expect(connection(second)).toHaveText(/Live/);

  const cookies = await context.cookies();
  const names = cookies.map((c) => c.name).sort();
  expect(names).toEqual([`rw_session_${a.served.port}`, `rw_session_${b.served.port}`].sort());
  for (const cookie of cookies) {
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Strict');
    expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);
    expect([a.served.token, b.served.token]).not.toContain(cookie.value);
  }
});

test('another loopback port receives only a cookie that authenticates nowhere', async ({ page, request }) => {
  const a = await serveWithRun('Alpha store run');
  await page.goto(`${a.served.url}#/all`);
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();
  const key = await page.evaluate(() => localStorage.getItem('runwarden.session-key'));
  expect(key).not.toBeNull();

  const catcher = await cookieCatcher();
  await page.goto(`${catcher.origin}/`);
  expect(catcher.cookies.length).toBeGreaterThan(0);
  const received = catcher.cookies.join('; ');
  // Browsers do send 127.0.0.1 cookies to every port: the point is what it is worth there.
  expect(received).toContain(`rw_session_${a.served.port}=`);
  expect(received).not.toContain(a.served.token);
  expect(received).not.toContain(key as string);
  // The key stays with its own origin's storage.
  expect(await page.evaluate(() => localStorage.getItem('runwarden.session-key'))).toBeNull();

  // Replayed to serve by the listener's owner, what it received opens neither the API nor the stream.
  for (const path of ['/api/invoke/runs:list', '/api/events', '/api/session']) {
    const replay = await fetch(`${a.served.origin}${path}`, {
      method: path.startsWith('/api/invoke') ? 'POST' : 'GET',
      headers: { Cookie: received, 'Content-Type': 'application/json' },
      body: path.startsWith('/api/invoke') ? '{}' : undefined,
    });
    expect(replay.status, path).toBe(401);
  }
  // Nor does it sign anyone in: the used sign-in URL from another client is still refused.
  const used = await request.fetch(a.served.url, { maxRedirects: 0, headers: { Cookie: '' } });
  expect(used.status()).toBe(403);
});

test('a used sign-in URL is refused in another browser, which signs in with a fresh one', async ({
  page,
  browser,
}) => {
  const a = await serveWithRun('Alpha store run');
  await page.goto(`${a.served.url}#/all`);
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();
  // The same browser opening the printed URL again goes on to the app.
  await page.goto(`${a.served.url}#/all`);
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();

  const other = await browser.newContext();
  cleanups.push(() => other.close());
  const stranger = await other.newPage();
  const refused = await stranger.goto(a.served.url);
  expect(refused?.status()).toBe(403);
  await expect(stranger.getByText(/already used/)).toBeVisible();
  // The plain page without a session says so instead of looking like an empty store.
  await stranger.goto(`${a.served.origin}/#/all`);
  await expect(stranger.getByRole('dialog', { name: /Session expired/ })).toBeVisible();

  await stranger.goto(`${await a.served.signInUrl()}#/all`);
  await expect(runsGrid(stranger).getByText('Alpha store run')).toBeVisible();
  await expect(connection(stranger)).toHaveText(/Live/);
});

test('a stopped serve is not silent, and a restarted one asks for the new URL', async ({ page }) => {
  const a = await serveWithRun('Alpha store run');
  await page.goto(`${a.served.url}#/all`);
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();
  await expect(connection(page)).toHaveText(/Live/);

  await a.served.stop();
  // Reconnecting first, Disconnected once it stays down; the banner is there within a few seconds.
  await expect(page.getByRole('alert', { name: 'Connection' })).toContainText('Disconnected', {
    timeout: 20_000,
  });
  await screenshot(page, 'serve-stopped-banner');
  await expect(connection(page)).toHaveCount(0); // no "Live" while it is not
  // Opening a run explains the disconnection instead of failing silently.
  await runsGrid(page).getByText('Alpha store run').click();
  await expect(page.getByRole('complementary', { name: 'Run details' })).toContainText(
    'runwarden serve did not answer',
  );

  // serve comes back on the same port with new sessions: this browser's one is gone.
  const restarted = await startServe(a.ws, { port: a.served.port });
  cleanups.push(() => restarted.stop());
  await expect(page.getByRole('dialog', { name: 'Session expired — open the new URL' })).toBeVisible({
    timeout: 20_000,
  });
  await screenshot(page, 'serve-session-expired');
  // A reload does not pretend the store is empty.
  await page.reload();
  await expect(page.getByRole('dialog', { name: 'Session expired — open the new URL' })).toBeVisible();
  await page.goto(`${restarted.url}#/all`);
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();
  await expect(connection(page)).toHaveText(/Live/);
});

test('a symlink in the UI folder that points outside it is refused, signed in or not', async ({ page }) => {
  const uiDir = mkdtempSync(join(tmpdir(), 'runwarden-ui-'));
  const secretDir = mkdtempSync(join(tmpdir(), 'runwarden-secret-'));
  cleanups.push(() => {
    rmSync(uiDir, { recursive: true, force: true });
    rmSync(secretDir, { recursive: true, force: true });
  });
  cpSync(join(REPO_ROOT, 'out', 'renderer'), uiDir, { recursive: true });
  writeFileSync(join(secretDir, 'secret.txt'), 'a secret outside the UI');
  symlinkSync(join(secretDir, 'secret.txt'), join(uiDir, 'leak.txt'));
  symlinkSync('/etc/passwd', join(uiDir, 'passwd'));
  const a = await serveWithRun('Alpha store run', uiDir);

  const before = await page.goto(`${a.served.origin}/leak.txt`);
  expect(before?.status()).toBe(404);
  await page.goto(`${a.served.url}#/all`);
  await expect(runsGrid(page).getByText('Alpha store run')).toBeVisible();
  for (const file of ['/leak.txt', '/passwd']) {
    const after = await page.goto(`${a.served.origin}${file}`);
    expect(after?.status(), file).toBe(404);
    expect(await page.content()).not.toContain('a secret outside the UI');
    expect(await page.content()).not.toContain('root:');
  }
});

test('countdowns stop while serve is disconnected', async ({ page }) => {
  const a = await serveWithRun('Alpha store run');
  const exec = runCli(a.ws, [
    'exec',
    '--title',
    'Waiting for a person',
    '--',
    'sh',
    '-c',
    'runwarden ask --title "Go ahead?" --choice yes --choice no --timeout 10m',
  ]);
  // SIGTERM: exec forwards it to its command (ask runs in a process group of its own), then exits.
  cleanups.push(async () => {
    exec.killTree('SIGTERM');
    const exited = await Promise.race([exec.exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!exited) exec.killTree('SIGKILL');
  });
  await page.goto(a.served.url);
  await runsGrid(page).getByText('Waiting for a person').click({ timeout: 15_000 });
  const timer = page.getByRole('timer');
  await expect(timer).toHaveText(/left$/);
  // Live, it ticks.
  const first = await timer.textContent();
  await expect.poll(() => timer.textContent(), { timeout: 10_000 }).not.toBe(first);

  await a.served.stop();
  await expect(page.getByRole('alert', { name: 'Connection' })).toContainText('Disconnected', {
    timeout: 20_000,
  });
  const frozen = await timer.textContent();
  // Several seconds of a once-a-second clock: a ticking countdown would have changed.
  for (let i = 0; i < 5; i++) {
    await page.waitForTimeout(700);
    expect(await timer.textContent()).toBe(frozen);
  }
});
