/**
 * The Electron shell's lifecycle, in named phases (docs/DESKTOP.md#start-up): identity and single-instance
 * lock, the shell's shared callbacks, app events (deep links, guards, quit), then on ready: menu, notifications,
 * store (the host services), IPC, window, tray, tray host, login item, and one quit path that disposes
 * everything. Thin on purpose: every decision lives in a module or phase tested on its own.
 */
import { app, dialog, ipcMain, Menu, Notification, session, shell } from 'electron';
import os from 'node:os';
import { PUSH_CHANNEL_PREFIX, type PushEvent } from '../../shared/channel-names';
import type { Pushes } from '../../shared/contract';
import type { Interaction } from '../../shared/domain';
import type { Settings } from '../../shared/views';
import { cliPathActions, currentCliPathSystem } from '../platform/cli-on-path';
import { createAppHost } from '../services/app-host';
import type { AppHost, ShellAttention } from '../services/host-types';
import { resolveStorePath } from '../store';
import { applyAppIdentity, type AppIdentity } from './app-identity';
import { applicationMenu, hideMenuBar } from './app-menu';
import { offerApplicationsFolder } from './applications-folder';
import { registerAppImageScheme } from './appimage-scheme';
import { DEEP_LINK_SCHEME, findDeepLink, parseDeepLink } from './deep-link';
import { DisposableStore } from './disposables';
import { isTrustedSender, registerIpcHandlers, registerListeningHandler } from './ipc-main';
import { applyLaunchAtLogin, loginItemApprovalNotice, startsHidden } from './login-item';
import { applyXdgAutostart } from './xdg-autostart';
import { createNotifier, openQuestionsOf, type DesktopNotifier } from './notifier';
import { createQuickAnswers, type QuickAnswer, type QuickAnswers } from './quick-answers';
import { createRunOpener, type RunOpener } from './run-opener';
import { guardSession, guardWebContents } from './security-guards';
import { createRunwardenTray, TRAY_MENU_RUNS, type RunwardenTray } from './tray';
import { runCommand } from './run-command';
import { canHideToTray, detectTrayHost, type TrayHost } from './tray-host';
import { createTestHooks, testHooksEnabled } from './test-hooks';
import { startAppUpdates, type AppUpdates } from './updater';
import { updateActions } from './update-controller';
import { macDeveloperIdSigned, updateNotice } from './update-policy';
import { appEntryPoints, createMainWindow, type AppEntryPoints, type MainWindow } from './window';

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
  const identity = claimInstance();
  if (identity === null) return;
  // Asked early, in parallel with start-up; the answer decides what closing the window does.
  const trayHostFound = detectTrayHost(process.platform, process.env);
  const state = createShellState(appEntryPoints(mainModuleUrl));
  const actions = createShellActions(state);
  wireAppEvents(state, actions);
  claimDeepLinkScheme();
  app
    .whenReady()
    .then(() => startWhenReady({ state, actions, identity, mainModuleUrl, trayHostFound }))
    .catch((error: unknown) => {
      log('runwarden: start-up failed', error);
      fail('Runwarden cannot start', error instanceof Error ? error.message : String(error));
    });
}

/** What the phases share: filled in as start-up goes on, read by the callbacks wired before it. */
interface ShellState {
  readonly entry: AppEntryPoints;
  readonly disposables: DisposableStore;
  host: AppHost | null;
  mainWindow: MainWindow | null;
  tray: RunwardenTray | null;
  notifier: DesktopNotifier | null;
  quitting: boolean;
  attention: ShellAttention | null;
  notificationsUnavailable: string | null;
  trayHost: TrayHost;
  trayHostSettled: boolean;
  updates: AppUpdates | null;
}

function createShellState(entry: AppEntryPoints): ShellState {
  return {
    entry,
    disposables: new DisposableStore((error) => log('runwarden: a cleanup step failed', error)),
    host: null,
    mainWindow: null,
    tray: null,
    notifier: null,
    quitting: false,
    attention: null,
    notificationsUnavailable: null,
    // Until the bus has answered, a Linux desktop is not assumed to show the icon.
    trayHost: process.platform === 'linux' ? 'unknown' : 'present',
    trayHostSettled: false,
    updates: null,
  };
}

