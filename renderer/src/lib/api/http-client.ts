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
} from '../../../../shared/browser-session';
import { CHANNEL_METHODS, type Channel, type PushEvent } from '../../../../shared/channel-names';
import type { Pushes, RunwardenApi } from '../../../../shared/contract';
import type { ErrorInfo, Result } from '../../../../shared/errors';

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

/**
 * One EventSource shared by every listener, opened on the first subscription and closed after the last.
 * The browser retries a dropped stream by itself; a stream it gave up on (a non-200 answer) is checked
 * with SESSION_CHECK_PATH: 401 means the session is gone for good, anything else is reopened after a delay.
 */
function createPushHub(deps: HttpClientDeps, watch: AnswerWatch): RunwardenApi['on'] {
  const connection = deps.connection ?? NO_SINK;
  const reopenDelayMs = deps.reopenDelayMs ?? 3_000;
  const helloWaitMs = deps.helloWaitMs ?? 1_000;
  const setTimer = deps.setTimer ?? ((run: () => void, ms: number) => setTimeout(run, ms));
  const clearTimer = deps.clearTimer ?? ((timer: unknown) => clearTimeout(timer as number));
  const listeners = new Map<string, Set<AnyListener>>();
  let source: EventSourceLike | null = null;
  let attached = new Set<string>();
  let reopenTimer: unknown = null;
  let gone = false;
  /** The first stream of this page has not opened yet: its open re-reads only what a push may have changed. */
  let firstOpen = true;

  const deliver = (from: EventSourceLike, event: string, message: MessageEvent<string>) => {
    if (from !== source) return; // a stream already replaced
    let payload: unknown;
    try {
      payload = JSON.parse(message.data);
    } catch {
      return; // a malformed push is dropped; the next `changed` brings the state anyway
    }
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };

  const attach = (event: string) => {
    const current = source;
    if (current === null || attached.has(event)) return;
    attached.add(event);
    current.addEventListener(event, (message) => deliver(current, event, message));
  };

  const eventsUrl = () => {
    const key = deps.sessionKey?.() ?? null;
    const query = key === null ? '' : `?${SESSION_KEY_PARAM}=${encodeURIComponent(key)}`;
    return `${deps.baseUrl}/api/events${query}`;
  };

  const open = () => {
    const created = deps.openEvents(eventsUrl());
    source = created;
    attached = new Set();
    for (const event of listeners.keys()) attach(event);
    // serve sends a push only to the streams open at that moment: whatever changed before this one opened
    // (while it was down, or on the first open, between the page's first reads and the stream reaching
    // serve) is told to no one. So after a reconnect the UI re-reads as if anything changed. On the first
    // open, serve's `hello` says how many pushes it had sent when the stream joined, and each answer how
    // many it had sent when it ran: only an answer that ran before one of those pushes needs a re-read
    // (docs/ARCHITECTURE.md#the-pages-connection).
    const rereadAll = () => {
      for (const listener of listeners.get('changed') ?? []) listener({ seq: 0, runIds: [], at: Date.now() });
    };
    const first = firstOpen;
    firstOpen = false;
    let helloTimer: ReturnType<typeof setTimeout> | null = null;
    let helloSeen = false;
    let reread = false;
    let opens = 0;
    const rereadOnce = () => {
      if (reread || source !== created) return;
      reread = true;
      watch.onAnswer = null;
      rereadAll();
    };
    created.addEventListener('open', () => {
      if (source !== created) return;
      connection.opened();
      opens += 1;
      // The browser reopens a dropped stream by itself: the same source opening again is a reconnect.
      if (!first || opens > 1) {
        watch.onAnswer = null;
        rereadAll();
      }
      // A serve that says no hello: re-read as on a reconnect.
      else if (!helloSeen) helloTimer ??= setTimeout(rereadOnce, helloWaitMs);
    });
    created.addEventListener(STREAM_HELLO_EVENT, (message) => {
      if (!first || source !== created || helloSeen) return;
      helloSeen = true;
      if (helloTimer !== null) clearTimeout(helloTimer);
      let joinedAt = Number.NaN;
      try {
        joinedAt = (JSON.parse(message.data) as { pushes?: unknown }).pushes as number;
      } catch {
        // read below as unknown
      }
      if (!Number.isSafeInteger(joinedAt) || watch.fewest < joinedAt) {
        rereadOnce();
        return;
      }
      // Answers still on their way may have run before the stream joined, and before a push it missed.
      watch.onAnswer = (pushes) => {
        if (pushes < joinedAt) rereadOnce();
      };
    });
    created.addEventListener('error', () => {
      if (source !== created) return;
      if (created.readyState !== 2) {
        connection.lost();
        return;
      }
      created.close();
      void checkThenReopen(created);
    });
  };

  const checkThenReopen = async (closed: EventSourceLike) => {
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
    if (source !== closed) return; // unsubscribed meanwhile
    if (status === 401) {
      gone = true;
      source = null;
      connection.expired();
      return;
    }
    if (status !== 200) connection.lost();
    reopenTimer = setTimer(() => {
      reopenTimer = null;
      if (source === closed) open();
    }, reopenDelayMs);
  };

  const shutdown = () => {
    if (reopenTimer !== null) clearTimer(reopenTimer);
    reopenTimer = null;
    source?.close();
    source = null;
  };

  return <E extends PushEvent>(event: E, listener: (payload: Pushes[E]) => void) => {
    const own = listener as AnyListener;
    const set = listeners.get(event) ?? new Set<AnyListener>();
    set.add(own);
    listeners.set(event, set);
    if (source === null && !gone) open();
    else attach(event);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      set.delete(own);
      if (set.size === 0) listeners.delete(event);
      if (listeners.size === 0) shutdown();
    };
  };
}
