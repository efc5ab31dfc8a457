import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, CHANNEL_METHODS, LISTENING_CHANNEL, type Channel } from '../../../shared/channel-names';
import type { Result } from '../../../shared/errors';
import {
  channelHandler,
  isTrustedSender,
  parseListening,
  registerIpcHandlers,
  registerListeningHandler,
  type InvokeEvent,
  type IpcRegistration,
  type TrustedWindow,
} from '../../../main/electron/ipc-main';
import { FakeFrame, FakeWebContents, ipcMain, resetFakeElectron } from './fake-electron';

const APP = 'file:///opt/Runwarden/resources/app.asar/out/renderer/index.html';

/** Our window, showing our page, and the event its main frame sends. */
function scene() {
  const contents = new FakeWebContents(`${APP}#/runs`);
  const window = { webContents: contents } as unknown as TrustedWindow;
  const event = (overrides: Partial<{ sender: unknown; senderFrame: unknown }> = {}): InvokeEvent =>
    ({ sender: contents, senderFrame: contents.mainFrame, ...overrides }) as unknown as InvokeEvent;
  /** The window the registration sees at call time (null before it is created). */
  const current: { window: TrustedWindow | null } = { window };
  return { contents, window, event, current };
}

type Foreign = (s: ReturnType<typeof scene>) => { event: InvokeEvent; window: TrustedWindow | null };

/** Every way a sender can be foreign (checklist 17). */
const FOREIGN_SENDERS: Array<[string, Foreign]> = [
  ['no window yet', (s) => ({ event: s.event(), window: null })],
  ['no sender frame (frame gone)', (s) => ({ event: s.event({ senderFrame: null }), window: s.window })],
  [
    'another web contents',
    (s) => {
      const other = new FakeWebContents(APP);
      return { event: s.event({ sender: other, senderFrame: other.mainFrame }), window: s.window };
    },
  ],
  [
    'a subframe of our page',
    (s) => {
      const frame = new FakeFrame(APP, 1, 99);
      frame.parent = s.contents.mainFrame;
      return { event: s.event({ senderFrame: frame }), window: s.window };
    },
  ],
  [
    'a frame claiming to be top-level with another routing id',
    (s) => ({ event: s.event({ senderFrame: new FakeFrame(APP, 1, 2) }), window: s.window }),
  ],
  [
    'our main frame after navigating to a remote page',
    (s) => {
      s.contents.mainFrame.url = 'https://evil.example/index.html';
      return { event: s.event(), window: s.window };
    },
  ],
  [
    'our main frame showing another local file',
    (s) => {
      s.contents.mainFrame.url = 'file:///tmp/evil/index.html';
      return { event: s.event(), window: s.window };
    },
  ],
  [
    'our main frame with a query string',
    (s) => {
      s.contents.mainFrame.url = `${APP}?inject=1`;
      return { event: s.event(), window: s.window };
    },
  ],
  [
    'our main frame on about:blank',
    (s) => {
      s.contents.mainFrame.url = 'about:blank';
      return { event: s.event(), window: s.window };
    },
  ],
];

describe('isTrustedSender', () => {
  it('trusts our window main frame on our page, whatever the hash route', () => {
    const s = scene();
    expect(isTrustedSender(s.event(), s.window, APP)).toBe(true);
  });

  it.each(FOREIGN_SENDERS)('refuses %s', (_name, make) => {
    const s = scene();
    const { event, window } = make(s);
    expect(isTrustedSender(event, window, APP)).toBe(false);
  });
});

/** Calls the handler the fake ipcMain holds for a channel, as Electron would for an invoke. */
function call(channel: string, event: InvokeEvent, input: unknown): Promise<Result<unknown>> {
  const handler = ipcMain.handlers.get(channel);
  if (handler === undefined) throw new Error(`no handler for ${channel}`);
  return handler(event, input) as Promise<Result<unknown>>;
}

function register(overrides: Partial<IpcRegistration> = {}) {
  const s = scene();
  const dispatch = vi.fn<IpcRegistration['dispatch']>(async (channel: Channel, input: unknown) => ({
    ok: true,
    value: { channel, input },
  }));
  const log = vi.fn<(message: string, error?: unknown) => void>();
  const dispose = registerIpcHandlers({
    ipcMain: ipcMain as unknown as IpcRegistration['ipcMain'],
    dispatch,
    isTrusted: (event) => isTrustedSender(event, s.current.window, APP),
    log,
    ...overrides,
  });
  return { s, dispatch, log, dispose };
}

