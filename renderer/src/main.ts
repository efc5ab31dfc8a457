/** Renderer entry: picks the transport, builds the root state, mounts the window. */
import { mount } from 'svelte';
import App from './App.svelte';
// oxlint-disable-next-line import/no-unassigned-import -- the global theme is a side-effect import by design
import './app.css';
import { connection, getApi } from '$lib/api/get-api';
import { windowHashHistory } from '$lib/hash-route';
import { appContext } from '$lib/state/app-context';
import { AppState } from '$lib/state/app-state.svelte';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html has no #app element');
// The page clock stops while browser mode is disconnected, so countdowns do not run on stale data.
// The preload's API exists only in the desktop app; without it this page runs in a browser tab (serve).
const shell = window.runwarden !== undefined ? 'desktop' : 'browser';
const app = new AppState(getApi(window), windowHashHistory(window), connection.now, {
  shell,
  sidebarCollapsed: window.matchMedia('(max-width: 720px)').matches,
});
mount(App, { target, context: appContext(app) });
