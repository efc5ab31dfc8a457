/**
 * The Electron shell's lifecycle: identity and single-instance lock with deep-link forwarding, the store
 * opened through the host services, window + tray + notifications + IPC wired to them, and one quit path
 * that disposes everything. Thin on purpose: every decision lives in a module tested on its own.
 */
import { app, dialog, ipcMain, Menu, Notification, session, shell } from 'electron';
import os from 'node:os';
import { PUSH_CHANNEL_PREFIX, type PushEvent } from '../../shared/channel-names';
import type { Pushes } from '../../shared/contract';
import type { Interaction } from '../../shared/domain';
import type { Settings } from '../../shared/views';
import { cliPathActions, currentCliPathSystem } from '../cli/cli-on-path';
import { createAppHost } from '../services/app-host';
import type { AppHost, PushSink, ShellAttention } from '../services/host-types';
import { resolveStorePath } from '../store';
import { applyAppIdentity } from './app-identity';
import { applicationMenu } from './app-menu';
import { registerAppImageScheme } from './appimage-scheme';
import { DEEP_LINK_SCHEME, findDeepLink, parseDeepLink } from './deep-link';
import { DisposableStore } from './disposables';
import { isTrustedSender, registerIpcHandlers, registerListeningHandler } from './ipc-main';
import { applyLaunchAtLogin, startsHidden } from './login-item';
import { applyXdgAutostart } from './xdg-autostart';
import { createNotifier, type DesktopNotifier } from './notifier';
import { createQuickAnswers, type QuickAnswer } from './quick-answers';
import { createRunOpener } from './run-opener';
import { guardSession, guardWebContents } from './security-guards';
import { createRunwardenTray, TRAY_MENU_RUNS, type RunwardenTray } from './tray';
import { runCommand } from './run-command';
import { canHideToTray, detectTrayHost, type TrayHost } from './tray-host';
import { createTestHooks, testHooksEnabled } from './test-hooks';
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
  let notifier: DesktopNotifier | null = null;
  let quitting = false;
  let attention: ShellAttention | null = null;
  let notificationsUnavailable: string | null = null;
  // Until the bus has answered, a Linux desktop is not assumed to show the icon.
  let trayHost: TrayHost = process.platform === 'linux' ? 'unknown' : 'present';
  let trayHostSettled = false;

  // Before the lock: the lock lives in the userData folder, which differs for `npm start` and the installed app.
  const identity = applyAppIdentity(app, process.platform);

  // Every renderer sandboxed, whatever a window's options say.
  app.enableSandbox();

  // A second launch hands its arguments (and any deep link) to this one and exits.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }

  // Asked early, in parallel with start-up; the answer decides what closing the window does.
  const trayHostFound = detectTrayHost(process.platform, process.env);

  const settings = (): Settings | null => host?.settings ?? null;

  const reveal = (): void => mainWindow?.reveal();

  const sendPush = <E extends PushEvent>(event: E, payload: Pushes[E]): boolean => {
    const contents = mainWindow?.window.webContents;
    if (contents === undefined || contents.isDestroyed()) return false;
    contents.send(PUSH_CHANNEL_PREFIX + event, payload);
    return true;
  };

  const opener = createRunOpener(
    { reveal, push: (runId) => sendPush('open-run', { runId }) },
    findDeepLink(process.argv)?.runId ?? null,
  );
  const openRun = (runId: string): void => opener.open(runId);

  const answers = createQuickAnswers({
    dispatch: (channel, input) => {
      if (host === null)
        return Promise.resolve({ ok: false, error: { code: 'INTERNAL', message: 'Not started.' } });
      return host.dispatch(channel, input);
    },
    changed: () => redrawTray(),
    failed: (answer, error) => {
      log(`runwarden: the answer to ${answer.interactionId} was not recorded: ${error.message}`);
      // Said where the person looked: a notification if they can be shown, and the question is back in the tray.
      notifier?.show({
        title: 'Your answer was not recorded',
        body: error.message,
        level: 'failure',
        runId: answer.runId,
      });
    },
  });

  /** Redraws the tray from the latest attention read (no read of its own). */
  const redrawTray = (): void => {
    tray?.update(attention?.summary ?? null, settings()?.notificationsPaused ?? false, {
      questions: attention?.questions ?? [],
      hidden: answers.hidden,
      notificationsUnavailable,
    });
  };

  const onAttention = (next: ShellAttention): void => {
    attention = next;
    const open = next.questions.map((q) => q.id);
    answers.reconcile(open);
    notifier?.retire({
      open: new Set(open),
      runs: new Set(next.summary.items.map((item) => item.run.id)),
      complete: next.summary.items.length >= next.summary.needsYou,
    });
    redrawTray();
  };

  const questionById = (interactionId: string): Interaction | null =>
    answers.hidden.has(interactionId)
      ? null
      : (attention?.questions.find((q) => q.id === interactionId) ?? null);

  /** Marks the run's unread notifications read, so the window's list agrees with what was clicked. */
  const markRunRead = (runId: string): void => {
    const current = host;
    if (current === null) return;
    void current
      .dispatch('notifications:list', { unreadOnly: true, limit: 200 })
      .then((listed) => {
        if (!listed.ok) return null;
        const ids = listed.value.filter((n) => n.runId === runId).map((n) => n.id);
        return ids.length === 0 ? null : current.dispatch('notifications:markRead', { ids });
      })
      .then((marked) => {
        if (marked !== null && !marked.ok)
          log(`runwarden: could not mark notifications read: ${marked.error.message}`);
      })
      .catch((error: unknown) => log('runwarden: could not mark notifications read', error));
  };

  const push: PushSink = (event, payload) => {
    sendPush(event, payload);
  };

  const linuxAutostart = (enabled: boolean): void => {
    try {
      applyXdgAutostart(enabled, { env: process.env, home: app.getPath('home'), execPath: process.execPath });
    } catch (error) {
      log('runwarden: could not update the autostart entry', error);
    }
  };

  const onSettingsChanged = (next: Settings): void => {
    applyLaunchAtLogin(app, next.launchAtLogin, process.platform, app.isPackaged, linuxAutostart);
    redrawTray();
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
  // An AppImage installs no desktop entry of its own: it writes one so the desktop can hand it links.
  if (app.isPackaged && process.platform === 'linux') {
    void registerAppImageScheme({
      env: process.env,
      home: os.homedir(),
      scheme: DEEP_LINK_SCHEME,
      run: runCommand,
    }).then((outcome) => {
      if (typeof outcome === 'object')
        log(`runwarden: could not register runwarden:// links: ${outcome.failed}`);
    });
  }

  // Navigation, new-window and webview guards for every web contents ever created, not only the main window.
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
      const menu = applicationMenu({
        packaged: app.isPackaged,
        platform: process.platform,
        productName: identity.name,
      });
      if (menu !== 'default') Menu.setApplicationMenu(menu === null ? null : Menu.buildFromTemplate(menu));

      const hooks = testHooksEnabled(app.isPackaged, process.env);
      const shownNotifications: Notification[] = [];
      const notificationEvents = { shown: 0, failed: [] as string[] };
      const createdNotifier = createNotifier({
        create: (options) => {
          const notification = new Notification(options);
          if (hooks) {
            shownNotifications.push(notification);
            notification.on('show', () => notificationEvents.shown++);
            notification.on('failed', (_event, error) => notificationEvents.failed.push(String(error)));
          }
          return notification;
        },
        isSupported: () => Notification.isSupported(),
        openRun,
        openWindow: reveal,
        paused: () => settings()?.notificationsPaused ?? false,
        platform: process.platform,
        questionById,
        answer: (answer: QuickAnswer) => void answers.answer(answer),
        markRead: markRunRead,
        failed: (error) => {
          if (notificationsUnavailable === null) {
            log(
              `runwarden: a notification could not be shown (${error}); the tray shows what needs you instead`,
            );
          }
          notificationsUnavailable = error;
          redrawTray();
        },
        // One failure is not forever (a permission granted later, a notification server restarted).
        shown: () => {
          if (notificationsUnavailable === null) return;
          notificationsUnavailable = null;
          redrawTray();
        },
      });
      notifier = createdNotifier;
      // Windows: clicks and buttons of toasts whose Notification object is gone (collected, or from before a
      // restart and still in Action Center) arrive here only (docs/DESKTOP-CHECKLIST.md#windows).
      if (process.platform === 'win32') {
        Notification.handleActivation((details) => createdNotifier.activate(details));
      }

      try {
        host = createAppHost({
          storePath: resolveStorePath({ env: process.env }),
          surface: 'app',
          actorId: currentActorId(),
          notifier: createdNotifier,
          push,
          onSettingsChanged,
          attention: { items: TRAY_MENU_RUNS, onAttention },
          // A run's log file (checked to be in the store's logs folder) in the desktop's text viewer.
          openPath: (path) => {
            void shell.openPath(path).then((problem) => {
              if (problem !== '') log(`runwarden: could not open ${path}: ${problem}`);
            });
          },
          // Settings' "Install 'runwarden' command in PATH" (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
          cliPath: cliPathActions(currentCliPathSystem(mainModuleUrl)),
        });
      } catch (error) {
        log('runwarden: the store could not be opened', error);
        fail('Runwarden cannot open its store', error instanceof Error ? error.message : String(error));
        return;
      }
      const openedHost = host;
      disposables.add(() => openedHost.dispose());

      const isTrusted = (event: Parameters<typeof isTrustedSender>[0]): boolean =>
        isTrustedSender(event, mainWindow?.window ?? null, entry.indexUrl);
      disposables.add(
        registerIpcHandlers({
          ipcMain,
          dispatch: (channel, input) => openedHost.dispatch(channel, input),
          isTrusted,
          log,
        }),
      );
      disposables.add(
        registerListeningHandler({
          ipcMain,
          isTrusted,
          log,
          onListening: (events) => opener.listening(events),
        }),
      );

      const startHidden = startsHidden(process.argv, app.getLoginItemSettings().wasOpenedAtLogin);
      mainWindow = createMainWindow({
        entry,
        devTools: !app.isPackaged,
        closeToTray: () => openedHost.settings.closeToTray,
        canHideToTray: () => canHideToTray(trayHost),
        isQuitting: () => quitting,
        onCloseRequestedQuit: () => app.quit(),
        startHidden,
        onRendererGone: (details, reloaded) => {
          opener.pageGone();
          void dialog.showMessageBox({
            type: 'warning',
            title: 'Runwarden',
            message: reloaded
              ? 'The Runwarden window crashed and was reloaded.'
              : 'The Runwarden window keeps crashing.',
            detail: `${
              reloaded
                ? 'Nothing was lost: runs and answers live in the store.'
                : 'Quit and start Runwarden again.'
            } (${details.reason}, exit code ${details.exitCode})`,
          });
        },
        log,
      });
      const createdWindow = mainWindow;
      disposables.add(() => createdWindow.dispose());
      // A new document (reload, or anything that replaces the page) has to say again that it listens.
      const onStartNavigation = (
        details: Electron.Event<Electron.WebContentsDidStartNavigationEventParams>,
      ): void => {
        if (details.isMainFrame && !details.isSameDocument) opener.pageGone();
      };
      createdWindow.window.webContents.on('did-start-navigation', onStartNavigation);

      tray = createRunwardenTray({
        openRun,
        openWindow: reveal,
        answer: (answer) => void answers.answer(answer),
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
      if (hooks) {
        Object.assign(globalThis, {
          runwardenTestHooks: createTestHooks({
            trayMenu: () => createdTray.menu,
            notifications: () => shownNotifications,
            emitClick: (notification) => (notification as Notification).emit('click', {}),
            canHideToTray: () => canHideToTray(trayHost),
            trayHostSettled: () => trayHostSettled,
            nativeTray: () => createdTray.native(),
            notificationEvents: () => ({ ...notificationEvents, failed: [...notificationEvents.failed] }),
          }),
        });
      }

      void trayHostFound.then((found) => {
        trayHost = found;
        trayHostSettled = true;
        if (canHideToTray(found)) return;
        log(
          'runwarden: no tray icon host was found (on GNOME, install the AppIndicator extension); ' +
            'closing the window quits it instead of hiding it',
        );
        // Started hidden with nowhere to come back from: show the window after all.
        if (startHidden && !createdWindow.window.isVisible()) reveal();
      });

      if (
        !applyLaunchAtLogin(
          app,
          openedHost.settings.launchAtLogin,
          process.platform,
          app.isPackaged,
          linuxAutostart,
        )
      ) {
        if (openedHost.settings.launchAtLogin && !app.isPackaged) {
          log('runwarden: "launch at login" applies to the installed app, not to `npm start`');
        }
      }
      openedHost.start();
      redrawTray();
    })
    .catch((error: unknown) => {
      log('runwarden: start-up failed', error);
      fail('Runwarden cannot start', error instanceof Error ? error.message : String(error));
    });
}
