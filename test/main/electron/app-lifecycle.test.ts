/**
 * The lifecycle wiring with a fake `electron`, a fake host and a fake store path: what Electron would do on
 * start, second launch, deep link, push and quit, driven by emitting the events the real app emits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, LISTENING_CHANNEL, type Channel } from '../../../shared/channel-names';
import type { Result } from '../../../shared/errors';
import { DEFAULT_SETTINGS, type AttentionSummary, type Settings } from '../../../shared/views';
import type { AppHost, AppHostOptions } from '../../../main/services/host-types';
import {
  app,
  BrowserWindow,
  dialog,
  FakeEvent,
  FakeWebContents,
  ipcMain,
  Menu,
  Notification,
  resetFakeElectron,
  session,
  shell,
  Tray,
  type FakeMenuItem,
} from './fake-electron';
import type { Interaction } from '../../../shared/domain';

vi.mock('electron', () => import('./fake-electron'));

const hostState = vi.hoisted(() => ({
  options: null as AppHostOptions | null,
  settings: null as Settings | null,
  throwOnCreate: null as Error | null,
  started: 0,
  disposed: 0,
  dispatched: [] as Array<{ channel: string; input: unknown }>,
  /** The host's typed methods the shell called, with their argument. */
  called: [] as Array<{ method: string; argument: unknown }>,
}));

vi.mock('../../../main/services/app-host', () => ({
  createAppHost: (options: AppHostOptions): AppHost => {
    if (hostState.throwOnCreate !== null) throw hostState.throwOnCreate;
    hostState.options = options;
    hostState.settings = { ...DEFAULT_SETTINGS };
    return {
      settings: hostState.settings,
      start: () => void hostState.started++,
      dispose: () => void hostState.disposed++,
      dispatch: async <C extends Channel>(channel: C, input: unknown) => {
        hostState.dispatched.push({ channel, input });
        const summary: AttentionSummary = { counts: { stale: 1 }, needsYou: 1, items: [] };
        return { ok: true, value: summary } as unknown as Result<never>;
      },
      markRunRead: async (runId) => {
        hostState.called.push({ method: 'markRunRead', argument: runId });
        return { ok: true, value: { count: 0 } };
      },
      setNotificationsPaused: async (paused) => {
        hostState.called.push({ method: 'setNotificationsPaused', argument: paused });
        return { ok: true, value: { ...DEFAULT_SETTINGS, notificationsPaused: paused } };
      },
    };
  },
}));

const trayHostState = vi.hoisted(() => ({ found: 'present' as 'present' | 'absent' | 'unknown' }));
vi.mock('../../../main/electron/tray-host', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../main/electron/tray-host')>()),
  detectTrayHost: () => Promise.resolve(trayHostState.found),
}));

/** electron-updater's `autoUpdater`, faked: counts the checks the shell asks for. */
const updaterState = vi.hoisted(() => ({
  checks: 0,
  autoUpdater: {
    autoDownload: true,
    autoInstallOnAppQuit: false,
    allowDowngrade: true,
    logger: null as unknown,
    on: () => {},
    checkForUpdates: () => {
      updaterState.checks += 1;
      return Promise.resolve({
        isUpdateAvailable: true,
        updateInfo: { version: '0.2.0', releaseNotes: 'New' },
      });
    },
    downloadUpdate: () => Promise.resolve([]),
    quitAndInstall: () => {},
  },
}));
vi.mock('electron-updater', () => ({ default: { autoUpdater: updaterState.autoUpdater } }));

vi.mock('../../../main/store', () => ({
  resolveStorePath: () => '/home/me/.local/share/runwarden/state.sqlite',
}));

const {
  createNotificationHealth,
  markRunRead,
  quitsWhenAllClosed,
  rendererGoneNotice,
  runApp,
  trayHostOutcome,
} = await import('../../../main/electron/app-lifecycle');

const MAIN_URL = 'file:///opt/Runwarden/resources/app.asar/out/main/index.js';
const APP_PAGE = 'file:///opt/Runwarden/resources/app.asar/out/renderer/index.html';
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
const savedArgv = process.argv;

async function started(argv: string[] = ['electron', '.']) {
  process.argv = argv;
  runApp(MAIN_URL);
  app.becomeReady();
  await flush();
  const window = BrowserWindow.created[0];
  return { window };
}

