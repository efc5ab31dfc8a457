/**
 * The Electron shell's lifecycle (SPEC §1, §7): single-instance lock with deep-link forwarding, the store
 * opened through the host services, window + tray + notifications + IPC wired to them, and one quit path
 * that disposes everything. Thin on purpose: every decision lives in a module tested on its own.
 */
import { app, dialog, ipcMain, Notification, session } from 'electron';
import os from 'node:os';
import { PUSH_CHANNEL_PREFIX, type PushEvent } from '../../shared/channel-names';
import type { Pushes } from '../../shared/contract';
import type { AttentionSummary, Settings } from '../../shared/views';
import { createAppHost } from '../services/app-host';
import type { AppHost, PushSink } from '../services/host-types';
import { resolveStorePath } from '../store';
import { DEEP_LINK_SCHEME, findDeepLink, parseDeepLink } from './deep-link';
import { DisposableStore } from './disposables';
import { isTrustedSender, registerIpcHandlers } from './ipc-main';
import { applyLaunchAtLogin, startsHidden } from './login-item';
import { createNotifier } from './notifier';
import { guardSession, guardWebContents } from './security-guards';
import { createRunwardenTray, TRAY_MENU_RUNS, type RunwardenTray } from './tray';
import { appEntryPoints, createMainWindow, type MainWindow } from './window';

const log = (message: string, error?: unknown): void => {
  if (error === undefined) console.error(message);
  else console.error(message, error);
};

/** The OS user name, recorded as the actor of every command from the window. */
export function currentActorId(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
}

/** Start-up cannot go on: say why in a dialog (it works before and after ready) and quit. */
function fail(title: string, message: string): void {
  dialog.showErrorBox(title, message);
  app.quit();
}

