/**
 * The desktop app in a real Electron: what the fakes of test/main/electron cannot show. Each test launches
 * the built app on its own temp store and config folder.
 */
import { expect, test } from '@playwright/test';
import { runCli, type Cli } from '../e2e/harness';
import { launchDesktop, secondInstance, until, type Desktop } from './electron-harness';

let desktop: Desktop | null = null;
const children: Cli[] = [];

test.afterEach(async () => {
  for (const child of children.splice(0)) child.killTree();
  await desktop?.close();
  desktop = null;
});

/** A real runner asking a question through the CLI; resolves with its run id. */
async function ask(d: Desktop, title: string): Promise<{ exec: Cli; runId: string }> {
  const exec = runCli(d.ws, [
    'exec',
    '--title',
    title,
    '--',
    'sh',
    '-c',
    'runwarden ask --title "Deploy to prod?" --choice yes --choice no',
  ]);
  children.push(exec);
  // exec prints "run <id>" on stderr as it starts.
  const runId = await until(
    () => Promise.resolve(/run (run_[a-z0-9]+)/.exec(exec.output().stderr)?.[1] ?? ''),
    (id) => id !== '',
  );
  expect(runId).not.toBe('');
  return { exec, runId };
}

test('the window opens on the temp store and shows Needs you', async () => {
  desktop = await launchDesktop();
  await expect(desktop.window.getByRole('navigation', { name: 'Views' })).toContainText('Needs you');
  expect(desktop.window.url()).toMatch(/^file:\/\/.*\/out\/renderer\/index\.html/);
});

test('an IPC round trip reaches the store the app was given', async () => {
  desktop = await launchDesktop();
  const info = await desktop.window.evaluate(() =>
    (
      window as unknown as { runwarden: { getStoreInfo(i: object): Promise<unknown> } }
    ).runwarden.getStoreInfo({}),
  );
  expect(info).toMatchObject({ ok: true, value: { path: desktop.ws.store, mode: 'read-write' } });
});

test('the native tray exists and holds a native menu with its fixed items', async () => {
  desktop = await launchDesktop();
  // The Tray object Electron made, and the labels of the Menu it was given, not the JS template.
  const native = await until(
    () => (desktop as Desktop).hook<{ alive: boolean; menuLabels: string[] }>('nativeTray'),
    (t) => t.menuLabels.includes('Quit Runwarden'),
  );
  expect(native.alive).toBe(true);
  expect(native.menuLabels).toEqual(
    expect.arrayContaining(['Pause notifications', 'Open Runwarden', 'Quit Runwarden']),
  );
});

test("a question is answered through the tray menu's item, and the runner gets the answer", async () => {
  desktop = await launchDesktop();
  const { exec } = await ask(desktop, 'Deploy api');
  const item = 'Deploy to prod? (Deploy api)';
  const labels = await until(
    () => (desktop as Desktop).hook<string[]>('trayLabels'),
    (l) => l.includes(item),
  );
  expect(labels).toContain(item);
  expect(await desktop.hook<string[]>('submenuLabels', item)).toEqual(
    expect.arrayContaining(['yes', 'no', 'Open in Runwarden…']),
  );
  expect(await desktop.hook<boolean>('clickTray', [item, 'yes'])).toBe(true);
  expect(await desktop.hook<string[]>('trayLabels')).not.toContain(item);
  expect(await exec.exited).toBe(0);
  expect(exec.output().stdout.trim()).toBe('yes');
});

test('a notification click opens its run, also after the person changed view', async () => {
  desktop = await launchDesktop();
  const { runId } = await ask(desktop, 'Deploy web');
  // The OS must have shown it: a notification the platform refused (no notification server) fails here.
  const events = await until(
    () => (desktop as Desktop).hook<{ shown: number; failed: string[] }>('notificationEvents'),
    (e) => e.shown > 0 || e.failed.length > 0,
  );
  expect(events.failed).toEqual([]);
  expect(events.shown).toBeGreaterThan(0);
  await desktop.window.getByRole('navigation', { name: 'Views' }).getByText('All').click();
  await expect(desktop.window).toHaveURL(/#\/all/);
  expect(await desktop.hook<boolean>('clickLastNotification')).toBe(true);
  await expect(desktop.window).toHaveURL(new RegExp(`run=${runId}`));
});

test('a deep link from a second instance opens the run in the first', async () => {
  desktop = await launchDesktop();
  const { runId } = await ask(desktop, 'Deploy docs');
  await desktop.window.getByRole('navigation', { name: 'Views' }).getByText('Failed').click();
  expect(await secondInstance(desktop, [`runwarden://run/${runId}`])).toBe(0);
  await expect(desktop.window).toHaveURL(new RegExp(`run=${runId}`));
});

test('closing the window hides it to the tray where a tray host exists, else quits; Quit from the tray ends it', async () => {
  desktop = await launchDesktop();
  await until(
    () => (desktop as Desktop).hook<string[]>('trayLabels'),
    (l) => l.includes('Quit Runwarden'),
  );
  // The tray host answer decides which branch this machine takes: wait for it, then assert that branch only.
  await until(
    () => (desktop as Desktop).hook<boolean>('trayHostSettled'),
    (settled) => settled,
  );
  const hides = await desktop.hook<boolean>('canHideToTray');
  const exited = new Promise<number | null>((resolve) =>
    desktop?.app.process().once('exit', (code) => resolve(code)),
  );
  await desktop.app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]?.close());
  if (!hides) {
    // No tray icon can show: nothing else could quit the app, so the close does.
    expect(await exited).toBe(0);
    return;
  }
  const after = await until(
    () =>
      (desktop as Desktop).app.evaluate(({ BrowserWindow }) => {
        const windows = BrowserWindow.getAllWindows();
        return { count: windows.length, visible: windows[0]?.isVisible() ?? false };
      }),
    (state) => !state.visible,
  );
  expect(after).toEqual({ count: 1, visible: false });
  expect(await desktop.hook<boolean>('clickTray', ['Quit Runwarden'])).toBe(true);
  expect(await exited).toBe(0);
});
