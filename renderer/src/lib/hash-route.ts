/**
 * The URL hash holds the selected project, view, search, machine and run, so deep links and back/forward work:
 * `#/needs-you?project=%2Fhome%2Fme%2Fapp&run=run_01&q=deploy`. Another machine's run is `NAME:ID`
 * (`#/run/box:run_01`), and `machine=box` (or `this`) shows one machine's runs (docs/REMOTES.md#in-the-window).
 */
import { RUN_VIEWS, type RunView } from '$shared/views';

export interface Route {
  view: RunView;
  projectPath: string | null;
  runId: string | null;
  search: string;
  /** One machine's runs: `this`, or an attached machine's name; absent or null: every machine's. */
  machine?: string | null;
}

export const DEFAULT_ROUTE: Route = { view: 'needs-you', projectPath: null, runId: null, search: '' };

function isView(value: string): value is RunView {
  return (RUN_VIEWS as readonly string[]).includes(value);
}

/** A run id, or another machine's as `NAME:ID`. */
const RUN_ID = /^(?:[a-z][a-z0-9-]{0,31}:)?[A-Za-z0-9_-]{1,64}$/;
const MACHINE = /^[a-z][a-z0-9-]{0,31}$/;

function hashParts(hash: string): { segments: string[]; params: URLSearchParams } {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  const [path = '', query = ''] = body.split('?', 2);
  return { segments: path.replace(/^\/+/, '').split('/'), params: new URLSearchParams(query) };
}

/**
 * Parses a location hash; anything unknown falls back to the default route (`hashProblem` says what).
 * `#/run/<id>` opens that run in All, as the desktop's `runwarden://run/<id>` link does.
 */
export function parseHash(hash: string): Route {
  const { segments, params } = hashParts(hash);
  const [name = '', second = ''] = segments;
  if (name === 'run' && RUN_ID.test(second))
    return { view: 'all', projectPath: null, runId: second, search: '' };
  const run = params.get('run');
  const machine = params.get('machine');
  return {
    view: isView(name) ? name : DEFAULT_ROUTE.view,
    projectPath: params.get('project') || null,
    runId: run !== null && RUN_ID.test(run) ? run : null,
    search: params.get('q') ?? '',
    ...(machine !== null && MACHINE.test(machine) && { machine }),
  };
}

/** What a hash asked for that the window cannot show, in a sentence; null when it is all understood. */
export function hashProblem(hash: string): string | null {
  const { segments, params } = hashParts(hash);
  const [name = '', second = ''] = segments;
  if (name === 'run') return RUN_ID.test(second) ? null : `“${second}” is not a run id: showing Needs you.`;
  if (name !== '' && !isView(name)) return `There is no view “${name}”: showing Needs you.`;
  const run = params.get('run');
  if (run !== null && !RUN_ID.test(run)) return `“${run}” is not a run id: no run is open.`;
  const machine = params.get('machine');
  if (machine !== null && !MACHINE.test(machine))
    return `“${machine}” is not a machine's name: showing every machine.`;
  return null;
}

/** The hash for a route; the inverse of parseHash. */
export function formatHash(route: Route): string {
  const params = new URLSearchParams();
  if (route.projectPath) params.set('project', route.projectPath);
  if (route.search) params.set('q', route.search);
  if (route.machine) params.set('machine', route.machine);
  if (route.runId) params.set('run', route.runId);
  const query = params.toString();
  return `#/${route.view}${query ? `?${query}` : ''}`;
}

export function sameRoute(a: Route, b: Route): boolean {
  return (
    a.view === b.view &&
    a.projectPath === b.projectPath &&
    a.runId === b.runId &&
    a.search === b.search &&
    (a.machine ?? null) === (b.machine ?? null)
  );
}

/** Where the app reads and writes its hash: the window in the app, an in-memory log in tests. */
export interface HashHistory {
  read(): string;
  push(hash: string): void;
  replace(hash: string): void;
  /** Calls back on back/forward and on links that change the hash; returns the unsubscribe. */
  listen(onChange: () => void): () => void;
}

export function windowHashHistory(win: Window): HashHistory {
  return {
    read: () => win.location.hash,
    push: (hash) => {
      if (win.location.hash !== hash) win.history.pushState(null, '', hash);
    },
    replace: (hash) => win.history.replaceState(null, '', hash),
    listen: (onChange) => {
      win.addEventListener('hashchange', onChange);
      win.addEventListener('popstate', onChange);
      return () => {
        win.removeEventListener('hashchange', onChange);
        win.removeEventListener('popstate', onChange);
      };
    },
  };
}
