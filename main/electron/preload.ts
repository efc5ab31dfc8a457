/**
 * The preload (sandboxed, context-isolated): exposes `window.runwarden`, one method per contract channel
 * plus `on(event, listener)` for the declared pushes (a declared set, never a generic bus). Never raw
 * `ipcRenderer`: the page cannot name a channel, and listeners never see the IpcRendererEvent (it carries
 * `sender`). It also tells main which pushes the page listens to (LISTENING_CHANNEL, see run-opener.ts).
 *
 * Built alone into out/preload/index.cjs; it may import only `electron` and shared/channel-names (a
 * sandboxed preload cannot require anything else), and exports nothing. Tests load it with a fake
 * `electron` and check the exposed object against `RunwardenApi`.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  CHANNEL_METHODS,
  LISTENING_CHANNEL,
  PUSH_CHANNEL_PREFIX,
  PUSH_EVENTS,
  type PushEvent,
} from '../../shared/channel-names';

type Invoke = (input: unknown) => Promise<unknown>;
type Listener = (payload: unknown) => void;

function isPushEvent(name: unknown): name is PushEvent {
  return typeof name === 'string' && (PUSH_EVENTS as readonly string[]).includes(name);
}

/** Builds the API object over an `ipcRenderer`-shaped transport. */
function createPreloadApi(
  renderer: Pick<typeof ipcRenderer, 'invoke' | 'on' | 'removeListener'>,
): Record<string, Invoke | ((event: PushEvent, listener: Listener) => () => void)> {
  const api: Record<string, Invoke | ((event: PushEvent, listener: Listener) => () => void)> = {};
  for (const [channel, method] of Object.entries(CHANNEL_METHODS)) {
    api[method] = (input: unknown) => renderer.invoke(channel, input);
  }
  // How many listeners the page has per push; main hears the set of events whenever it changes.
  const listeners = new Map<PushEvent, number>();
  const announce = (): void => {
    const events = [...listeners.keys()];
    renderer.invoke(LISTENING_CHANNEL, events).catch(() => {
      // Main answers only our own page; nothing to do if it is gone.
    });
  };
  api.on = (event: PushEvent, listener: Listener): (() => void) => {
    if (!isPushEvent(event)) throw new TypeError(`Unknown Runwarden event: ${String(event)}`);
    if (typeof listener !== 'function') throw new TypeError('The listener must be a function.');
    const channel = PUSH_CHANNEL_PREFIX + event;
    const forward = (_event: IpcRendererEvent, payload: unknown): void => listener(payload);
    renderer.on(channel, forward);
    const before = listeners.get(event) ?? 0;
    listeners.set(event, before + 1);
    if (before === 0) announce();
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      renderer.removeListener(channel, forward);
      const left = (listeners.get(event) ?? 1) - 1;
      if (left > 0) listeners.set(event, left);
      else {
        listeners.delete(event);
        announce();
      }
    };
  };
  return Object.freeze(api);
}

contextBridge.exposeInMainWorld('runwarden', createPreloadApi(ipcRenderer));
