/**
 * Opening a run in the window (a deep link, a tray item, a notification click): the window is raised at
 * once, and the run is pushed to the page only while the page listens for `open-run` (the preload says so
 * over LISTENING_CHANNEL). Until then the latest run waits here. Load events are not used: an in-page view
 * change can start a load that never finishes, after which every later click only raised the window.
 */
import type { PushEvent } from '../../shared/channel-names';

export interface RunOpenerDeps {
  /** Shows and focuses the window. */
  reveal(): void;
  /** Pushes `open-run` to the page; false if there is no page to push to. */
  push(runId: string): boolean;
}

export interface RunOpener {
  open(runId: string): void;
  /** The set of pushes the page listens to, as the preload reported it. */
  listening(events: readonly PushEvent[]): void;
  /** The page went away (a new document started loading, or its renderer died): hold runs until it listens. */
  pageGone(): void;
  /** The run waiting for the page, if any. */
  readonly pending: string | null;
}

export function createRunOpener(deps: RunOpenerDeps, initial: string | null = null): RunOpener {
  let ready = false;
  let pending = initial;

  const flush = (): void => {
    if (!ready || pending === null) return;
    const runId = pending;
    if (deps.push(runId)) pending = null;
  };

  return {
    open(runId) {
      pending = runId;
      deps.reveal();
      flush();
    },
    listening(events) {
      ready = events.includes('open-run');
      flush();
    },
    pageGone() {
      ready = false;
    },
    get pending() {
      return pending;
    },
  };
}