/** Runs the app. `mainModuleUrl` is out/main/index.js's `import.meta.url` (entry points are beside it). */
export function runApp(mainModuleUrl: string): void {
  const disposables = new DisposableStore((error) => log('runwarden: a cleanup step failed', error));
  const entry = appEntryPoints(mainModuleUrl);
  let host: AppHost | null = null;
  let mainWindow: MainWindow | null = null;
  let tray: RunwardenTray | null = null;
  let quitting = false;
  let pageLoaded = false;
  let pendingRunId: string | null = findDeepLink(process.argv)?.runId ?? null;

  // Checklist 4: every renderer sandboxed, whatever a window's options say.
  app.enableSandbox();

  // A second launch hands its arguments (and any deep link) to this one and exits.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }

  const settings = (): Settings | null => host?.settings ?? null;

  const reveal = (): void => mainWindow?.reveal();

  const sendPush = <E extends PushEvent>(event: E, payload: Pushes[E]): void => {
    const contents = mainWindow?.window.webContents;
    if (contents === undefined || contents.isDestroyed()) return;
    contents.send(PUSH_CHANNEL_PREFIX + event, payload);
  };

  /** Shows the window and tells the UI to open a run; queued until the page can hear it. */
  const openRun = (runId: string): void => {
    if (mainWindow === null || !pageLoaded) {
      pendingRunId = runId;
      reveal();
      return;
    }
    reveal();
    sendPush('open-run', { runId });
  };

  let trayRefresh: Promise<void> | null = null;
  let trayRefreshAgain = false;
  /** Re-reads what needs the person and redraws the tray; calls while one is running coalesce into one more. */
  const refreshTray = (): void => {
    if (trayRefresh !== null) {
      trayRefreshAgain = true;
      return;
    }
    const current = host;
    if (current === null || tray === null) return;
    trayRefresh = current
      .dispatch('attention:summary', { limit: TRAY_MENU_RUNS })
      .then((result) => {
        const summary: AttentionSummary | null = result.ok ? result.value : null;
        if (!result.ok) log(`runwarden: the tray could not read attention: ${result.error.message}`);
        tray?.update(summary, current.settings.notificationsPaused);
      })
      .catch((error: unknown) => log('runwarden: tray refresh failed', error))
      .finally(() => {
        trayRefresh = null;
        if (trayRefreshAgain) {
          trayRefreshAgain = false;
          refreshTray();
        }
      });
  };

  const push: PushSink = (event, payload) => {
    sendPush(event, payload);
    if (event === 'attention') refreshTray();
  };

  const onSettingsChanged = (next: Settings): void => {
    applyLaunchAtLogin(app, next.launchAtLogin, process.platform);
    refreshTray();
  };

  const onSecondInstance = (_event: Electron.Event, argv: string[]): void => {
    const link = findDeepLink(argv);
    if (link !== null) openRun(link.runId);
    else reveal();
  };
  app.on('second-instance', onSecondInstance);
  disposables.add(() => app.off('second-instance', onSecondInstance));

  // macOS delivers deep links as an event, possibly before ready.
  const onOpenUrl = (event: Electron.Event, url: string): void => {
    event.preventDefault();
    const link = parseDeepLink(url);
    if (link !== null) openRun(link.runId);
  };
  app.on('open-url', onOpenUrl);
  disposables.add(() => app.off('open-url', onOpenUrl));

  // Packaged builds own the scheme; a development Electron registering it would hijack the installed app's.
  if (app.isPackaged && !app.isDefaultProtocolClient(DEEP_LINK_SCHEME)) {
    app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);
  }

  // Checklist 13, 14 and 12 for every web contents ever created, not only the main window.
  const onWebContentsCreated = (_event: Electron.Event, contents: Electron.WebContents): void => {
    guardWebContents(contents, entry.indexUrl);
  };
  app.on('web-contents-created', onWebContentsCreated);
  disposables.add(() => app.off('web-contents-created', onWebContentsCreated));

  const onBeforeQuit = (): void => {
    quitting = true;
  };
  app.on('before-quit', onBeforeQuit);
  app.on('will-quit', () => disposables.dispose());
  app.on('window-all-closed', () => {
    // Windows only close for good when close-to-tray is off (or on quit): then the app ends with them.
    if (settings()?.closeToTray === false) app.quit();
  });
  app.on('activate', reveal);

  app
    .whenReady()
    .then(() => {
      guardSession(session.defaultSession, entry.indexUrl);

      const notifier = createNotifier({
        create: (options) => new Notification(options),
        isSupported: () => Notification.isSupported(),
        openRun,
        openWindow: reveal,
        paused: () => settings()?.notificationsPaused ?? false,
        platform: process.platform,
      });

      try {
        host = createAppHost({
          storePath: resolveStorePath({ env: process.env }),
          surface: 'app',
          actorId: currentActorId(),
          notifier,
          push,
          onSettingsChanged,
        });
      } catch (error) {
        log('runwarden: the store could not be opened', error);
        fail('Runwarden cannot open its store', error instanceof Error ? error.message : String(error));
        return;
      }
      const openedHost = host;
      disposables.add(() => openedHost.dispose());

      disposables.add(
        registerIpcHandlers({
          ipcMain,
          dispatch: (channel, input) => openedHost.dispatch(channel, input),
          isTrusted: (event) => isTrustedSender(event, mainWindow?.window ?? null, entry.indexUrl),
          log,
        }),
      );

      mainWindow = createMainWindow({
        entry,
        devTools: !app.isPackaged,
        closeToTray: () => openedHost.settings.closeToTray,
        isQuitting: () => quitting,
        onCloseRequestedQuit: () => app.quit(),
        startHidden: startsHidden(process.argv, app.getLoginItemSettings().wasOpenedAtLogin),
        log,
      });
      const createdWindow = mainWindow;
      disposables.add(() => createdWindow.dispose());
      const contents = createdWindow.window.webContents;
      const onLoaded = (): void => {
        pageLoaded = true;
        if (pendingRunId !== null) {
          const runId = pendingRunId;
          pendingRunId = null;
          openRun(runId);
        }
      };
      // oxlint-disable-next-line unicorn/consistent-function-scoping -- it writes this run's pageLoaded
      const onLoading = (): void => {
        pageLoaded = false;
      };
      contents.on('did-finish-load', onLoaded);
      contents.on('did-start-loading', onLoading);

      tray = createRunwardenTray({
        openRun,
        openWindow: reveal,
        setNotificationsPaused: (paused) => {
          openedHost
            .dispatch('settings:set', { patch: { notificationsPaused: paused } })
            .then((result) => {
              if (!result.ok) log(`runwarden: could not change notifications: ${result.error.message}`);
            })
            .catch((error: unknown) => log('runwarden: could not change notifications', error));
        },
        quit: () => app.quit(),
      });
      const createdTray = tray;
      disposables.add(() => createdTray.dispose());

      applyLaunchAtLogin(app, openedHost.settings.launchAtLogin, process.platform);
      openedHost.start();
      refreshTray();
    })
    .catch((error: unknown) => {
      log('runwarden: start-up failed', error);
      fail('Runwarden cannot start', error instanceof Error ? error.message : String(error));
    });
}
