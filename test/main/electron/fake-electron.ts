/**
 * A fake `electron` module for the shell's tests (Electron cannot start on these machines: TESTING.md
 * layer 5). Each test file does `vi.mock('electron', () => import('./fake-electron'))` and inspects the
 * fakes below; `resetFakeElectron()` in `beforeEach` gives each test a clean slate. The fakes record calls;
 * they implement only what main/electron uses, with the real signatures checked where the code under test
 * is typed against electron.d.ts.
 */
import { EventEmitter } from 'node:events';

type Listener = (...args: never[]) => unknown;

/** An event object like Electron's: `preventDefault()` is recorded. */
export class FakeEvent {
  defaultPrevented = false;
  constructor(readonly url = '') {}
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export class FakeFrame {
  parent: FakeFrame | null = null;
  constructor(
    public url: string,
    public processId = 1,
    public routingId = 1,
  ) {}
}

export class FakeWebContents extends EventEmitter {
  readonly sent: Array<{ channel: string; payload: unknown }> = [];
  windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
  destroyed = false;
  mainFrame: FakeFrame;

  constructor(url = '') {
    super();
    this.mainFrame = new FakeFrame(url);
  }
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.windowOpenHandler = handler;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly created: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  visible = false;
  focused = false;
  minimized = false;
  destroyed = false;
  loadedFile: string | null = null;

  constructor(readonly options: Record<string, unknown>) {
    super();
    BrowserWindow.created.push(this);
  }
  loadFile(path: string): Promise<void> {
    this.loadedFile = path;
    this.webContents.mainFrame.url = `file://${path}`;
    return Promise.resolve();
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {
    this.focused = true;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    this.destroyed = true;
  }
  /** Emits `close` as Electron does; returns whether the close went ahead. */
  requestClose(): boolean {
    const event = new FakeEvent();
    this.emit('close', event);
    return !event.defaultPrevented;
  }
}

export interface FakeImage {
  scaleFactors: number[];
  buffers: Buffer[];
  addRepresentation(options: { scaleFactor: number; buffer: Buffer }): void;
}

export const nativeImage = {
  createFromBuffer(buffer: Buffer, options: { scaleFactor: number }): FakeImage {
    const image: FakeImage = {
      scaleFactors: [options.scaleFactor],
      buffers: [buffer],
      addRepresentation(rep) {
        image.scaleFactors.push(rep.scaleFactor);
        image.buffers.push(rep.buffer);
      },
    };
    return image;
  },
};

export interface FakeMenuItem {
  label?: string;
  type?: string;
  enabled?: boolean;
  click?: () => void;
}

export const Menu = {
  buildFromTemplate(template: FakeMenuItem[]): { items: FakeMenuItem[] } {
    return { items: template };
  },
};

export class Tray extends EventEmitter {
  static readonly created: Tray[] = [];
  image: unknown;
  tooltip = '';
  title = '';
  menu: { items: FakeMenuItem[] } | null = null;
  destroyed = false;

