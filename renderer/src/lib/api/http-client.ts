/**
 * Browser-mode transport (`runwarden serve`, docs/ARCHITECTURE.md#browser-mode): each channel is a POST
 * to `/api/invoke/<channel>` answered with the Result envelope; pushes arrive over one EventSource. Every
 * request carries the session key (the cookie comes with it), and what happens to the connection is told
 * to a ConnectionSink, so the page can say Live / Reconnecting / Disconnected / session expired.
 */
import {
  PUSH_COUNT_HEADER,
  SESSION_CHECK_PATH,
  SESSION_KEY_HEADER,
  SESSION_KEY_PARAM,
  STREAM_HELLO_EVENT,
} from '$shared/browser-session';
import { CHANNEL_METHODS, type Channel, type PushEvent } from '$shared/channel-names';
import type { Pushes, RunwardenApi } from '$shared/contract';
import type { ErrorInfo, Result } from '$shared/errors';

type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface EventSourceLike {
  /** 0 while (re)connecting, 1 open, 2 (CLOSED) once the browser has given up, e.g. after a 401. */
  readonly readyState?: number;
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  removeEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
}

/** What the transport learns about the connection (connection-state.svelte.ts shows it). */
export interface ConnectionSink {
  /** The push stream is open: the page is live. */
  opened(): void;
  /** The push stream dropped or serve did not answer its check; trying again. */
  lost(): void;
  /** serve answered 401: this browser's session is gone (serve restarted, or the session expired). */
  expired(): void;
}

