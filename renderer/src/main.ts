/** Renderer entry: picks the transport, builds the root state, mounts the window. */
import { mount } from 'svelte';
import App from './App.svelte';
// oxlint-disable-next-line import/no-unassigned-import -- the global theme is a side-effect import by design
import './app.css';
import { getApi } from './lib/api/get-api';
import { windowHashHistory } from './lib/hash-route';
import { AppState } from './lib/state/app-state.svelte';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html has no #app element');
const app = new AppState(getApi(window), windowHashHistory(window));
mount(App, { target, props: { app } });