/** The window shows our page and the page says (through the preload) which pushes it listens to. */
function loadPage(
  window: BrowserWindow | undefined,
  listening: string[] = ['changed', 'attention', 'open-run', 'store-status'],
): FakeWebContents {
  if (window === undefined) throw new Error('no window');
  window.webContents.mainFrame.url = APP_PAGE;
  window.webContents.emit('did-finish-load');
  const contents = window.webContents;
  void ipcMain.handlers.get(LISTENING_CHANNEL)?.(
    { sender: contents, senderFrame: contents.mainFrame },
    listening,
  );
  return contents;
}

beforeEach(() => {
  resetFakeElectron();
  trayHostState.found = 'present';
  Object.assign(hostState, {
    options: null,
    settings: null,
    throwOnCreate: null,
    started: 0,
    disposed: 0,
    dispatched: [],
    called: [],
  });
});

afterEach(() => {
  process.argv = savedArgv;
});

describe('runApp', () => {
  it('a second launch without the lock quits at once and builds nothing', async () => {
    app.hasLock = false;
    await started();
    expect(app.quitCalls).toBe(1);
    expect(BrowserWindow.created).toHaveLength(0);
    expect(hostState.options).toBeNull();
  });

  it('on ready: sandbox everywhere, guarded session, host for surface app, IPC, window, tray, sweeper', async () => {
    const { window } = await started();
    expect(app.sandboxEnabled).toBe(true);
    expect(session.defaultSession.permissionRequest).not.toBeNull();
    expect(hostState.options).toMatchObject({
      storePath: '/home/me/.local/share/runwarden/state.sqlite',
      surface: 'app',
      actorId: os.userInfo().username,
    });
    expect([...ipcMain.handlers.keys()].toSorted()).toEqual([...CHANNELS, LISTENING_CHANNEL].toSorted());
    expect(window?.loadedFile).toBe('/opt/Runwarden/resources/app.asar/out/renderer/index.html');
    expect(Tray.created).toHaveLength(1);
    expect(hostState.started).toBe(1);
    // The development Electron does not claim the runwarden:// scheme; a packaged app does.
    expect(app.protocolClients).toEqual([]);
  });

  it("gives the host the desktop's file opener, for a run's log file", async () => {
    await started();
    hostState.options?.openPath?.('/home/me/.local/share/runwarden/logs/run_a.log');
    expect(shell.opened).toEqual(['/home/me/.local/share/runwarden/logs/run_a.log']);
  });

  it('a packaged app registers the runwarden:// scheme', async () => {
    app.isPackaged = true;
    await started();
    expect(app.protocolClients).toEqual(['runwarden']);
  });

  it('guards every web contents created later (navigation, new windows)', async () => {
    await started();
    const other = new FakeWebContents();
    app.emit('web-contents-created', new FakeEvent(), other);
    const nav = new FakeEvent('https://evil.example/');
    other.emit('will-navigate', nav);
    expect(nav.defaultPrevented).toBe(true);
    expect(other.windowOpenHandler?.({ url: 'https://x' })).toEqual({ action: 'deny' });
  });

  it('IPC from the loaded window is dispatched; from anywhere else it is refused', async () => {
    const { window } = await started();
    const contents = loadPage(window);
    const handler = ipcMain.handlers.get('store:info');
    const ours = await handler?.({ sender: contents, senderFrame: contents.mainFrame }, {});
    expect(ours).toMatchObject({ ok: true });
    const stranger = new FakeWebContents(APP_PAGE);
    const theirs = await handler?.({ sender: stranger, senderFrame: stranger.mainFrame }, {});
    expect(theirs).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });

  it('a deep link at launch opens its run once the page has loaded', async () => {
    const { window } = await started(['runwarden', 'runwarden://run/run_42']);
    expect(window?.webContents.sent).toEqual([]);
    const contents = loadPage(window);
    expect(contents.sent).toContainEqual({ channel: 'push:open-run', payload: { runId: 'run_42' } });
  });

  it('a second launch with a deep link focuses this window and opens the run; junk links are ignored', async () => {
    const { window } = await started();
    const contents = loadPage(window);
    window?.hide();
    app.emit('second-instance', new FakeEvent(), ['runwarden', 'runwarden://run/../../etc']);
    expect(contents.sent.filter((s) => s.channel === 'push:open-run')).toEqual([]);
    expect(window?.visible).toBe(true);
    app.emit('second-instance', new FakeEvent(), ['runwarden', 'runwarden://run/r7']);
    expect(contents.sent).toContainEqual({ channel: 'push:open-run', payload: { runId: 'r7' } });
  });

  it('macOS open-url deep links are handled and their default prevented', async () => {
    const { window } = await started();
    const contents = loadPage(window);
    const event = new FakeEvent();
    app.emit('open-url', event, 'runwarden://run/r9');
    expect(event.defaultPrevented).toBe(true);
    expect(contents.sent).toContainEqual({ channel: 'push:open-run', payload: { runId: 'r9' } });
  });

  it('host pushes reach the page, and the tray is drawn from the host attention read, not a read of its own', async () => {
    const { window } = await started();
    const contents = loadPage(window);
    hostState.dispatched.length = 0;
    hostState.options?.push('attention', { counts: { stale: 1 }, needsYou: 1, tray: 'stale' });
    const summary: AttentionSummary = { counts: { stale: 1 }, needsYou: 1, items: [] };
    expect(hostState.options?.attention?.items).toBe(8);
    hostState.options?.attention?.onAttention({ summary, questions: [], closed: [] });
    await flush();
    expect(contents.sent).toContainEqual({
      channel: 'push:attention',
      payload: { counts: { stale: 1 }, needsYou: 1, tray: 'stale' },
    });
    expect(hostState.dispatched).toEqual([]);
    expect(Tray.created[0]?.tooltip).toBe('Runwarden: 1 run needs you (a runner stopped responding)');
  });

  it('the tray pause item changes the setting through the host', async () => {
    await started();
    await flush();
    hostState.called.length = 0;
    Tray.created[0]?.menu?.items.find((i) => i.label === 'Pause notifications')?.click?.();
    expect(hostState.called).toEqual([{ method: 'setNotificationsPaused', argument: true }]);
  });

  it('quit disposes everything: host (store), IPC handlers, tray, window', async () => {
    const { window } = await started();
    app.quit();
    expect(hostState.disposed).toBe(1);
    expect(ipcMain.handlers.size).toBe(0);
    expect(Tray.created[0]?.destroyed).toBe(true);
    expect(window?.destroyed).toBe(true);
    expect(app.listenerCount('second-instance')).toBe(0);
  });

  it('a store that cannot be opened is explained in a dialog, then the app quits', async () => {
    hostState.throwOnCreate = new Error('state.sqlite is not a Runwarden store; it was left unchanged.');
    await started();
    expect(dialog.errors).toEqual([
      {
        title: 'Runwarden cannot open its store',
        content: 'state.sqlite is not a Runwarden store; it was left unchanged.',
      },
    ]);
    expect(app.quitCalls).toBe(1);
    expect(BrowserWindow.created).toHaveLength(0);
  });

  it('takes its own identity before the lock: a development run does not share the installed app’s lock', async () => {
    app.hasLock = false;
    await started();
    expect(app.name).toBe('Runwarden Dev');
    expect(app.getPath('userData')).toBe('/home/me/.config/Runwarden Dev');
  });

  it('a packaged app has no default menu (no DevTools, Reload, Help), only zoom keys with the bar hidden; a development run keeps it', async () => {
    const dev = await started();
    expect(Menu.application).toBeUndefined();
    expect(dev.window?.menuBarVisible).toBe(true);
    resetFakeElectron();
    app.isPackaged = true;
    const packaged = await started();
    expect(JSON.stringify(Menu.application)).toMatch(/"View"/);
    expect(JSON.stringify(Menu.application)).not.toMatch(/toggleDevTools|reload|help/i);
    expect(packaged.window?.menuBarVisible).toBe(process.platform === 'darwin');
    expect(app.name).toBe('Runwarden');
  });

  it('opens runs after in-page view changes; after a new document, once the page listens again', async () => {
    const { window } = await started();
    const contents = loadPage(window);
    const opened = () => contents.sent.filter((s) => s.channel === 'push:open-run').map((s) => s.payload);
    contents.emit('did-start-loading');
    contents.emit('did-start-navigation', {
      isMainFrame: true,
      isSameDocument: true,
      url: `${APP_PAGE}#/v/failed`,
    });
    app.emit('second-instance', new FakeEvent(), ['runwarden', 'runwarden://run/r1']);
    expect(opened()).toEqual([{ runId: 'r1' }]);
    contents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false, url: APP_PAGE });
    app.emit('second-instance', new FakeEvent(), ['runwarden', 'runwarden://run/r2']);
    expect(opened()).toEqual([{ runId: 'r1' }]);
    loadPage(window);
    expect(opened()).toEqual([{ runId: 'r1' }, { runId: 'r2' }]);
  });

  it('a crashed renderer is reloaded, the person is told, and runs wait for the reloaded page', async () => {
    const { window } = await started();
    const contents = loadPage(window);
    contents.emit('render-process-gone', new FakeEvent(), { reason: 'crashed', exitCode: 139 });
    expect(contents.reloads).toBe(1);
    expect(dialog.messages).toEqual([
      expect.objectContaining({ message: 'The Runwarden window crashed and was reloaded.' }),
    ]);
    app.emit('second-instance', new FakeEvent(), ['runwarden', 'runwarden://run/r5']);
    expect(contents.sent.filter((s) => s.channel === 'push:open-run')).toEqual([]);
    loadPage(window);
    expect(contents.sent.filter((s) => s.channel === 'push:open-run')).toEqual([
      { channel: 'push:open-run', payload: { runId: 'r5' } },
    ]);
  });

  it('where no tray icon can show, closing the window quits the app (no tray menu to quit from)', async () => {
    trayHostState.found = 'absent';
    const { window } = await started();
    await flush();
    window?.show();
    expect(window?.requestClose()).toBe(true);
    expect(window?.minimized).toBe(false);
    expect(app.quitCalls).toBeGreaterThan(0);
  });

  it('a question answered through the tray menu goes to interactions:answer, and a notification click opens its run', async () => {
    const { window } = await started();
    const contents = loadPage(window);
    const question = {
      id: 'q9',
      runId: 'r9',
      kind: 'decision',
      title: 'Roll back?',
      prompt: '',
      choices: ['yes', 'no'],
      fields: null,
      hasDefault: false,
      defaultResponse: null,
      deadlineAt: null,
      status: 'pending',
      revision: 4,
    } as unknown as Interaction;
    const summary = {
      counts: { 'needs-answer': 1 },
      needsYou: 1,
      items: [
        { run: { id: 'r9', title: 'Deploy', workflow: 'deploy' }, display: { status: 'needs-answer' } },
      ],
    } as unknown as AttentionSummary;
    hostState.options?.attention?.onAttention({ summary, questions: [question], closed: [] });
    const item = Tray.created[0]?.menu?.items.find((i: FakeMenuItem) => i.label === 'Roll back? (Deploy)');
    hostState.dispatched.length = 0;
    item?.submenu?.find((i) => i.label === 'no')?.click?.();
    await flush();
    expect(hostState.dispatched).toEqual([
      {
        channel: 'interactions:answer',
        input: {
          interactionId: 'q9',
          interactionRevision: 4,
          idempotencyKey: 'quick:q9:r4:c1',
          payload: 'no',
        },
      },
    ]);
    expect(Tray.created[0]?.menu?.items.some((i: FakeMenuItem) => i.label === 'Roll back? (Deploy)')).toBe(
      false,
    );

    // A notification for another run, clicked after the person changed view in the window.
    hostState.options?.notifier.show({ title: 'Run failed', body: 'x', level: 'failure', runId: 'r3' });
    contents.emit('did-start-navigation', {
      isMainFrame: true,
      isSameDocument: true,
      url: `${APP_PAGE}#/v/failed`,
    });
    Notification.created.at(-1)?.emit('click');
    expect(contents.sent).toContainEqual({ channel: 'push:open-run', payload: { runId: 'r3' } });
  });
});