/**
 * Phase "identity": name and userData folder, the sandbox, then the single-instance lock. Null: another
 * instance holds the lock (it gets this launch's arguments and deep link) and this one quits.
 */
function claimInstance(): AppIdentity | null {
  // Before the lock: the lock lives in the userData folder, which differs for `npm start` and the installed app.
  const identity = applyAppIdentity(app, process.platform);
  // Every renderer sandboxed, whatever a window's options say.
  app.enableSandbox();
  // A second launch hands its arguments (and any deep link) to this one and exits.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  return identity;
}

/** The callbacks every later phase is given; made before anything exists, they read the Shell when called. */
interface ShellActions {
  reveal(): void;
  sendPush<E extends PushEvent>(event: E, payload: Pushes[E]): boolean;
  opener: RunOpener;
  openRun(runId: string): void;
  answers: QuickAnswers;
  /** Redraws the tray from the latest attention read (no read of its own). */
  redrawTray(): void;
  onAttention(next: ShellAttention): void;
  questionById(interactionId: string): Interaction | null;
  markRunRead(runId: string): void;
  onSettingsChanged(next: Settings): void;
}

function createShellActions(state: ShellState): ShellActions {
  const settings = (): Settings | null => state.host?.settings ?? null;
  const reveal = (): void => state.mainWindow?.reveal();
  const sendPush = <E extends PushEvent>(event: E, payload: Pushes[E]): boolean => {
    const contents = state.mainWindow?.window.webContents;
    if (contents === undefined || contents.isDestroyed()) return false;
    contents.send(PUSH_CHANNEL_PREFIX + event, payload);
    return true;
  };
  const opener = createRunOpener(
    { reveal, push: (runId) => sendPush('open-run', { runId }) },
    findDeepLink(process.argv)?.runId ?? null,
  );
  const redrawTray = (): void => {
    state.tray?.update(state.attention?.summary ?? null, settings()?.notificationsPaused ?? false, {
      questions: state.attention?.questions ?? [],
      hidden: answers.hidden,
      notificationsUnavailable: state.notificationsUnavailable,
    });
  };
  const answers = createShellAnswers(state, redrawTray);
  return {
    reveal,
    sendPush,
    opener,
    openRun: (runId) => opener.open(runId),
    answers,
    redrawTray,
    onAttention: (next) => {
      state.attention = next;
      const open = next.questions.map((q) => q.id);
      answers.reconcile(open);
      state.notifier?.retire(openQuestionsOf(next));
      redrawTray();
      state.updates?.attentionChanged();
    },
    questionById: (interactionId) =>
      answers.hidden.has(interactionId)
        ? null
        : (state.attention?.questions.find((q) => q.id === interactionId) ?? null),
    markRunRead: (runId) => {
      if (state.host !== null) markRunRead(state.host, runId);
    },
    onSettingsChanged: (next) => {
      const turnedOn = next.launchAtLogin && !launchAtLogin;
      launchAtLogin = next.launchAtLogin;
      if (
        applyLaunchAtLogin(app, next.launchAtLogin, process.platform, app.isPackaged, linuxAutostart) &&
        turnedOn
      ) {
        askLoginItemApproval();
      }
      state.updates?.setAutomatic(next.autoUpdateCheck);
      redrawTray();
    },
  };
}

/** Answers from the tray and notification buttons, through the host once it is open (quick-answers.ts). */
function createShellAnswers(state: ShellState, redrawTray: () => void): QuickAnswers {
  return createQuickAnswers({
    dispatch: (channel, input) => {
      if (state.host === null)
        return Promise.resolve({ ok: false, error: { code: 'INTERNAL', message: 'Not started.' } });
      return state.host.dispatch(channel, input);
    },
    changed: () => redrawTray(),
    failed: (answer, error) => {
      log(`runwarden: the answer to ${answer.interactionId} was not recorded: ${error.message}`);
      // Said where the person looked: a notification if they can be shown, and the question is back in the tray.
      state.notifier?.show({
        title: 'Your answer was not recorded',
        body: error.message,
        level: 'failure',
        runId: answer.runId,
      });
    },
  });
}

