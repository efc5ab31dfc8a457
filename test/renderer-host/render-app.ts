/**
 * Renders the whole window (App.svelte) over a real host (real-host.ts), as a shell loads it: its state
 * on the host's API, the hash in a memory history, and the host's clock as the window's clock.
 */
// oxlint-disable-next-line import/no-unassigned-import -- installs jsdom stubs before the components load
import '../renderer/dom-setup';
import { render } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import App from '../../renderer/src/App.svelte';
import { AppState, type Shell } from '../../renderer/src/lib/state/app-state.svelte';
import { appContext } from '../../renderer/src/lib/state/app-context';
import { MemoryHistory } from '../renderer/memory-history';
import type { RealHost } from './real-host';

/** The window's state on the host's API, as a shell builds it, without drawing anything: for one component. */
export function createApp(h: RealHost, hash = '', options: { shell?: Shell } = {}) {
  const history = new MemoryHistory();
  history.hash = hash;
  const app = new AppState(h.api, history, h.now, {
    shell: options.shell ?? 'desktop',
    sidebarCollapsed: false,
  });
  return { history, app };
}

/**
 * The run detail, Settings, Notifications, the palette and the shortcut sheet load when first opened
 * (App.svelte imports each on demand): a test waits this long for one to appear after opening it. The first
 * open in a test worker compiles that chunk, which takes seconds on a loaded machine.
 */
export const FIRST_OPEN = { timeout: 20_000 } as const;

/** A test that opens one of those panels: room for FIRST_OPEN and the test's own steps after it. */
export const OPENS_A_PANEL = { timeout: 40_000 } as const;

export function renderApp(h: RealHost, hash = '', options: { shell?: Shell; delay?: number | null } = {}) {
  const { history, app } = createApp(h, hash, options);
  // `delay: null` keeps a test's clicks in one run of microtasks: no host push (a timer) lands between them.
  const user = userEvent.setup(options.delay === undefined ? {} : { delay: options.delay });
  render(App, { context: appContext(app) });
  return { history, app, user };
}
