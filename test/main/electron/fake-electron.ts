/**
 * A fake `electron` module for the shell's tests (wherever the Electron binary is missing; the
 * real-Electron tests are in test/electron/). Each test file does `vi.mock('electron', () => import('./fake-electron'))` and inspects the
 * fakes below; `resetFakeElectron()` in `beforeEach` gives each test a clean slate. The fakes record calls;
 * they implement only what main/electron uses, with the real signatures checked where the code under test
 * is typed against electron.d.ts.
 */
import { EventEmitter } from 'node:events';
import { inflateSync } from 'node:zlib';

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
  reloads = 0;
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  reload(): void {
    this.reloads++;
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
  menuBarVisible = true;
  setMenuBarVisibility(visible: boolean): void {
    this.menuBarVisible = visible;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isVisible(): boolean {
    return this.visible;
  }
  minimize(): void {
    this.minimized = true;
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
  /** Set for images made from raw BGRA pixels (createFromBitmap / a bitmap representation). */
  sizes: Array<{ width: number; height: number } | null>;
  template: boolean;
  addRepresentation(options: { scaleFactor: number; buffer: Buffer; width?: number; height?: number }): void;
  getSize(scaleFactor?: number): { width: number; height: number };
  toBitmap(options?: { scaleFactor?: number }): Buffer;
  setTemplateImage(on: boolean): void;
}

function fakeImage(
  buffer: Buffer,
  scaleFactor: number,
  size: { width: number; height: number } | null,
): FakeImage {
  const image: FakeImage = {
    scaleFactors: [scaleFactor],
    buffers: [buffer],
    sizes: [size],
    template: false,
    addRepresentation(rep) {
      image.scaleFactors.push(rep.scaleFactor);
      image.buffers.push(rep.buffer);
      image.sizes.push(
        rep.width !== undefined && rep.height !== undefined ? { width: rep.width, height: rep.height } : null,
      );
    },
    getSize(factor = 1) {
      const i = Math.max(0, image.scaleFactors.indexOf(factor));
      return image.sizes[i] ?? decodePng(image.buffers[i] ?? Buffer.alloc(0)).size;
    },
    toBitmap(options = {}) {
      const i = Math.max(0, image.scaleFactors.indexOf(options.scaleFactor ?? 1));
      const buf = image.buffers[i] ?? Buffer.alloc(0);
      return image.sizes[i] !== null ? buf : decodePng(buf).bgra;
    },
    setTemplateImage(on) {
      image.template = on;
    },
  };
  return image;
}

/**
 * Decodes the PNGs build/generate-icons.mjs writes (8-bit RGBA, filter 0 on every row) into Electron's
 * bitmap order (BGRA), as `nativeImage.toBitmap` would.
 */
export function decodePng(png: Buffer): { size: { width: number; height: number }; bgra: Buffer } {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const bgra = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 4 + 1);
    if (raw[row] !== 0) throw new Error('decodePng: only filter 0 rows are supported');
    for (let x = 0; x < width; x++) {
      const src = row + 1 + x * 4;
      const dst = (y * width + x) * 4;
      bgra[dst] = raw[src + 2] ?? 0;
      bgra[dst + 1] = raw[src + 1] ?? 0;
      bgra[dst + 2] = raw[src] ?? 0;
      bgra[dst + 3] = raw[src + 3] ?? 0;
    }
  }
  return { size: { width, height }, bgra };
}

export const nativeImage = {
  createFromBuffer(buffer: Buffer, options: { scaleFactor: number }): FakeImage {
    return fakeImage(buffer, options.scaleFactor, null);
  },
  createFromBitmap(
    buffer: Buffer,
    options: { width: number; height: number; scaleFactor?: number },
  ): FakeImage {
    return fakeImage(buffer, options.scaleFactor ?? 1, { width: options.width, height: options.height });
  },
};

export interface FakeMenuItem {
  label?: string;
  type?: string;
  role?: string;
  enabled?: boolean;
  click?: () => void;
  submenu?: FakeMenuItem[];
}

export const Menu = {
  /** What `setApplicationMenu` was last given: undefined = never called (Electron's default menu). */
  application: undefined as { items: FakeMenuItem[] } | null | undefined,
  buildFromTemplate(template: FakeMenuItem[]): { items: FakeMenuItem[] } {
    return { items: template };
  },
  setApplicationMenu(menu: { items: FakeMenuItem[] } | null): void {
    Menu.application = menu;
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
  closed = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    Notification.created.push(this);
  }
  show(): void {
    this.shown = true;
  }
  close(): void {
    this.closed = true;
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
  messages: [] as Array<Record<string, unknown>>,
  showErrorBox(title: string, content: string): void {
    dialog.errors.push({ title, content });
  },
  showMessageBoxSync(options: Record<string, unknown>): number {
    dialog.messages.push(options);
    return 1;
  },
  showMessageBox(options: Record<string, unknown>): Promise<{ response: number }> {
    dialog.messages.push(options);
    return Promise.resolve({ response: 0 });
  },
};

export const shell = {
  opened: [] as string[],
  openPath(path: string): Promise<string> {
    shell.opened.push(path);
    return Promise.resolve('');
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
  name = 'runwarden';
  paths = new Map<string, string>([['appData', '/home/me/.config']]);
  appUserModelId: string | null = null;
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
    this.name = 'runwarden';
    this.paths = new Map([['appData', '/home/me/.config']]);
    this.appUserModelId = null;
    this.#readyPromise = this.#newReady();
  }
  setName(name: string): void {
    this.name = name;
  }
  getName(): string {
    return this.name;
  }
  getVersion(): string {
    return '0.1.0';
  }
  setPath(name: string, path: string): void {
    this.paths.set(name, path);
  }
  getPath(name: string): string {
    const path = this.paths.get(name);
    if (path === undefined) throw new Error(`fake app: no path ${name}`);
    return path;
  }
  setAppUserModelId(id: string): void {
    this.appUserModelId = id;
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
  getLoginItemSettings(): { wasOpenedAtLogin: boolean; status: string } {
    return { wasOpenedAtLogin: false, status: 'enabled' };
  }
  isInApplicationsFolder(): boolean {
    return true;
  }
  moveToApplicationsFolder(): boolean {
    return false;
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

/** The idle time the updater's restart-when-idle reads. */
export const powerMonitor = {
  idleSeconds: 0,
  getSystemIdleTime(): number {
    return powerMonitor.idleSeconds;
  },
};

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
  dialog.messages.length = 0;
  Menu.application = undefined;
  shell.opened.length = 0;
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
  powerMonitor,
  Notification,
  session,
  shell,
  Tray,
};
