import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CRASH_WINDOW_MS,
  MAX_RELOADS_PER_WINDOW,
  appEntryPoints,
  closeOutcome,
  crashReloadLimiter,
  createMainWindow,
  type MainWindowDeps,
} from '../../../main/electron/window';
import { BrowserWindow, FakeEvent, resetFakeElectron } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

const MAIN_URL = 'file:///opt/Runwarden/resources/app.asar/out/main/index.js';

describe('appEntryPoints', () => {
  it('finds the preload and the page beside the main bundle', () => {
    expect(appEntryPoints(MAIN_URL)).toEqual({
      preloadPath: '/opt/Runwarden/resources/app.asar/out/preload/index.cjs',
      indexHtmlPath: '/opt/Runwarden/resources/app.asar/out/renderer/index.html',
      indexUrl: 'file:///opt/Runwarden/resources/app.asar/out/renderer/index.html',
    });
  });

  it('keeps the URL encoded when the install path has spaces', () => {
    const entry = appEntryPoints('file:///Applications/My%20Apps/Runwarden.app/out/main/index.js');
    expect(entry.indexHtmlPath).toBe('/Applications/My Apps/Runwarden.app/out/renderer/index.html');
    expect(entry.indexUrl).toBe('file:///Applications/My%20Apps/Runwarden.app/out/renderer/index.html');
  });
});

describe('window options (Electron security checklist)', () => {
  beforeEach(() => resetFakeElectron());
  const prefs = () => {
    make();
    return (BrowserWindow.created[0]?.options.webPreferences ?? {}) as Record<string, unknown>;
  };

  it.each([
    ['contextIsolation', true],
    ['sandbox', true],
    ['nodeIntegration', false],
    ['nodeIntegrationInWorker', false],
    ['nodeIntegrationInSubFrames', false],
    ['webSecurity', true],
    ['allowRunningInsecureContent', false],
    ['webviewTag', false],
    ['experimentalFeatures', false],
    ['disableBlinkFeatures', 'Auxclick'],
    ['navigateOnDragDrop', false],
    ['devTools', false],
    ['preload', '/opt/Runwarden/resources/app.asar/out/preload/index.cjs'],
  ])('%s is %s', (key, value) => {
    expect(prefs()[key]).toBe(value);
  });

  it.each(['enableBlinkFeatures', 'additionalArguments', 'partition', 'session'])(
    'leaves %s unset',
    (key) => {
      expect(prefs()).not.toHaveProperty(key);
    },
  );

  it('waits for ready-to-show, and enables devtools only when asked (development)', () => {
    make({ devTools: true });
    expect(BrowserWindow.created[0]?.options).toMatchObject({
      show: false,
      webPreferences: { devTools: true },
    });
  });
});

function make(overrides: Partial<MainWindowDeps> = {}) {
  const state = { closeToTray: true, quitting: false, quitRequests: 0 };
  const created = createMainWindow({
    entry: appEntryPoints(MAIN_URL),
    devTools: false,
    closeToTray: () => state.closeToTray,
    isQuitting: () => state.quitting,
    onCloseRequestedQuit: () => state.quitRequests++,
    startHidden: false,
    log: () => {},
    ...overrides,
  });
  const window = BrowserWindow.created[0];
  if (window === undefined) throw new Error('no window');
  return { created, window, state };
}

describe('createMainWindow', () => {
  beforeEach(() => resetFakeElectron());

  it('creates one window and loads our page', () => {
    const { window } = make();
    expect(BrowserWindow.created).toHaveLength(1);
    expect(window.loadedFile).toBe('/opt/Runwarden/resources/app.asar/out/renderer/index.html');
  });

  it('shows itself when ready, unless started hidden (login launch)', () => {
    const shown = make();
    shown.window.emit('ready-to-show');
    expect(shown.window.visible).toBe(true);

    resetFakeElectron();
    const hidden = make({ startHidden: true });
    hidden.window.emit('ready-to-show');
    expect(hidden.window.visible).toBe(false);
  });

  it('close hides to the tray while closeToTray is on', () => {
    const { window, state } = make();
    window.show();
    expect(window.requestClose()).toBe(false);
    expect(window.visible).toBe(false);
    expect(state.quitRequests).toBe(0);
  });

  it('close quits the app when closeToTray is off (read at each close)', () => {
    const { window, state } = make();
    state.closeToTray = false;
    expect(window.requestClose()).toBe(true);
    expect(state.quitRequests).toBe(1);
  });

  it('close goes ahead while quitting, even with closeToTray on', () => {
    const { window, state } = make();
    state.quitting = true;
    expect(window.requestClose()).toBe(true);
    expect(state.quitRequests).toBe(0);
  });

  it('reveal restores, shows and focuses; dispose destroys the window', () => {
    const { created, window } = make();
    window.minimized = true;
    created.reveal();
    expect(window).toMatchObject({ minimized: false, visible: true, focused: true });
    created.dispose();
    expect(window.destroyed).toBe(true);
    expect(window.listenerCount('close')).toBe(0);
    created.reveal();
  });
});