/** Marks the run's unread notifications read, so the window's list agrees with what was clicked. */
export function markRunRead(
  host: Pick<AppHost, 'markRunRead'>,
  runId: string,
  report: (message: string, error?: unknown) => void = log,
): Promise<void> {
  return host
    .markRunRead(runId)
    .then((marked) => {
      if (!marked.ok) report(`runwarden: could not mark notifications read: ${marked.error.message}`);
    })
    .catch((error: unknown) => report('runwarden: could not mark notifications read', error));
}

/** The stored setting as last applied: the approval notice is shown when it is turned on, not at every change. */
let launchAtLogin = false;

/** macOS 13+: a login item waiting for approval in System Settings is said, once per turning it on. */
function askLoginItemApproval(): void {
  if (process.platform !== 'darwin') return;
  const notice = loginItemApprovalNotice(process.platform, true, app.getLoginItemSettings().status);
  if (notice !== null) void dialog.showMessageBox(notice);
}

const linuxAutostart = (enabled: boolean): void => {
  try {
    applyXdgAutostart(enabled, { env: process.env, home: app.getPath('home'), execPath: process.execPath });
  } catch (error) {
    log('runwarden: could not update the autostart entry', error);
  }
};

/** With close-to-tray off, closing the last window ends the app; otherwise the app lives on in the tray. */
export function quitsWhenAllClosed(settings: Pick<Settings, 'closeToTray'> | null): boolean {
  return settings?.closeToTray === false;
}

/** Phase "app events": second launches, deep links, guards for every web contents, and the quit path. */
function wireAppEvents(state: ShellState, actions: ShellActions): void {
  const { disposables } = state;
  const onSecondInstance = (_event: Electron.Event, argv: string[]): void => {
    const link = findDeepLink(argv);
    if (link !== null) actions.openRun(link.runId);
    else actions.reveal();
  };
  app.on('second-instance', onSecondInstance);
  disposables.add(() => app.off('second-instance', onSecondInstance));

  // macOS delivers deep links as an event, possibly before ready.
  const onOpenUrl = (event: Electron.Event, url: string): void => {
    event.preventDefault();
    const link = parseDeepLink(url);
    if (link !== null) actions.openRun(link.runId);
  };
  app.on('open-url', onOpenUrl);
  disposables.add(() => app.off('open-url', onOpenUrl));

  // Navigation, new-window and webview guards for every web contents ever created, not only the main window.
  const onWebContentsCreated = (_event: Electron.Event, contents: Electron.WebContents): void => {
    guardWebContents(contents, state.entry.indexUrl);
  };
  app.on('web-contents-created', onWebContentsCreated);
  disposables.add(() => app.off('web-contents-created', onWebContentsCreated));

  app.on('before-quit', () => {
    state.quitting = true;
  });
  app.on('will-quit', () => disposables.dispose());
  app.on('window-all-closed', () => {
    // Windows only close for good when close-to-tray is off (or on quit): then the app ends with them.
    if (quitsWhenAllClosed(state.host?.settings ?? null)) app.quit();
  });
  app.on('activate', actions.reveal);
}

/** Phase "scheme": `runwarden://` links are handed to the installed app. */
function claimDeepLinkScheme(): void {
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
}

interface ReadyContext {
  state: ShellState;
  actions: ShellActions;
  identity: AppIdentity;
  mainModuleUrl: string;
  trayHostFound: Promise<TrayHost>;
}

/** What test/electron/ sees of the notifications shown (only with test hooks on). */
interface NotificationProbe {
  shown: Notification[];
  events: { shown: number; failed: string[] };
}

/** On ready, the phases in order; a store that cannot be opened ends start-up with a dialog. */
function startWhenReady({ state, actions, identity, mainModuleUrl, trayHostFound }: ReadyContext): void {
  const home = offerApplicationsFolder({
    packaged: app.isPackaged,
    platform: process.platform,
    app,
    execPath: process.execPath,
    ask: (options) => dialog.showMessageBoxSync(options),
    log,
  });
  if (home === 'moved') return;
  guardSession(session.defaultSession, state.entry.indexUrl);
  applyShellMenu(identity);
  const probe: NotificationProbe | null = testHooksEnabled(app.isPackaged, process.env)
    ? { shown: [], events: { shown: 0, failed: [] } }
    : null;
  const notifier = startNotifications(state, actions, probe);
  const updates = startUpdates(state);
  const host = openHost(state, actions, notifier, mainModuleUrl, updates);
  if (host === null) return;
  wireIpc(state, host, actions.opener);
  const startHidden = startsHidden(process.argv, app.getLoginItemSettings().wasOpenedAtLogin);
  const window = openWindow(state, host, actions.opener, startHidden);
  const tray = startTray(state, host, actions);
  if (probe !== null) installTestHooks(state, tray, probe);
  void trayHostFound.then((found) => settleTrayHost(state, found, startHidden, window, actions.reveal));
  applyLoginItemAtStart(host.settings);
  updates.setAutomatic(host.settings.autoUpdateCheck);
  host.start();
  actions.redrawTray();
}

