/**
 * Picks the transport once at start-up: the preload's `window.runwarden` in Electron, else browser mode
 * over HTTP. The UI never knows which one it runs on.
 */
import type { RunwardenApi } from '../../../../shared/contract';
import { createHttpClient } from './http-client';

declare global {
  interface Window {
    runwarden?: RunwardenApi;
  }
}

/** The typed API for this window. */
export function getApi(win: Window = window): RunwardenApi {
  if (win.runwarden !== undefined) return win.runwarden;
  return createHttpClient({
    fetch: (input, init) => win.fetch(input, init),
    openEvents: (url) => new EventSource(url, { withCredentials: true }),
    baseUrl: '',
  });
}