describe('createMainWindow: no tray icon host, and renderer crashes', () => {
  beforeEach(() => resetFakeElectron());

  it('with close-to-tray on but no tray icon showing, close quits (nothing else could quit the app)', () => {
    let canHide = false;
    const { window, state } = make({ canHideToTray: () => canHide });
    window.show();
    expect(window.requestClose()).toBe(true);
    expect(state.quitRequests).toBe(1);
    expect(window.minimized).toBe(false);
    canHide = true;
    expect(window.requestClose()).toBe(false);
    expect(window.visible).toBe(false);
    expect(state.quitRequests).toBe(1);
  });

  it('a crashed renderer is reloaded and reported; a clean exit is not', () => {
    const gone: Array<[string, boolean]> = [];
    const { window } = make({ onRendererGone: (details, reloaded) => gone.push([details.reason, reloaded]) });
    window.webContents.emit('render-process-gone', new FakeEvent(), { reason: 'clean-exit', exitCode: 0 });
    expect(window.webContents.reloads).toBe(0);
    window.webContents.emit('render-process-gone', new FakeEvent(), { reason: 'crashed', exitCode: 11 });
    expect(window.webContents.reloads).toBe(1);
    expect(gone).toEqual([['crashed', true]]);
  });

  it('the third crash within a minute is left alone (two reloads); a minute later it reloads again', () => {
    expect(MAX_RELOADS_PER_WINDOW).toBe(2);
    let now = 1_000_000;
    const gone: boolean[] = [];
    const { window } = make({ now: () => now, onRendererGone: (_d, reloaded) => gone.push(reloaded) });
    for (let i = 0; i < MAX_RELOADS_PER_WINDOW + 1; i++) {
      window.webContents.emit('render-process-gone', new FakeEvent(), { reason: 'oom', exitCode: 1 });
    }
    expect(window.webContents.reloads).toBe(MAX_RELOADS_PER_WINDOW);
    expect(gone.at(-1)).toBe(false);
    now += CRASH_WINDOW_MS + 1;
    window.webContents.emit('render-process-gone', new FakeEvent(), { reason: 'crashed', exitCode: 1 });
    expect(window.webContents.reloads).toBe(MAX_RELOADS_PER_WINDOW + 1);
  });

  it('dispose removes the crash handler', () => {
    const { created, window } = make();
    expect(window.webContents.listenerCount('render-process-gone')).toBe(1);
    created.dispose();
    expect(window.webContents.listenerCount('render-process-gone')).toBe(0);
  });
});

describe('closeOutcome (what a close request does)', () => {
  it('closes for good while quitting, whatever the settings', () => {
    for (const closeToTray of [true, false])
      for (const canHideToTray of [true, false])
        expect(closeOutcome({ quitting: true, closeToTray, canHideToTray })).toBe('close');
  });

  it('hides only with closeToTray on and a tray icon that can show; otherwise quits', () => {
    expect(closeOutcome({ quitting: false, closeToTray: true, canHideToTray: true })).toBe('hide');
    expect(closeOutcome({ quitting: false, closeToTray: true, canHideToTray: false })).toBe('quit');
    expect(closeOutcome({ quitting: false, closeToTray: false, canHideToTray: true })).toBe('quit');
    expect(closeOutcome({ quitting: false, closeToTray: false, canHideToTray: false })).toBe('quit');
  });
});

describe('crashReloadLimiter', () => {
  it('reloads the first MAX_RELOADS_PER_WINDOW deaths within the window, then not, and forgets old deaths', () => {
    let now = 5_000_000;
    const shouldReload = crashReloadLimiter(() => now);
    const answers = Array.from({ length: MAX_RELOADS_PER_WINDOW + 1 }, () => shouldReload());
    expect(answers).toEqual([...Array<boolean>(MAX_RELOADS_PER_WINDOW).fill(true), false]);
    // Exactly at the window's edge the first deaths still count.
    now += CRASH_WINDOW_MS;
    expect(shouldReload()).toBe(false);
    now += 1;
    // The first burst is now older than the window; the death at the edge and this one remain.
    expect(shouldReload()).toBe(true);
  });

  it('counts deaths per limiter (per window)', () => {
    const first = crashReloadLimiter(() => 0);
    for (let i = 0; i < MAX_RELOADS_PER_WINDOW; i++) first();
    expect(first()).toBe(false);
    expect(crashReloadLimiter(() => 0)()).toBe(true);
  });
});