/**
 * Phase "updates" (docs/DESKTOP-CHECKLIST.md#updates): electron-updater in installed builds that name a
 * release feed; checked at start and every few hours while the setting is on, restarted into a download only
 * while idle with no question open, or when the person asks and no question is open. An AppImage renamed by
 * its update has its autostart entry and link handler rewritten. Made before the store: Settings reaches it.
 */
function startUpdates(state: ShellState): AppUpdates {
  const told = new Set<string>();
  const updates = startAppUpdates({
    macSigned: app.isPackaged && process.platform === 'darwin' && macDeveloperIdSigned(process.execPath),
    openQuestions: () => state.attention?.questions.length ?? 0,
    onChange: (update) => {
      if (update.phase === 'failed' || update.phase === 'ready' || update.phase === 'available') {
        log(`runwarden: update ${update.phase}: ${update.latestVersion ?? ''} ${update.message ?? ''}`);
      }
      // Once per version and outcome: a notification (no run to open; not kept in the run history).
      const notice = updateNotice(told, update);
      if (notice !== null) {
        told.add(`${update.phase}:${update.latestVersion ?? ''}`);
        state.notifier?.show({ ...notice, level: 'info', runId: null, recorded: true });
      }
    },
    onAppImageMoved: (path) => {
      process.env.APPIMAGE = path;
      if (state.host?.settings.launchAtLogin === true) linuxAutostart(true);
      claimDeepLinkScheme();
    },
    log: (message) => log(`runwarden: updater: ${message}`),
  });
  state.updates = updates;
  state.disposables.add(() => updates.dispose());
  return updates;
}

/** Phase "menu": none in a packaged app (no DevTools, Reload, Help), Electron's default in development. */
function applyShellMenu(identity: AppIdentity): void {
  const menu = applicationMenu({
    packaged: app.isPackaged,
    platform: process.platform,
    productName: identity.name,
  });
  if (menu !== 'default') Menu.setApplicationMenu(menu === null ? null : Menu.buildFromTemplate(menu));
}

/**
 * Whether notifications can be shown, as last heard: a failure is logged once and the tray says so; one
 * shown clears it (a permission granted later, a notification server restarted).
 */
export function createNotificationHealth(deps: {
  log: (message: string) => void;
  changed: (unavailable: string | null) => void;
}): { failed(error: string): void; shown(): void } {
  let unavailable: string | null = null;
  return {
    failed: (error) => {
      if (unavailable === null) {
        deps.log(
          `runwarden: a notification could not be shown (${error}); the tray shows what needs you instead`,
        );
      }
      unavailable = error;
      deps.changed(unavailable);
    },
    shown: () => {
      if (unavailable === null) return;
      unavailable = null;
      deps.changed(unavailable);
    },
  };
}

/** Phase "notifications": the notifier, and on Windows the toasts clicked after their object is gone. */
function startNotifications(
  state: ShellState,
  actions: ShellActions,
  probe: NotificationProbe | null,
): DesktopNotifier {
  const health = createNotificationHealth({
    log,
    changed: (unavailable) => {
      state.notificationsUnavailable = unavailable;
      actions.redrawTray();
    },
  });
  const notifier = createNotifier({
    create: (options) => {
      const notification = new Notification(options);
      if (probe !== null) {
        probe.shown.push(notification);
        notification.on('show', () => probe.events.shown++);
        notification.on('failed', (_event, error) => probe.events.failed.push(String(error)));
      }
      return notification;
    },
    isSupported: () => Notification.isSupported(),
    openRun: actions.openRun,
    openWindow: actions.reveal,
    paused: () => state.host?.settings.notificationsPaused ?? false,
    platform: process.platform,
    questionById: actions.questionById,
    answer: (answer: QuickAnswer) => void actions.answers.answer(answer),
    markRead: actions.markRunRead,
    failed: health.failed,
    shown: health.shown,
  });
  state.notifier = notifier;
  // Windows: clicks and buttons of toasts whose Notification object is gone (collected, or from before a
  // restart and still in Action Center) arrive here only (docs/DESKTOP-CHECKLIST.md#windows).
  if (process.platform === 'win32') {
    Notification.handleActivation((details) => notifier.activate(details));
  }
  return notifier;
}

