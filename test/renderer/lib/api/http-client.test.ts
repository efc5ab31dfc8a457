import { describe, expect, it } from 'vitest';
import { CHANNEL_METHODS } from '../../../../shared/channel-names';
import { createHttpClient, type EventSourceLike } from '../../../../renderer/src/lib/api/http-client';
import { getApi } from '../../../../renderer/src/lib/api/get-api';

class FakeEventSource implements EventSourceLike {
  readyState = 0;
  listeners = new Map<string, Set<(event: MessageEvent<string>) => void>>();
  closed = false;
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    const set = this.listeners.get(type) ?? new Set();
    set.add(listener);
    this.listeners.set(type, set);
  }
  removeEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.get(type)?.delete(listener);
  }
  close() {
    this.closed = true;
  }
  dispatch(type: string, data: string) {
    for (const l of this.listeners.get(type) ?? []) l(new MessageEvent(type, { data }));
  }
}

function client(respond: (url: string, init: RequestInit) => Promise<Response>) {
  const sources: FakeEventSource[] = [];
  const requests: Array<{ url: string; init: RequestInit }> = [];
  const api = createHttpClient({
    fetch: (url, init) => {
      requests.push({ url, init });
      return respond(url, init);
    },
    openEvents: (url) => {
      const source = new FakeEventSource(url);
      sources.push(source);
      return source;
    },
    baseUrl: '',
  });
  return { api, sources, requests };
}

const json = (body: unknown, status = 200) =>
  Promise.resolve(
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }),
  );

describe('browser-mode HTTP client', () => {
  it('has one method per channel', () => {
    const { api } = client(() => json({ ok: true, value: null }));
    for (const method of Object.values(CHANNEL_METHODS)) expect(typeof api[method]).toBe('function');
  });

  it('POSTs JSON to /api/invoke/<channel> with same-origin credentials and returns the envelope', async () => {
    const { api, requests } = client(() => json({ ok: true, value: { items: [], nextCursor: null } }));
    const result = await api.listRuns({ view: 'stale', limit: 50 });
    expect(result).toEqual({ ok: true, value: { items: [], nextCursor: null } });
    expect(requests[0]?.url).toBe('/api/invoke/runs:list');
    expect(requests[0]?.init.method).toBe('POST');
    expect(requests[0]?.init.credentials).toBe('same-origin');
    expect(JSON.parse(String(requests[0]?.init.body))).toEqual({ view: 'stale', limit: 50 });
  });

  it('passes refusals through and turns transport failures into Result errors', async () => {
    const refusal = { ok: false, error: { code: 'FORBIDDEN', message: 'Bad token.' } };
    expect(await client(() => json(refusal, 401)).api.getStoreInfo({})).toEqual(refusal);
    const down = await client(() => Promise.reject(new TypeError('fetch failed'))).api.getStoreInfo({});
    expect(down.ok).toBe(false);
    if (!down.ok) expect(down.error.recovery).toEqual({ kind: 'retryLater' });
    const html = await client(() =>
      Promise.resolve(new Response('<html>', { status: 502 })),
    ).api.getStoreInfo({});
    expect(html.ok).toBe(false);
    const odd = await client(() => json({ hello: 1 })).api.getStoreInfo({});
    expect(odd.ok).toBe(false);
  });

  it('shares one EventSource for pushes, drops malformed ones, and closes after the last unsubscribe', () => {
    const { api, sources } = client(() => json({ ok: true, value: null }));
    const changed: unknown[] = [];
    const opened: unknown[] = [];
    const stopChanged = api.on('changed', (p) => changed.push(p));
    const stopOpen = api.on('open-run', (p) => opened.push(p));
    expect(sources).toHaveLength(1);
    expect(sources[0]?.url).toBe('/api/events');
    sources[0]?.dispatch('changed', JSON.stringify({ seq: 1, runIds: ['a'], at: 1 }));
    sources[0]?.dispatch('changed', '{not json');
    sources[0]?.dispatch('open-run', JSON.stringify({ runId: 'a' }));
    expect(changed).toEqual([{ seq: 1, runIds: ['a'], at: 1 }]);
    expect(opened).toEqual([{ runId: 'a' }]);
    stopChanged();
    stopChanged();
    expect(sources[0]?.closed).toBe(false);
    stopOpen();
    expect(sources[0]?.closed).toBe(true);
  });

  it('after the event stream reconnects, tells changed-listeners to re-read (pushes in the gap are lost)', () => {
    const { api, sources } = client(() => json({ ok: true, value: null }));
    const changes: unknown[] = [];
    const stop = api.on('changed', (payload) => changes.push(payload));
    const source = sources[0];
    if (source === undefined) throw new Error('no event source');
    source.dispatch('open', '');
    expect(changes).toEqual([]);
    source.dispatch('open', '');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ runIds: [] });
    stop();
    source.dispatch('open', '');
    expect(changes).toHaveLength(1);
  });

  it('tells store-status listeners when the stream closes for good, keeping the last known store mode', () => {
    const { api, sources } = client(() => json({ ok: true, value: null }));
    const statuses: unknown[] = [];
    api.on('store-status', (payload) => statuses.push(payload));
    const source = sources[0];
    if (source === undefined) throw new Error('no event source');
    source.dispatch(
      'store-status',
      JSON.stringify({ mode: 'read-only', modeReason: 'newer schema', busy: false }),
    );
    source.dispatch('error', '');
    expect(statuses).toHaveLength(1);
    source.readyState = 2;
    source.dispatch('error', '');
    expect(statuses.at(-1)).toEqual({
      mode: 'read-only',
      modeReason: 'newer schema',
      busy: false,
      disconnected: true,
    });
  });

  it('getApi prefers the preload API when present', () => {
    const preload = { marker: true } as unknown as NonNullable<Window['runwarden']>;
    const win = { runwarden: preload } as unknown as Window;
    expect(getApi(win)).toBe(preload);
  });
});
