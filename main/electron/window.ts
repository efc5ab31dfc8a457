/**
 * The main window: hardened options, close-to-tray (a close quits where no tray icon can show), and a
 * renderer that died is reloaded. Its web contents get the guards of security-guards.ts from the app-wide
 * `web-contents-created` hook, like every other web contents.
 */
import { BrowserWindow } from 'electron';
import { fileURLToPath } from 'node:url';
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
export const MAX_RELOADS_PER_WINDOW = 3;
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

export function createMainWindow(deps: MainWindowDeps): MainWindow {
  const log = deps.log ?? ((message, error) => console.error(message, error));
  // Options written out at the call, so scanners (Electronegativity) and readers see them where they apply.
  // Electron security checklist 2–4, 6, 9, 12: context isolation, sandbox, no Node in any frame, web security
  // on, no insecure content, no <webview>, no experimental features; middle-click cannot open windows.
  const window = new BrowserWindow({
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

  const reveal = (): void => {
    if (window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };

  const onReadyToShow = (): void => {
    if (!deps.startHidden) reveal();
  };
  const onClose = (event: Electron.Event): void => {
    if (deps.isQuitting()) return;
    if (deps.closeToTray() && (deps.canHideToTray?.() ?? true)) {
      event.preventDefault();
      window.hide();
      return;
    }
    deps.onCloseRequestedQuit();
  };
  window.once('ready-to-show', onReadyToShow);
  window.on('close', onClose);

  // A renderer that crashed (or was killed, or ran out of memory) leaves a blank window: reload it, unless
  // it keeps dying, which a reload would only repeat.
  const now = deps.now ?? Date.now;
  const crashes: number[] = [];
  const onRenderProcessGone = (_event: Electron.Event, details: Electron.RenderProcessGoneDetails): void => {
    if (details.reason === 'clean-exit' || window.isDestroyed()) return;
    const at = now();
    while (crashes.length > 0 && (crashes[0] ?? at) < at - CRASH_WINDOW_MS) crashes.shift();
    crashes.push(at);
    const reload = crashes.length <= MAX_RELOADS_PER_WINDOW;
    log(`runwarden: the window's renderer is gone (${details.reason}, exit code ${details.exitCode})`);
    if (reload) window.webContents.reload();
    deps.onRendererGone?.(details, reload);
  };
  window.webContents.on('render-process-gone', onRenderProcessGone);

  window
    .loadFile(deps.entry.indexHtmlPath)
    .catch((error: unknown) => log('runwarden: the UI failed to load', error));

  return {
    window,
    reveal,
    dispose: () => {
      window.off('close', onClose);
      if (!window.isDestroyed()) window.webContents.off('render-process-gone', onRenderProcessGone);
      if (!window.isDestroyed()) window.destroy();
    },
  };
}