/** Phase "store": the host services over the store; null (after a dialog, and quit) when it cannot open. */
function openHost(
  state: ShellState,
  actions: ShellActions,
  notifier: DesktopNotifier,
  mainModuleUrl: string,
  updates: AppUpdates,
): AppHost | null {
  let host: AppHost;
  try {
    host = createAppHost({
      storePath: resolveStorePath({ env: process.env }),
      surface: 'app',
      actorId: currentActorId(),
      notifier,
      push: (event, payload) => void actions.sendPush(event, payload),
      onSettingsChanged: actions.onSettingsChanged,
      attention: {
        items: TRAY_MENU_RUNS,
        onAttention: actions.onAttention,
        watching: () => state.notifier?.shownQuestionIds() ?? [],
      },
      // A run's log file (checked to be in the store's logs folder) in the desktop's text viewer.
      openPath: (path) => {
        void shell.openPath(path).then((problem) => {
          if (problem !== '') log(`runwarden: could not open ${path}: ${problem}`);
        });
      },
      // Settings' "Install 'runwarden' command in PATH" (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
      cliPath: cliPathActions(currentCliPathSystem(mainModuleUrl)),
      // Settings' Updates section (docs/DESKTOP-CHECKLIST.md#updates).
      updates: updateActions(updates.controller, () => state.attention?.questions.length ?? 0),
    });
  } catch (error) {
    log('runwarden: the store could not be opened', error);
    fail('Runwarden cannot open its store', error instanceof Error ? error.message : String(error));
    return null;
  }
  state.host = host;
  state.disposables.add(() => host.dispose());
  return host;
}

/** Phase "IPC": the contract's channels and the page's listening report, from our window's page only. */
function wireIpc(state: ShellState, host: AppHost, opener: RunOpener): void {
  const isTrusted = (event: Parameters<typeof isTrustedSender>[0]): boolean =>
    isTrustedSender(event, state.mainWindow?.window ?? null, state.entry.indexUrl);
  state.disposables.add(
    registerIpcHandlers({
      ipcMain,
      dispatch: (channel, input) => host.dispatch(channel, input),
      isTrusted,
      log,
    }),
  );
  state.disposables.add(
    registerListeningHandler({
      ipcMain,
      isTrusted,
      log,
      onListening: (events) => opener.listening(events),
    }),
  );
}

/** What the person is told when the window's renderer died (window.ts decides whether it was reloaded). */
export function rendererGoneNotice(
  details: Pick<Electron.RenderProcessGoneDetails, 'reason' | 'exitCode'>,
  reloaded: boolean,
): Electron.MessageBoxOptions {
  return {
    type: 'warning',
    title: 'Runwarden',
    message: reloaded
      ? 'The Runwarden window crashed and was reloaded.'
      : 'The Runwarden window keeps crashing.',
    detail: `${
      reloaded ? 'Nothing was lost: runs and answers live in the store.' : 'Quit and start Runwarden again.'
    } (${details.reason}, exit code ${details.exitCode})`,
  };
}

