/**
 * Browser-mode transport (`runwarden serve`, main/serve/http-server.ts): each channel is a POST to
 * `/api/invoke/<channel>` answered with the Result envelope; pushes arrive over one EventSource.
 */
import { CHANNEL_METHODS, type Channel, type PushEvent } from '../../../../shared/channel-names';
import type { Pushes, RunwardenApi } from '../../../../shared/contract';
import type { ErrorInfo, Result } from '../../../../shared/errors';

type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface EventSourceLike {
  /** 2 (CLOSED) once the browser has given up reconnecting, e.g. after a 401 from a restarted serve. */
  readonly readyState?: number;
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  removeEventListener(type: string, listener: (event: MessageEvent<string>) => void): void;
  close(): void;
}

export interface HttpClientDeps {
  fetch: FetchLike;
  openEvents: (url: string) => EventSourceLike;
  /** Prefix for every URL; '' in the browser (same origin). */
  baseUrl: string;
}

/** Builds a RunwardenApi over fetch + EventSource; never throws, every failure is a Result error. */
export function createHttpClient(deps: HttpClientDeps): RunwardenApi {
  const api: Record<string, unknown> = {};
  for (const [channel, method] of Object.entries(CHANNEL_METHODS) as Array<[Channel, string]>) {
    api[method] = (input: unknown) => invoke(deps, channel, input);
  }
  api.on = createPushHub(deps);
  return api as RunwardenApi;
}

async function invoke(deps: HttpClientDeps, channel: Channel, input: unknown): Promise<Result<unknown>> {
  let response: Response;
  try {
    response = await deps.fetch(`${deps.baseUrl}/api/invoke/${channel}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    });
  } catch {
    return failure({
      code: 'INTERNAL',
      message: 'Cannot reach Runwarden. Is `runwarden serve` still running?',
      recovery: { kind: 'retryLater' },
    });
  }
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

/** One EventSource shared by every listener, opened on the first subscription and closed after the last. */
function createPushHub(deps: HttpClientDeps): RunwardenApi['on'] {
  let source: EventSourceLike | null = null;
  let subscribers = 0;
  const changedListeners = new Set<(payload: Pushes['changed']) => void>();
  const statusListeners = new Set<(payload: Pushes['store-status']) => void>();
  let lastStatus: Pushes['store-status'] = { mode: 'read-write', modeReason: null, busy: false };
  const open = (): EventSourceLike => {
    const created = deps.openEvents(`${deps.baseUrl}/api/events`);
    let opens = 0;
    // EventSource reconnects by itself after a dropped connection, but pushes sent in the gap are lost:
    // after every reconnect, tell the UI that anything may have changed, so it re-reads what it shows.
    created.addEventListener('open', () => {
      opens += 1;
      if (opens === 1) return;
      for (const listener of changedListeners) listener({ seq: 0, runIds: [], at: Date.now() });
    });
    created.addEventListener('store-status', (message) => {
      try {
        lastStatus = JSON.parse(message.data) as Pushes['store-status'];
      } catch {
        // Dropped like any malformed push.
      }
    });
    // A closed stream is not retried by the browser: nothing on screen will update again. Say so.
    created.addEventListener('error', () => {
      if (created.readyState !== 2) return;
      for (const listener of statusListeners) listener({ ...lastStatus, disconnected: true });
    });
    return created;
  };
  return <E extends PushEvent>(event: E, listener: (payload: Pushes[E]) => void) => {
    source ??= open();
    const current = source;
    subscribers += 1;
    const changed = event === 'changed' ? (listener as (payload: Pushes['changed']) => void) : null;
    if (changed !== null) changedListeners.add(changed);
    const status = event === 'store-status' ? (listener as (payload: Pushes['store-status']) => void) : null;
    if (status !== null) statusListeners.add(status);
    const handler = (message: MessageEvent<string>) => {
      let payload: Pushes[E];
      try {
        payload = JSON.parse(message.data) as Pushes[E];
      } catch {
        return; // a malformed push is dropped; the next `changed` brings the state anyway
      }
      listener(payload);
    };
    current.addEventListener(event, handler);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      current.removeEventListener(event, handler);
      if (changed !== null) changedListeners.delete(changed);
      if (status !== null) statusListeners.delete(status);
      subscribers -= 1;
      if (subscribers === 0 && source === current) {
        current.close();
        source = null;
      }
    };
  };
}
