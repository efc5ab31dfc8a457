/**
 * The window's root state (`AppState`) as Svelte context: main.ts mounts App.svelte with `appContext(app)`, and
 * every component reads it with `getAppState()` instead of an `app` prop handed down through each level.
 */
import { getContext } from 'svelte';
import type { AppState } from './app-state.svelte';

const APP_STATE = Symbol('AppState');

/** The context that provides `app` (the `context` option of `mount`, or of `render` for one component). */
export function appContext(app: AppState): Map<symbol, AppState> {
  return new Map([[APP_STATE, app]]);
}

/** The root state the calling component is rendered under (call it during component initialisation). */
export function getAppState(): AppState {
  const app = getContext<AppState | undefined>(APP_STATE);
  if (app === undefined) throw new Error('No AppState in context: mount with { context: appContext(app) }');
  return app;
}