/** Phase "window": the main window, close-to-tray read from the host's settings at each close. */
function openWindow(state: ShellState, host: AppHost, opener: RunOpener, startHidden: boolean): MainWindow {
  const window = createMainWindow({
    entry: state.entry,
    devTools: !app.isPackaged,
    closeToTray: () => host.settings.closeToTray,
    canHideToTray: () => canHideToTray(state.trayHost),
    isQuitting: () => state.quitting,
    onCloseRequestedQuit: () => app.quit(),
    startHidden,
    onRendererGone: (details, reloaded) => {
      opener.pageGone();
      void dialog.showMessageBox(rendererGoneNotice(details, reloaded));
    },
    log,
  });
  state.mainWindow = window;
  state.disposables.add(() => window.dispose());
  // The packaged app's menu on Windows and Linux is there for the zoom keys only.
  if (hideMenuBar(app.isPackaged, process.platform)) window.window.setMenuBarVisibility(false);
  // A new document (reload, or anything that replaces the page) has to say again that it listens.
  const onStartNavigation = (
    details: Electron.Event<Electron.WebContentsDidStartNavigationEventParams>,
  ): void => {
    if (details.isMainFrame && !details.isSameDocument) opener.pageGone();
  };
  window.window.webContents.on('did-start-navigation', onStartNavigation);
  return window;
}

/** Phase "tray": what needs the person, questions' choices, pause notifications, open, quit. */
function startTray(state: ShellState, host: AppHost, actions: ShellActions): RunwardenTray {
  const tray = createRunwardenTray({
    openRun: actions.openRun,
    openWindow: actions.reveal,
    answer: (answer) => void actions.answers.answer(answer),
    setNotificationsPaused: (paused) => {
      host
        .setNotificationsPaused(paused)
        .then((result) => {
          if (!result.ok) log(`runwarden: could not change notifications: ${result.error.message}`);
        })
        .catch((error: unknown) => log('runwarden: could not change notifications', error));
    },
    quit: () => app.quit(),
  });
  state.tray = tray;
  state.disposables.add(() => tray.dispose());
  return tray;
}

/** What test/electron/ reaches in this process (development runs with RUNWARDEN_TEST_HOOKS=1 only). */
function installTestHooks(state: ShellState, tray: RunwardenTray, probe: NotificationProbe): void {
  Object.assign(globalThis, {
    runwardenTestHooks: createTestHooks({
      trayMenu: () => tray.menu,
      notifications: () => probe.shown,
      emitClick: (notification) => (notification as Notification).emit('click', {}),
      canHideToTray: () => canHideToTray(state.trayHost),
      trayHostSettled: () => state.trayHostSettled,
      nativeTray: () => tray.native(),
      notificationEvents: () => ({ ...probe.events, failed: [...probe.events.failed] }),
    }),
  });
}

/**
 * What the tray host's answer means for the window: `tray` (close hides to it), `no-tray` (close quits),
 * `no-tray-reveal` (and a window started hidden must show, with nowhere to come back from).
 */
export function trayHostOutcome(
  found: TrayHost,
  startHidden: boolean,
  windowVisible: boolean,
): 'tray' | 'no-tray' | 'no-tray-reveal' {
  if (canHideToTray(found)) return 'tray';
  return startHidden && !windowVisible ? 'no-tray-reveal' : 'no-tray';
}

/** Phase "tray host": records the bus's answer, and where no icon can show, says so (and shows the window). */
function settleTrayHost(
  state: ShellState,
  found: TrayHost,
  startHidden: boolean,
  window: MainWindow,
  reveal: () => void,
): void {
  state.trayHost = found;
  state.trayHostSettled = true;
  const outcome = trayHostOutcome(found, startHidden, window.window.isVisible());
  if (outcome === 'tray') return;
  log(
    'runwarden: no tray icon host was found (on GNOME, install the AppIndicator extension); ' +
      'closing the window quits it instead of hiding it',
  );
  // Started hidden with nowhere to come back from: show the window after all.
  if (outcome === 'no-tray-reveal') reveal();
}

/** Phase "login item": the stored `launchAtLogin` applied; a development run says why it does not apply. */
function applyLoginItemAtStart(settings: Settings): void {
  launchAtLogin = settings.launchAtLogin;
  if (applyLaunchAtLogin(app, settings.launchAtLogin, process.platform, app.isPackaged, linuxAutostart)) {
    if (
      process.platform === 'darwin' &&
      settings.launchAtLogin &&
      app.getLoginItemSettings().status === 'requires-approval'
    ) {
      log('runwarden: the login item waits for approval in System Settings → General → Login Items');
    }
    return;
  }
  if (settings.launchAtLogin && !app.isPackaged) {
    log('runwarden: "launch at login" applies to the installed app, not to `npm start`');
  }
}
