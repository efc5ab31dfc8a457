/**
 * The main window: hardened options, close-to-tray (a close quits where no tray icon can show), and a
 * renderer that died is reloaded. Its web contents get the guards of security-guards.ts from the app-wide
 * `web-contents-created` hook, like every other web contents.
 */
import { BrowserWindow } from 'electron';
import { fileURLToPath } from 'node:url';
import { assertNever } from '../../shared/errors';
import type { Disposer } from './disposables';

/** Where the build puts the preload and the page, relative to out/main/index.js. */
export interface AppEntryPoints {
  preloadPath: string;
  indexHtmlPath: string;
  /** `file://` URL of index.html: the only page the window may show and the only IPC sender we trust. */
  indexUrl: string;
}

export function appEntryPoints(mainModuleUrl: string): AppEntryPoints {
  const indexUrl = new URL('../renderer/index.html', mainModuleUrl);
  return {
    preloadPath: fileURLToPath(new URL('../preload/index.cjs', mainModuleUrl)),
    indexHtmlPath: fileURLToPath(indexUrl),
    indexUrl: indexUrl.href,
  };
}

/** At most this many reloads after renderer crashes within CRASH_WINDOW_MS; then the window stays as it is. */
/** A renderer's third crash within CRASH_WINDOW_MS is left alone: the first two are reloaded. */
export const CRASHES_LEFT_ALONE = 3;
export const MAX_RELOADS_PER_WINDOW = CRASHES_LEFT_ALONE - 1;
export const CRASH_WINDOW_MS = 60_000;

export interface MainWindowDeps {
  entry: AppEntryPoints;
  devTools: boolean;
  /** Read at each close: the `closeToTray` setting (a setting can make close quit). */
  closeToTray: () => boolean;
  /**
   * Read at each close: whether a tray icon is known to show (tray-host.ts). When it is not, close-to-tray
   * has nowhere to go: a close quits, as with close-to-tray off. (Hidden, the app would vanish; minimised,
   * with no tray menu and no application menu, nothing could ever quit it.)
   */
  canHideToTray?: () => boolean;
  /** The page's renderer process died (not a clean exit); `reloaded` says whether it was reloaded. */
  onRendererGone?: (details: Electron.RenderProcessGoneDetails, reloaded: boolean) => void;
  /** A clock for the crash-loop limit. */
  now?: () => number;
  /** True once the app is quitting: then close really closes. */
  isQuitting: () => boolean;
  /** Called when closing the window should end the app (closeToTray off). */
  onCloseRequestedQuit: () => void;
  startHidden: boolean;
  log?: (message: string, error?: unknown) => void;
}

export interface MainWindow {
  window: BrowserWindow;
  /** Brings the window to the front (restoring it from the tray or minimised). */
  reveal(): void;
  dispose: Disposer;
}

/**
 * The window in three phases, each its own function: the hardened `BrowserWindow`, what a close request does
 * (closeOutcome), and the reload of a renderer that died (crashReloadLimiter).
 */
export function createMainWindow(deps: MainWindowDeps): MainWindow {
  const log = deps.log ?? ((message, error) => console.error(message, error));
  const window = hardenedWindow(deps);
  const reveal = (): void => {
    if (window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  window.once('ready-to-show', () => {
    if (!deps.startHidden) reveal();
  });
  const unwireClose = wireClose(window, deps);
  const unwireCrashes = wireCrashReload(window, deps, log);
  window
    .loadFile(deps.entry.indexHtmlPath)
    .catch((error: unknown) => log('runwarden: the UI failed to load', error));

  return {
    window,
    reveal,
    dispose: () => {
      unwireClose();
      unwireCrashes();
      if (!window.isDestroyed()) window.destroy();
    },
  };
}

/** The window, hidden until ready-to-show, with every web preference the security checklist asks for. */
function hardenedWindow(deps: MainWindowDeps): BrowserWindow {
  // Options written out at the call, so scanners (Electronegativity) and readers see them where they apply.
  // Electron security checklist 2–4, 6, 9, 12: context isolation, sandbox, no Node in any frame, web security
  // on, no insecure content, no <webview>, no experimental features; middle-click cannot open windows.
  return new BrowserWindow({
    title: 'Runwarden',
    width: 1280,
    height: 820,
    minWidth: 760,
    minHeight: 480,
    show: false,
    backgroundColor: '#111318',
    autoHideMenuBar: true,
    webPreferences: {
      preload: deps.entry.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      disableBlinkFeatures: 'Auxclick',
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: deps.devTools,
    },
  });
}

/** What a close request does: `close` (the app is quitting), `hide` (to the tray), or `quit` the app. */
export type CloseOutcome = 'close' | 'hide' | 'quit';

/**
 * Close hides to the tray only while `closeToTray` is on and a tray icon can show; hidden with no icon, the
 * app would vanish with nothing left to quit it from, so then close quits, as with `closeToTray` off.
 */
export function closeOutcome(now: {
  quitting: boolean;
  closeToTray: boolean;
  canHideToTray: boolean;
}): CloseOutcome {
  if (now.quitting) return 'close';
  return now.closeToTray && now.canHideToTray ? 'hide' : 'quit';
}

/** Decides each close from the settings read at that moment; returns the unwiring. */
function wireClose(window: BrowserWindow, deps: MainWindowDeps): () => void {
  const onClose = (event: Electron.Event): void => {
    const outcome = closeOutcome({
      quitting: deps.isQuitting(),
      closeToTray: deps.closeToTray(),
      canHideToTray: deps.canHideToTray?.() ?? true,
    });
    switch (outcome) {
      case 'close':
        return;
      case 'hide':
        event.preventDefault();
        window.hide();
        return;
      case 'quit':
        deps.onCloseRequestedQuit();
        return;
      default:
        assertNever(outcome, 'close outcome');
    }
  };
  window.on('close', onClose);
  return () => window.off('close', onClose);
}

/**
 * The crash-loop limit: called at each renderer death, says whether to reload. At most
 * MAX_RELOADS_PER_WINDOW deaths within CRASH_WINDOW_MS are reloaded; older deaths are forgotten.
 */
export function crashReloadLimiter(now: () => number): () => boolean {
  const crashes: number[] = [];
  return () => {
    const at = now();
    while (crashes.length > 0 && (crashes[0] ?? at) < at - CRASH_WINDOW_MS) crashes.shift();
    crashes.push(at);
    return crashes.length <= MAX_RELOADS_PER_WINDOW;
  };
}

/**
 * A renderer that crashed (or was killed, or ran out of memory) leaves a blank window: reload it, unless it
 * keeps dying, which a reload would only repeat. Returns the unwiring.
 */
function wireCrashReload(
  window: BrowserWindow,
  deps: MainWindowDeps,
  log: (message: string, error?: unknown) => void,
): () => void {
  const shouldReload = crashReloadLimiter(deps.now ?? Date.now);
  const onRenderProcessGone = (_event: Electron.Event, details: Electron.RenderProcessGoneDetails): void => {
    if (details.reason === 'clean-exit' || window.isDestroyed()) return;
    const reload = shouldReload();
    log(`runwarden: the window's renderer is gone (${details.reason}, exit code ${details.exitCode})`);
    if (reload) window.webContents.reload();
    deps.onRendererGone?.(details, reload);
  };
  window.webContents.on('render-process-gone', onRenderProcessGone);
  return () => {
    if (!window.isDestroyed()) window.webContents.off('render-process-gone', onRenderProcessGone);
  };
}