describe("runApp: Settings' Updates section", () => {
  it('a development build gives the host an Updates section that never updates', async () => {
    await started();
    const updates = hostState.options?.updates;
    expect(updates?.status()).toMatchObject({
      phase: 'off',
      currentVersion: '0.1.0',
      plan: { kind: 'off', reason: 'Development builds never update.' },
    });
    expect(updates?.check().phase).toBe('off');
    expect(() => updates?.restart()).toThrow('No update is downloaded yet');
    expect(updaterState.checks).toBe(0);
  });

  // A Linux build that is neither the AppImage nor a deb is only told of new versions: the updater is made.
  it.runIf(process.platform === 'linux')(
    'an installed build checks at start while the setting is on, and follows the setting',
    async () => {
      const resources = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-resources-'));
      fs.writeFileSync(
        path.join(resources, 'app-update.yml'),
        'provider: github\nowner: someone\nrepo: runwarden\n',
      );
      const saved = { resourcesPath: process.resourcesPath, appImage: process.env.APPIMAGE };
      Object.defineProperty(process, 'resourcesPath', { value: resources, configurable: true });
      delete process.env.APPIMAGE;
      updaterState.checks = 0;
      try {
        app.isPackaged = true;
        // The autostart entry a packaged Linux build keeps (launch at login is off: none) goes under here.
        app.setPath('home', resources);
        await started();
        await flush();
        expect(updaterState.checks).toBe(1);
        expect(hostState.options?.updates?.status()).toMatchObject({
          phase: 'available',
          latestVersion: '0.2.0',
          downloadUrl: 'https://github.com/someone/runwarden/releases/tag/v0.2.0',
        });
        const settings = hostState.settings as Settings;
        // Saving other settings with the check still on does not check again; off then on checks once.
        hostState.options?.onSettingsChanged?.({ ...settings, closeToTray: false });
        hostState.options?.onSettingsChanged?.({ ...settings, autoUpdateCheck: false });
        hostState.options?.onSettingsChanged?.({ ...settings, autoUpdateCheck: true });
        await flush();
        expect(updaterState.checks).toBe(2);
        // "Check now" works with the automatic check off too.
        hostState.options?.onSettingsChanged?.({ ...settings, autoUpdateCheck: false });
        hostState.options?.updates?.check();
        await flush();
        expect(updaterState.checks).toBe(3);
      } finally {
        app.quit();
        Object.defineProperty(process, 'resourcesPath', { value: saved.resourcesPath, configurable: true });
        if (saved.appImage !== undefined) process.env.APPIMAGE = saved.appImage;
        fs.rmSync(resources, { recursive: true, force: true });
      }
    },
  );
});