  constructor(image: unknown) {
    super();
    this.image = image;
    Tray.created.push(this);
  }
  setImage(image: unknown): void {
    this.image = image;
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setTitle(text: string): void {
    this.title = text;
  }
  setContextMenu(menu: { items: FakeMenuItem[] }): void {
    this.menu = menu;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

export class Notification extends EventEmitter {
  static readonly created: Notification[] = [];
  static supported = true;
  static isSupported(): boolean {
    return Notification.supported;
  }
  shown = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    Notification.created.push(this);
  }
  show(): void {
    this.shown = true;
  }
}

type Handler = (event: unknown, ...args: unknown[]) => unknown;

export const ipcMain = {
  handlers: new Map<string, Handler>(),
  listeners: new Map<string, Handler>(),
  handle(channel: string, handler: Handler): void {
    if (ipcMain.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    ipcMain.handlers.set(channel, handler);
  },
  removeHandler(channel: string): void {
    ipcMain.handlers.delete(channel);
  },
  on(channel: string, listener: Handler): void {
    ipcMain.listeners.set(channel, listener);
  },
};

export const ipcRenderer = Object.assign(new EventEmitter(), {
  invocations: [] as Array<{ channel: string; args: unknown[] }>,
  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    ipcRenderer.invocations.push({ channel, args });
    return Promise.resolve({ ok: true, value: channel });
  },
});

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown): void {
    contextBridge.exposed.set(key, api);
  },
};

class FakeWebRequest {
  beforeRequest: Listener | null = null;
  headersReceived: Listener | null = null;
  onBeforeRequest(listener: Listener | null): void {
    this.beforeRequest = listener;
  }
  onHeadersReceived(listener: Listener | null): void {
    this.headersReceived = listener;
  }
}

export class FakeSession {
  permissionRequest: Listener | null = null;
  permissionCheck: Listener | null = null;
  devicePermission: Listener | null = null;
  readonly webRequest = new FakeWebRequest();
  setPermissionRequestHandler(handler: Listener | null): void {
    this.permissionRequest = handler;
  }
  setPermissionCheckHandler(handler: Listener | null): void {
    this.permissionCheck = handler;
  }
  setDevicePermissionHandler(handler: Listener | null): void {
    this.devicePermission = handler;
  }
}

export const session = { defaultSession: new FakeSession() };

export const dialog = {
  errors: [] as Array<{ title: string; content: string }>,
  showErrorBox(title: string, content: string): void {
    dialog.errors.push({ title, content });
  },
};

class FakeApp extends EventEmitter {
  isPackaged = false;
  hasLock = true;
  sandboxEnabled = false;
  quitCalls = 0;
  loginItemSettings: Array<Record<string, unknown>> = [];
  protocolClients: string[] = [];
  appPath = '/project';
  #ready: (() => void) | null = null;
  #readyPromise: Promise<void> = this.#newReady();

  #newReady(): Promise<void> {
    return new Promise((resolve) => {
      this.#ready = resolve;
    });
  }
  /** Test helper: fires `ready`. */
  becomeReady(): void {
    this.#ready?.();
  }
  reset(): void {
    this.removeAllListeners();
    this.isPackaged = false;
    this.hasLock = true;
    this.sandboxEnabled = false;
    this.quitCalls = 0;
    this.loginItemSettings = [];
    this.protocolClients = [];
    this.#readyPromise = this.#newReady();
  }
  enableSandbox(): void {
    this.sandboxEnabled = true;
  }
  requestSingleInstanceLock(): boolean {
    return this.hasLock;
  }
  quit(): void {
    this.quitCalls++;
    this.emit('before-quit');
    this.emit('will-quit');
  }
  whenReady(): Promise<void> {
    return this.#readyPromise;
  }
  getAppPath(): string {
    return this.appPath;
  }
  setLoginItemSettings(settings: Record<string, unknown>): void {
    this.loginItemSettings.push(settings);
  }
  getLoginItemSettings(): { wasOpenedAtLogin: boolean } {
    return { wasOpenedAtLogin: false };
  }
  isDefaultProtocolClient(scheme: string): boolean {
    return this.protocolClients.includes(scheme);
  }
  setAsDefaultProtocolClient(scheme: string): boolean {
    this.protocolClients.push(scheme);
    return true;
  }
}

export const app = new FakeApp();

export function resetFakeElectron(): void {
  app.reset();
  BrowserWindow.created.length = 0;
  Tray.created.length = 0;
  Notification.created.length = 0;
  Notification.supported = true;
  ipcMain.handlers.clear();
  ipcMain.listeners.clear();
  ipcRenderer.removeAllListeners();
  ipcRenderer.invocations.length = 0;
  contextBridge.exposed.clear();
  session.defaultSession = new FakeSession();
  dialog.errors.length = 0;
}

export default {
  app,
  BrowserWindow,
  contextBridge,
  dialog,
  ipcMain,
  ipcRenderer,
  Menu,
  nativeImage,
  Notification,
  session,
  Tray,
};