describe('registerIpcHandlers over a fake ipcMain', () => {
  beforeEach(() => resetFakeElectron());

  it('registers exactly the contract channels, with handle (invoke) only', () => {
    register();
    expect([...ipcMain.handlers.keys()].toSorted()).toEqual([...CHANNELS].toSorted());
    expect(ipcMain.handlers.size).toBe(Object.keys(CHANNEL_METHODS).length);
    expect(ipcMain.listeners.size).toBe(0);
  });

  it.each(CHANNELS)('%s: a trusted call reaches the dispatcher with its input', async (channel) => {
    const { s, dispatch } = register();
    const input = { probe: channel };
    await expect(call(channel, s.event(), input)).resolves.toEqual({ ok: true, value: { channel, input } });
    expect(dispatch).toHaveBeenCalledTimes(1);
  });

  describe.each(CHANNELS)('%s refuses every foreign sender', (channel) => {
    it.each(FOREIGN_SENDERS)('%s → FORBIDDEN, nothing dispatched', async (_name, make) => {
      const { s, dispatch } = register();
      const { event, window } = make(s);
      s.current.window = window;
      const result = await call(channel, event, {});
      expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
      expect(dispatch).not.toHaveBeenCalled();
    });
  });

  it('turns a throwing dispatcher into an INTERNAL envelope (nothing raw crosses IPC)', async () => {
    const secret = new Error('SQLITE_CORRUPT at /home/me/.local/share/runwarden/state.sqlite');
    const { s, log } = register({
      dispatch: async () => {
        throw secret;
      },
    });
    const result = await call('runs:list', s.event(), {});
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(result)).not.toContain('SQLITE');
    expect(log).toHaveBeenCalledWith('runwarden: runs:list threw', secret);
  });

  it('treats a throwing sender check as untrusted', async () => {
    const dispatch = vi.fn<IpcRegistration['dispatch']>();
    const handler = channelHandler('runs:list', {
      dispatch,
      isTrusted: () => {
        throw new Error('frame disposed');
      },
      log: () => {},
    });
    await expect(handler({} as InvokeEvent, {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN' },
    });
    expect(dispatch).not.toHaveBeenCalled();
  });

  it('removes every handler when disposed, so a second registration works', () => {
    const { dispose } = register();
    dispose();
    expect(ipcMain.handlers.size).toBe(0);
    register();
    expect(ipcMain.handlers.size).toBe(CHANNELS.length);
  });
});

describe('the page says which pushes it listens to', () => {
  const PAGE = 'file:///opt/Runwarden/resources/app.asar/out/renderer/index.html';
  function registered(trusted: boolean) {
    const handlers = new Map<string, (event: unknown, input: unknown) => unknown>();
    const heard: unknown[] = [];
    const dispose = registerListeningHandler({
      ipcMain: {
        handle: (channel: string, handler: (event: unknown, input: unknown) => unknown) =>
          void handlers.set(channel, handler),
        removeHandler: (channel: string) => void handlers.delete(channel),
      } as never,
      isTrusted: () => trusted,
      log: () => {},
      onListening: (events) => heard.push(events),
    });
    const send = (input: unknown) =>
      handlers.get(LISTENING_CHANNEL)?.({ sender: {}, senderFrame: { url: PAGE } }, input);
    return { send, heard, handlers, dispose };
  }

  it('a trusted page is heard; bad lists are refused without being heard', () => {
    const { send, heard } = registered(true);
    expect(send(['open-run', 'changed'])).toEqual({ ok: true, value: null });
    expect(send([])).toEqual({ ok: true, value: null });
    for (const bad of [['open-run', 'nope'], 'open-run', null, [1], Array(9).fill('changed')]) {
      expect(send(bad)).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    }
    expect(heard).toEqual([['open-run', 'changed'], []]);
  });

  it('an untrusted sender is refused and not heard; the disposer removes the handler', () => {
    const { send, heard, handlers, dispose } = registered(false);
    expect(send(['open-run'])).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(heard).toEqual([]);
    dispose();
    expect(handlers.size).toBe(0);
  });

  it('parseListening keeps only declared push events', () => {
    expect(parseListening(['attention', 'store-status'])).toEqual(['attention', 'store-status']);
    expect(parseListening(['__proto__'])).toBeNull();
  });
});