describe('runApp: closing the last window, and starting hidden with no tray icon', () => {
  it('closing every window ends the app only with close-to-tray off', async () => {
    await started();
    app.emit('window-all-closed');
    expect(app.quitCalls).toBe(0);
    if (hostState.settings === null) throw new Error('no host');
    hostState.settings.closeToTray = false;
    app.emit('window-all-closed');
    expect(app.quitCalls).toBe(1);
  });

  it('a window started hidden is shown when no tray icon can show; with a tray icon it stays hidden', async () => {
    trayHostState.found = 'absent';
    const { window: shown } = await started(['electron', '.', '--hidden']);
    await flush();
    expect(shown?.visible).toBe(true);

    resetFakeElectron();
    trayHostState.found = 'present';
    const { window: hidden } = await started(['electron', '.', '--hidden']);
    await flush();
    expect(hidden?.visible).toBe(false);
  });
});

describe('lifecycle phases alone', () => {
  it('quitsWhenAllClosed: only a known close-to-tray off quits', () => {
    expect(quitsWhenAllClosed({ closeToTray: false })).toBe(true);
    expect(quitsWhenAllClosed({ closeToTray: true })).toBe(false);
    // Before the store is open nothing is known: the app stays.
    expect(quitsWhenAllClosed(null)).toBe(false);
  });

  it('trayHostOutcome: reveal only a window started hidden and not yet visible, where no icon can show', () => {
    expect(trayHostOutcome('present', true, false)).toBe('tray');
    expect(trayHostOutcome('absent', false, false)).toBe('no-tray');
    expect(trayHostOutcome('absent', true, true)).toBe('no-tray');
    expect(trayHostOutcome('absent', true, false)).toBe('no-tray-reveal');
    expect(trayHostOutcome('unknown', true, false)).toBe('no-tray-reveal');
  });

  it('rendererGoneNotice says whether the window was reloaded, with the reason and exit code', () => {
    expect(rendererGoneNotice({ reason: 'oom', exitCode: 9 }, true)).toEqual({
      type: 'warning',
      title: 'Runwarden',
      message: 'The Runwarden window crashed and was reloaded.',
      detail: 'Nothing was lost: runs and answers live in the store. (oom, exit code 9)',
    });
    expect(rendererGoneNotice({ reason: 'crashed', exitCode: 139 }, false)).toMatchObject({
      message: 'The Runwarden window keeps crashing.',
      detail: 'Quit and start Runwarden again. (crashed, exit code 139)',
    });
  });

  it('createNotificationHealth logs the first failure only, and one shown notification clears it', () => {
    const logged: string[] = [];
    const changes: Array<string | null> = [];
    const health = createNotificationHealth({
      log: (message) => logged.push(message),
      changed: (unavailable) => changes.push(unavailable),
    });
    health.shown();
    expect(changes).toEqual([]);
    health.failed('not signed');
    health.failed('still not signed');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('not signed');
    health.shown();
    health.shown();
    expect(changes).toEqual(['not signed', 'still not signed', null]);
    health.failed('server gone');
    expect(logged).toHaveLength(2);
  });

  it('markRunRead asks the host to mark that run read, and reports a refusal', async () => {
    const asked: string[] = [];
    const host: Pick<AppHost, 'markRunRead'> = {
      markRunRead: async (runId) => {
        asked.push(runId);
        return { ok: false, error: { code: 'CONFLICT', message: 'busy' } };
      },
    };
    const reported: string[] = [];
    await markRunRead(host, 'r1', (message) => reported.push(message));
    expect(asked).toEqual(['r1']);
    expect(reported).toEqual(['runwarden: could not mark notifications read: busy']);
  });
});