export interface HttpClientDeps {
  fetch: FetchLike;
  openEvents: (url: string) => EventSourceLike;
  /** Prefix for every URL; '' in the browser (same origin). */
  baseUrl: string;
  /** The session key of this page's origin, read at every request (another tab may sign in again). */
  sessionKey?: () => string | null;
  connection?: ConnectionSink;
  /** How long to wait before reopening a stream the browser gave up on. */
  reopenDelayMs?: number;
  /** How long the first open of the stream waits for serve's `hello` before re-reading anyway. */
  helloWaitMs?: number;
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

const NO_SINK: ConnectionSink = { opened() {}, lost() {}, expired() {} };

export const LOST_MESSAGE =
  'runwarden serve did not answer (is it still running?), so this may not have reached it. The page reconnects by itself; check the run once it shows Live again.';
export const EXPIRED_MESSAGE =
  'This browser is no longer signed in to runwarden serve (it was restarted, or the session expired), so nothing was changed. Open the newest URL serve printed.';

/**
 * What the page's answers have seen of serve's pushes (PUSH_COUNT_HEADER): the fewest pushes any answer ran
 * after, and a hook the push hub sets to hear of each answer while its first stream is open.
 */
interface AnswerWatch {
  fewest: number;
  onAnswer: ((pushes: number) => void) | null;
}

/** Builds a RunwardenApi over fetch + EventSource; never throws, every failure is a Result error. */
export function createHttpClient(deps: HttpClientDeps): RunwardenApi {
  const api: Record<string, unknown> = {};
  const watch: AnswerWatch = { fewest: Number.POSITIVE_INFINITY, onAnswer: null };
  for (const [channel, method] of Object.entries(CHANNEL_METHODS) as Array<[Channel, string]>) {
    api[method] = (input: unknown) => invoke(deps, channel, input, watch);
  }
  api.on = createPushHub(deps, watch);
  return api as RunwardenApi;
}

/** An answer's push count; -1 (before any push) when serve did not say, so it never counts as up to date. */
function pushesOf(response: Response): number {
  const text = response.headers?.get(PUSH_COUNT_HEADER) ?? null;
  const n = text === null ? Number.NaN : Number(text);
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}

function keyHeaders(deps: HttpClientDeps): Record<string, string> {
  const key = deps.sessionKey?.() ?? null;
  return key === null ? {} : { [SESSION_KEY_HEADER]: key };
}

async function invoke(
  deps: HttpClientDeps,
  channel: Channel,
  input: unknown,
  watch: AnswerWatch,
): Promise<Result<unknown>> {
  const connection = deps.connection ?? NO_SINK;
  let response: Response;
  try {
    response = await deps.fetch(`${deps.baseUrl}/api/invoke/${channel}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', ...keyHeaders(deps) },
      body: JSON.stringify(input ?? {}),
    });
  } catch {
    // Not told to the sink: one failed request does not make a stream that is still open "down".
    return failure({ code: 'INTERNAL', message: LOST_MESSAGE, recovery: { kind: 'retryLater' } });
  }
  if (response.status === 401) {
    connection.expired();
    return failure({ code: 'FORBIDDEN', message: EXPIRED_MESSAGE });
  }
  const pushes = pushesOf(response);
  watch.fewest = Math.min(watch.fewest, pushes);
  watch.onAnswer?.(pushes);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return failure({
      code: 'INTERNAL',
      message: `Runwarden answered ${response.status} without a JSON body.`,
    });
  }
  if (isEnvelope(body)) return body;
  return failure({
    code: 'INTERNAL',
    message: `Runwarden answered ${response.status} with an unexpected body.`,
  });
}

function failure(error: ErrorInfo): Result<never> {
  return { ok: false, error };
}

function isEnvelope(body: unknown): body is Result<unknown> {
  if (typeof body !== 'object' || body === null || !('ok' in body)) return false;
  if (body.ok === true) return 'value' in body;
  if (body.ok !== false || !('error' in body)) return false;
  const error = body.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

type AnyListener = (payload: unknown) => void;

/** What the push hub's phases share: its listeners, and the one stream open for them (or none). */
interface PushHub {
  readonly deps: HttpClientDeps;
  readonly watch: AnswerWatch;
  readonly connection: ConnectionSink;
  readonly helloWaitMs: number;
  readonly reopenDelayMs: number;
  readonly setTimer: (run: () => void, ms: number) => unknown;
  readonly clearTimer: (timer: unknown) => void;
  readonly listeners: Map<string, Set<AnyListener>>;
  source: EventSourceLike | null;
  /** Events with a listener on the current source. */
  attached: Set<string>;
  reopenTimer: unknown;
  /** serve said the session is gone: nothing opens again. */
  gone: boolean;
  /** The first stream of this page has not opened yet: its open re-reads only what a push may have changed. */
  firstOpen: boolean;
}

/**
 * One EventSource shared by every listener, opened on the first subscription and closed after the last.
 * The browser retries a dropped stream by itself; a stream it gave up on (a non-200 answer) is checked
 * with SESSION_CHECK_PATH: 401 means the session is gone for good, anything else is reopened after a delay.
 * Its phases: subscribe, connect (openStream), catch up on what the stream missed (wireCatchUp), dispatch
 * (deliver), and reconnect (wireStreamError, checkThenReopen).
 */
function createPushHub(deps: HttpClientDeps, watch: AnswerWatch): RunwardenApi['on'] {
  const hub: PushHub = {
    deps,
    watch,
    connection: deps.connection ?? NO_SINK,
    helloWaitMs: deps.helloWaitMs ?? 1_000,
    reopenDelayMs: deps.reopenDelayMs ?? 3_000,
    setTimer: deps.setTimer ?? ((run: () => void, ms: number) => setTimeout(run, ms)),
    clearTimer: deps.clearTimer ?? ((timer: unknown) => clearTimeout(timer as number)),
    listeners: new Map(),
    source: null,
    attached: new Set(),
    reopenTimer: null,
    gone: false,
    firstOpen: true,
  };
  return <E extends PushEvent>(event: E, listener: (payload: Pushes[E]) => void) =>
    subscribe(hub, event, listener as AnyListener);
}

/** Adds a listener (opening the stream for the first one); returns its unsubscribe. */
function subscribe(hub: PushHub, event: string, listener: AnyListener): () => void {
  const set = hub.listeners.get(event) ?? new Set<AnyListener>();
  set.add(listener);
  hub.listeners.set(event, set);
  if (hub.source === null && !hub.gone) openStream(hub);
  else attach(hub, event);
  let active = true;
  return () => {
    if (!active) return;
    active = false;
    set.delete(listener);
    if (set.size === 0) hub.listeners.delete(event);
    if (hub.listeners.size === 0) shutdown(hub);
  };
}

/** A push to its listeners, if it came on the current stream and parses. */
function deliver(hub: PushHub, from: EventSourceLike, event: string, message: MessageEvent<string>): void {
  if (from !== hub.source) return; // a stream already replaced
  let payload: unknown;
  try {
    payload = JSON.parse(message.data);
  } catch {
    return; // a malformed push is dropped; the next `changed` brings the state anyway
  }
  for (const listener of hub.listeners.get(event) ?? []) listener(payload);
}

function attach(hub: PushHub, event: string): void {
  const current = hub.source;
  if (current === null || hub.attached.has(event)) return;
  hub.attached.add(event);
  current.addEventListener(event, (message) => deliver(hub, current, event, message));
}

function eventsUrl(deps: HttpClientDeps): string {
  const key = deps.sessionKey?.() ?? null;
  const query = key === null ? '' : `?${SESSION_KEY_PARAM}=${encodeURIComponent(key)}`;
  return `${deps.baseUrl}/api/events${query}`;
}

/** Phase "connect": a new stream, with the listeners of every event attached to it. */
function openStream(hub: PushHub): void {
  const created = hub.deps.openEvents(eventsUrl(hub.deps));
  hub.source = created;
  hub.attached = new Set();
  for (const event of hub.listeners.keys()) attach(hub, event);
  const first = hub.firstOpen;
  hub.firstOpen = false;
  wireCatchUp(hub, created, first);
  wireStreamError(hub, created);
}

/**
 * What serve's `hello` on a first open means: `reread` when it cannot be read, or an answer already landed
 * that ran before the stream joined (a push it sent then reached no one); else `watch` the answers still
 * on their way.
 */
export function helloCatchUp(
  data: string,
  fewestAnswerPushes: number,
): { joinedAt: number; next: 'reread' | 'watch' } {
  let joinedAt = Number.NaN;
  try {
    joinedAt = (JSON.parse(data) as { pushes?: unknown }).pushes as number;
  } catch {
    // read below as unknown
  }
  const next = !Number.isSafeInteger(joinedAt) || fewestAnswerPushes < joinedAt ? 'reread' : 'watch';
  return { joinedAt, next };
}

/**
 * Phase "catch up": serve sends a push only to the streams open at that moment: whatever changed before
 * this one opened (while it was down, or on the first open, between the page's first reads and the stream
 * reaching serve) is told to no one. So after a reconnect the UI re-reads as if anything changed. On the
 * first open, serve's `hello` says how many pushes it had sent when the stream joined, and each answer how
 * many it had sent when it ran: only an answer that ran before one of those pushes needs a re-read
 * (docs/ARCHITECTURE.md#the-pages-connection).
 */
function wireCatchUp(hub: PushHub, created: EventSourceLike, first: boolean): void {
  const { watch } = hub;
  const rereadAll = () => {
    for (const listener of hub.listeners.get('changed') ?? [])
      listener({ seq: 0, runIds: [], at: Date.now() });
  };
  let helloTimer: ReturnType<typeof setTimeout> | null = null;
  let helloSeen = false;
  let reread = false;
  let opens = 0;
  const rereadOnce = () => {
    if (reread || hub.source !== created) return;
    reread = true;
    watch.onAnswer = null;
    rereadAll();
  };
  created.addEventListener('open', () => {
    if (hub.source !== created) return;
    hub.connection.opened();
    opens += 1;
    // The browser reopens a dropped stream by itself: the same source opening again is a reconnect.
    if (!first || opens > 1) {
      watch.onAnswer = null;
      rereadAll();
    }
    // A serve that says no hello: re-read as on a reconnect.
    else if (!helloSeen) helloTimer ??= setTimeout(rereadOnce, hub.helloWaitMs);
  });
  created.addEventListener(STREAM_HELLO_EVENT, (message) => {
    if (!first || hub.source !== created || helloSeen) return;
    helloSeen = true;
    if (helloTimer !== null) clearTimeout(helloTimer);
    const { joinedAt, next } = helloCatchUp(message.data, watch.fewest);
    if (next === 'reread') {
      rereadOnce();
      return;
    }
    // Answers still on their way may have run before the stream joined, and before a push it missed.
    watch.onAnswer = (pushes) => {
      if (pushes < joinedAt) rereadOnce();
    };
  });
}

/** Phase "reconnect": a drop the browser retries is `lost`; a stream it gave up on is checked, then reopened. */
function wireStreamError(hub: PushHub, created: EventSourceLike): void {
  created.addEventListener('error', () => {
    if (hub.source !== created) return;
    if (created.readyState !== 2) {
      hub.connection.lost();
      return;
    }
    created.close();
    void checkThenReopen(hub, created);
  });
}

/**
 * What the session check's status means for a stream the browser gave up on: `expired` (401, for good),
 * `reopen` (serve answered: the stream failed for another reason), `lost-reopen` (serve did not answer, or
 * answered with an error: the page is not live; reopened after the delay all the same).
 */
export function streamCheckOutcome(status: number): 'expired' | 'reopen' | 'lost-reopen' {
  if (status === 401) return 'expired';
  return status === 200 ? 'reopen' : 'lost-reopen';
}

async function checkThenReopen(hub: PushHub, closed: EventSourceLike): Promise<void> {
  const { deps } = hub;
  let status = 0;
  try {
    const response = await deps.fetch(`${deps.baseUrl}${SESSION_CHECK_PATH}`, {
      method: 'GET',
      credentials: 'same-origin',
      headers: keyHeaders(deps),
    });
    status = response.status;
  } catch {
    status = 0;
  }
  if (hub.source !== closed) return; // unsubscribed meanwhile
  const outcome = streamCheckOutcome(status);
  if (outcome === 'expired') {
    hub.gone = true;
    hub.source = null;
    hub.connection.expired();
    return;
  }
  if (outcome === 'lost-reopen') hub.connection.lost();
  hub.reopenTimer = hub.setTimer(() => {
    hub.reopenTimer = null;
    if (hub.source === closed) openStream(hub);
  }, hub.reopenDelayMs);
}

function shutdown(hub: PushHub): void {
  if (hub.reopenTimer !== null) hub.clearTimer(hub.reopenTimer);
  hub.reopenTimer = null;
  hub.source?.close();
  hub.source = null;
}
