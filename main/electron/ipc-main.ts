/**
 * The one IPC wrapper: every contract channel is registered here and nowhere
 * else. Each call is checked to come from our window's main frame showing our page, then handed to the
 * host's dispatcher (which validates the input and returns the Result envelope). Nothing thrown in main
 * ever crosses IPC raw: the renderer always gets `{ ok, ... }`.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import {
  CHANNELS,
  LISTENING_CHANNEL,
  PUSH_EVENTS,
  type Channel,
  type PushEvent,
} from '../../shared/channel-names';
import type { ErrorInfo, Result } from '../../shared/errors';
import type { Disposer } from './disposables';
import { isAppPageUrl } from './security-guards';

/** The sender surface the check reads: a structural subset of IpcMainInvokeEvent. */
export type InvokeEvent = Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>;

/** The window the UI lives in, as far as the sender check needs it. */
export interface TrustedWindow {
  webContents: Pick<Electron.WebContents, 'mainFrame'>;
}

export type Dispatch = (channel: Channel, input: unknown) => Promise<Result<unknown>>;

export interface IpcRegistration {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  dispatch: Dispatch;
  /** The sender check for one call (see `isTrustedSender`). */
  isTrusted: (event: InvokeEvent) => boolean;
  log?: (message: string, error?: unknown) => void;
}

/**
 * True only for our window's top-level frame while it shows our own `index.html` (checklist 17: validate
 * the sender of every IPC message). Frames inside the page, other windows, devtools, or our window after
 * it navigated anywhere else are all refused.
 */
export function isTrustedSender(
  event: InvokeEvent,
  window: TrustedWindow | null,
  appIndexUrl: string,
): boolean {
  if (window === null) return false;
  const frame = event.senderFrame;
  if (frame === null || frame === undefined) return false;
  if (event.sender !== window.webContents) return false;
  const mainFrame = window.webContents.mainFrame;
  if (
    frame !== mainFrame &&
    (frame.processId !== mainFrame.processId || frame.routingId !== mainFrame.routingId)
  ) {
    return false;
  }
  if (frame.parent !== null) return false;
  return isAppPageUrl(frame.url, appIndexUrl);
}

const FORBIDDEN: ErrorInfo = {
  code: 'FORBIDDEN',
  message: 'This request did not come from the Runwarden window, so it was refused.',
};

const INTERNAL: ErrorInfo = {
  code: 'INTERNAL',
  message:
    'Runwarden hit an unexpected error. Nothing was changed; try again, and see the log if it repeats.',
};

/** Builds the handler for one channel: sender check, dispatch, and a Result even when dispatch throws. */
export function channelHandler(
  channel: Channel,
  registration: Pick<IpcRegistration, 'dispatch' | 'isTrusted' | 'log'>,
): (event: InvokeEvent, input: unknown) => Promise<Result<unknown>> {
  const log = registration.log ?? ((message, error) => console.error(message, error));
  return async (event, input) => {
    let trusted = false;
    try {
      trusted = registration.isTrusted(event);
    } catch (error) {
      log(`runwarden: sender check for ${channel} failed`, error);
    }
    if (!trusted) {
      log(`runwarden: refused ${channel} from an untrusted sender`);
      return { ok: false, error: FORBIDDEN };
    }
    try {
      return await registration.dispatch(channel, input);
    } catch (error) {
      log(`runwarden: ${channel} threw`, error);
      return { ok: false, error: INTERNAL };
    }
  };
}

/** Registers every contract channel; the returned disposer removes them all. */
export function registerIpcHandlers(registration: IpcRegistration): Disposer {
  for (const channel of CHANNELS) {
    registration.ipcMain.handle(channel, channelHandler(channel, registration));
  }
  return () => {
    for (const channel of CHANNELS) registration.ipcMain.removeHandler(channel);
  };
}

const NOT_LISTENING: ErrorInfo = {
  code: 'VALIDATION',
  message: 'The page reported pushes it listens to that do not exist.',
};

/** The pushes a `LISTENING_CHANNEL` message names, or null when it is not a list of declared pushes. */
export function parseListening(input: unknown): PushEvent[] | null {
  if (!Array.isArray(input) || input.length > PUSH_EVENTS.length) return null;
  const events: PushEvent[] = [];
  for (const item of input) {
    const event = PUSH_EVENTS.find((e) => e === item);
    if (event === undefined) return null;
    events.push(event);
  }
  return events;
}

/**
 * Registers the page's "I listen to these pushes" report (see run-opener.ts), with the same sender check as
 * every contract channel. Returns the disposer.
 */
export function registerListeningHandler(
  registration: Pick<IpcRegistration, 'ipcMain' | 'isTrusted' | 'log'> & {
    onListening: (events: PushEvent[]) => void;
  },
): Disposer {
  const log = registration.log ?? ((message, error) => console.error(message, error));
  registration.ipcMain.handle(LISTENING_CHANNEL, (event: InvokeEvent, input: unknown): Result<null> => {
    let trusted = false;
    try {
      trusted = registration.isTrusted(event);
    } catch (error) {
      log(`runwarden: sender check for ${LISTENING_CHANNEL} failed`, error);
    }
    if (!trusted) {
      log(`runwarden: refused ${LISTENING_CHANNEL} from an untrusted sender`);
      return { ok: false, error: FORBIDDEN };
    }
    const events = parseListening(input);
    if (events === null) return { ok: false, error: NOT_LISTENING };
    registration.onListening(events);
    return { ok: true, value: null };
  });
  return () => registration.ipcMain.removeHandler(LISTENING_CHANNEL);
}
