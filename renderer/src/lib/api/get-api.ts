/**
 * Picks the transport once at start-up: the preload's `window.runwarden` in Electron, else browser mode
 * over HTTP. The UI never knows which one it runs on; only the connection banner and the page clock read
 * `connection`, which stays `desktop` in Electron.
 */
import { SESSION_KEY_META, SIGN_IN_PARAM } from '$shared/browser-session';
import type { RunwardenApi } from '$shared/contract';
import { ConnectionState } from './connection-state.svelte';
import { createHttpClient } from './http-client';

declare global {
  interface Window {
    runwarden?: RunwardenApi;
  }
}

/** This page's connection to `runwarden serve`. */
export const connection = new ConnectionState();

/** Where the session key is kept: the origin's storage, which browsers keep apart per port. */
const KEY_STORAGE = 'runwarden.session-key';

/** The typed API for this window. */
export function getApi(win: Window = window, state: ConnectionState = connection): RunwardenApi {
  if (win.runwarden !== undefined) return win.runwarden;
  state.begin();
  return createHttpClient({
    fetch: (input, init) => win.fetch(input, init),
    openEvents: (url) => new EventSource(url, { withCredentials: true }),
    baseUrl: '',
    sessionKey: adoptSessionKey(win),
    connection: state,
  });
}

/**
 * Takes the key from the sign-in page (then drops the used code from the address bar, so a reload goes
 * through the session) and keeps it for reloads and other tabs of this origin; answers the key to send.
 */
export function adoptSessionKey(win: Window): () => string | null {
  const meta = win.document.querySelector(`meta[name="${SESSION_KEY_META}"]`);
  const fresh = meta?.getAttribute('content') ?? null;
  if (fresh !== null) {
    meta?.remove();
    try {
      win.localStorage.setItem(KEY_STORAGE, fresh);
    } catch {
      // Storage refused (a locked-down profile): this tab still works with the key in memory.
    }
    const url = new URL(win.location.href);
    if (url.searchParams.has(SIGN_IN_PARAM)) {
      url.searchParams.delete(SIGN_IN_PARAM);
      win.history.replaceState(win.history.state, '', `${url.pathname}${url.search}${url.hash}`);
    }
  }
  return () => {
    try {
      return win.localStorage.getItem(KEY_STORAGE) ?? fresh;
    } catch {
      return fresh;
    }
  };
}
