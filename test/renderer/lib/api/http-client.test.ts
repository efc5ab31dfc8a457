import { describe, expect, it } from 'vitest';
import { CHANNEL_METHODS } from '../../../../shared/channel-names';
import {
  helloCatchUp,
  streamCheckOutcome,
  createHttpClient,
  EXPIRED_MESSAGE,
  LOST_MESSAGE,
  type ConnectionSink,
  type EventSourceLike,
} from '../../../../renderer/src/lib/api/http-client';
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

function recordingSink() {
  const calls: string[] = [];
  const sink: ConnectionSink & { calls: string[] } = {
    calls,
    opened: () => calls.push('opened'),
    lost: () => calls.push('lost'),
    expired: () => calls.push('expired'),
  };
  return sink;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

function client(
  respond: (url: string, init: RequestInit) => Promise<Response>,
  connection?: ConnectionSink,
  timers?: Array<() => void>,
) {
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
    connection,
    setTimer: (run) => timers?.push(run),
    clearTimer: () => {},
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
    // (A 401 is the session gone, with its own message: see the test on why an action failed.)
    const refusal = { ok: false, error: { code: 'FORBIDDEN', message: 'Only pages of this server.' } };
    expect(await client(() => json(refusal, 403)).api.getStoreInfo({})).toEqual(refusal);
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

  it('tells changed-listeners to re-read on every reopen, and on a first open serve says no hello for', async () => {
    // Pushes go only to open streams: the gap before the first open (after the page's first reads) and
    // every reconnect's gap are lost. A serve that does not say how many pushes the stream missed
    // (`hello`) leaves the first open not knowing: it re-reads after a short wait.
    const { api, sources } = client(() => json({ ok: true, value: null }));
    const changes: unknown[] = [];
    const stop = api.on('changed', (payload) => changes.push(payload));
    const source = sources[0];
    if (source === undefined) throw new Error('no event source');
    expect(changes).toEqual([]);
    source.dispatch('open', '');
    await until(() => changes.length === 1);
    expect(changes[0]).toMatchObject({ runIds: [] });
    source.dispatch('open', '');
    expect(changes).toHaveLength(2);
    expect(changes[1]).toMatchObject({ runIds: [] });
    stop();
    source.dispatch('open', '');
    expect(changes).toHaveLength(2);
  });

  describe('the first open re-reads only when an answer may have missed a push', () => {
    /** Answers with serve's push count at the time it ran; `pending` holds answers to release later. */
    function counted() {
      const pending: Array<() => void> = [];
      let pushes = 0;
      let hold = false;
      const respond = () => {
        const at = pushes;
        const answer = () =>
          new Response(JSON.stringify({ ok: true, value: null }), {
            headers: { 'Content-Type': 'application/json', 'X-Runwarden-Pushes': String(at) },
          });
        if (!hold) return Promise.resolve(answer());
        return new Promise<Response>((resolve) => pending.push(() => resolve(answer())));
      };
      const made = client(respond);
      return {
        ...made,
        push: () => (pushes += 1),
        hold: (on: boolean) => (hold = on),
        release: () => pending.splice(0).forEach((run) => run()),
      };
    }

    it('no push between the first reads and the stream joining: nothing is re-read', async () => {
      const c = counted();
      const changes: unknown[] = [];
      c.api.on('changed', (p) => changes.push(p));
      await c.api.listRuns({ view: 'all', limit: 5 });
      await c.api.listProjects({});
      const source = c.sources[0] as FakeEventSource;
      source.dispatch('open', '');
      source.dispatch('hello', JSON.stringify({ pushes: 0 }));
      await new Promise((r) => setTimeout(r, 40));
      expect(changes).toEqual([]);
      // A real push still arrives as itself.
      source.dispatch('changed', JSON.stringify({ seq: 9, runIds: ['r'], at: 1 }));
      expect(changes).toEqual([{ seq: 9, runIds: ['r'], at: 1 }]);
    });

    it('a push sent after a read ran and before the stream joined: re-read once', async () => {
      const c = counted();
      const changes: unknown[] = [];
      c.api.on('changed', (p) => changes.push(p));
      await c.api.listRuns({ view: 'all', limit: 5 });
      c.push();
      await c.api.listProjects({});
      const source = c.sources[0] as FakeEventSource;
      source.dispatch('open', '');
      source.dispatch('hello', JSON.stringify({ pushes: 1 }));
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ runIds: [] });
      await c.api.listRuns({ view: 'all', limit: 5 });
      expect(changes).toHaveLength(1);
    });

    it('an answer still on its way when the stream joined is checked when it lands', async () => {
      const c = counted();
      const changes: unknown[] = [];
      c.api.on('changed', (p) => changes.push(p));
      c.hold(true);
      const early = c.api.listRuns({ view: 'all', limit: 5 });
      const late = c.api.listProjects({});
      c.push();
      const source = c.sources[0] as FakeEventSource;
      source.dispatch('open', '');
      source.dispatch('hello', JSON.stringify({ pushes: 1 }));
      expect(changes).toEqual([]);
      c.release();
      await Promise.all([early, late]);
      // Both ran before the push the stream missed: one re-read for the two.
      expect(changes).toHaveLength(1);
    });

    it('an answer without a push count, or a hello that says nothing usable, re-reads', async () => {
      const bare = client(() => json({ ok: true, value: null }));
      const changes: unknown[] = [];
      bare.api.on('changed', (p) => changes.push(p));
      await bare.api.listRuns({ view: 'all', limit: 5 });
      const source = bare.sources[0] as FakeEventSource;
      source.dispatch('open', '');
      source.dispatch('hello', JSON.stringify({ pushes: 0 }));
      expect(changes).toHaveLength(1);

      const odd = counted();
      const more: unknown[] = [];
      odd.api.on('changed', (p) => more.push(p));
      const oddSource = odd.sources[0] as FakeEventSource;
      oddSource.dispatch('open', '');
      oddSource.dispatch('hello', 'not json');
      expect(more).toHaveLength(1);
    });

    it('the browser reopening the same stream is a reconnect: it re-reads whatever hello said', async () => {
      const c = counted();
      const changes: unknown[] = [];
      c.api.on('changed', (p) => changes.push(p));
      const source = c.sources[0] as FakeEventSource;
      source.dispatch('open', '');
      source.dispatch('hello', JSON.stringify({ pushes: 0 }));
      expect(changes).toEqual([]);
      source.readyState = 0;
      source.dispatch('error', '');
      source.readyState = 1;
      source.dispatch('open', '');
      source.dispatch('hello', JSON.stringify({ pushes: 0 }));
      expect(changes).toHaveLength(1);
    });
  });

  it('sends the session key as a header on every call and in the event stream URL, reading it each time', async () => {
    let key: string | null = 'k1';
    const sources: FakeEventSource[] = [];
    const requests: Array<{ url: string; init: RequestInit }> = [];
    const api = createHttpClient({
      fetch: (url, init) => {
        requests.push({ url, init });
        return json({ ok: true, value: null });
      },
      openEvents: (url) => {
        const source = new FakeEventSource(url);
        sources.push(source);
        return source;
      },
      baseUrl: '',
      sessionKey: () => key,
    });
    await api.getStoreInfo({});
    key = 'k 2';
    await api.getStoreInfo({});
    const keyOf = (i: number) =>
      (requests[i]?.init.headers as Record<string, string> | undefined)?.['X-Runwarden-Key'];
    expect(keyOf(0)).toBe('k1');
    expect(keyOf(1)).toBe('k 2');
    api.on('changed', () => {});
    expect(sources[0]?.url).toBe('/api/events?key=k%202');
    key = null;
    await api.getStoreInfo({});
    expect(requests[2]?.init.headers).not.toHaveProperty('X-Runwarden-Key');
  });

  it('says why an action failed: serve not answering, or the session gone (nothing changed)', async () => {
    const sink = recordingSink();
    const down = await client(() => Promise.reject(new TypeError('fetch failed')), sink).api.cancelRun({
      runId: 'r',
    } as never);
    expect(down.ok).toBe(false);
    if (!down.ok) {
      expect(down.error.message).toBe(LOST_MESSAGE);
      expect(down.error.message).toMatch(/did not answer/);
    }
    // One failed request does not say the stream is down.
    expect(sink.calls).toEqual([]);
    const refused = await client(
      () => json({ ok: false, error: { code: 'FORBIDDEN', message: 'Not signed in' } }, 401),
      sink,
    ).api.getStoreInfo({});
    expect(refused).toEqual({ ok: false, error: { code: 'FORBIDDEN', message: EXPIRED_MESSAGE } });
    expect(EXPIRED_MESSAGE).toMatch(/nothing was changed/);
    expect(sink.calls).toEqual(['expired']);
  });

  it('tells the connection when the stream opens, drops (the browser retries) and reopens', () => {
    const sink = recordingSink();
    const { api, sources } = client(() => json({ ok: true, value: null }), sink);
    api.on('changed', () => {});
    const source = sources[0] as FakeEventSource;
    source.readyState = 1;
    source.dispatch('open', '');
    source.readyState = 0;
    source.dispatch('error', '');
    source.readyState = 1;
    source.dispatch('open', '');
    expect(sink.calls).toEqual(['opened', 'lost', 'opened']);
    expect(sources).toHaveLength(1);
  });

  it('when the browser gives up on the stream, asks serve about the session: 401 is expired, for good', async () => {
    const sink = recordingSink();
    const timers: Array<() => void> = [];
    const { api, sources, requests } = client(
      (url) =>
        url === '/api/session'
          ? json({ ok: false, error: { code: 'FORBIDDEN', message: 'no' } }, 401)
          : json({ ok: true, value: null }),
      sink,
      timers,
    );
    api.on('changed', () => {});
    const source = sources[0] as FakeEventSource;
    source.dispatch('open', '');
    source.readyState = 2;
    source.dispatch('error', '');
    await until(() => sink.calls.includes('expired'));
    expect(requests.at(-1)?.url).toBe('/api/session');
    expect(source.closed).toBe(true);
    expect(timers).toHaveLength(0);
    // No new stream for a session that is gone, even for a new subscriber.
    api.on('attention', () => {});
    expect(sources).toHaveLength(1);
  });

  it('reopens a stream the browser gave up on when serve is unreachable, and re-reads once back', async () => {
    const sink = recordingSink();
    const timers: Array<() => void> = [];
    let up = false;
    const { api, sources } = client(
      () => (up ? json({ ok: true, value: null }) : Promise.reject(new TypeError('refused'))),
      sink,
      timers,
    );
    const changes: unknown[] = [];
    const opened: unknown[] = [];
    api.on('changed', (p) => changes.push(p));
    api.on('open-run', (p) => opened.push(p));
    const first = sources[0] as FakeEventSource;
    first.dispatch('open', '');
    first.readyState = 2;
    first.dispatch('error', '');
    await until(() => timers.length === 1);
    expect(sink.calls).toEqual(['opened', 'lost']);
    up = true;
    timers.shift()?.();
    expect(sources).toHaveLength(2);
    const second = sources[1] as FakeEventSource;
    // The first open was still waiting for serve's hello (this fake sends none) when its stream failed.
    expect(changes).toHaveLength(0);
    second.dispatch('open', '');
    expect(sink.calls.at(-1)).toBe('opened');
    // Pushes in the gap were lost: listeners re-read at once, and the new stream delivers to the same
    // listeners.
    expect(changes).toHaveLength(1);
    second.dispatch('open-run', JSON.stringify({ runId: 'b' }));
    first.dispatch('open-run', JSON.stringify({ runId: 'stale' }));
    expect(opened).toEqual([{ runId: 'b' }]);
  });

  it('getApi prefers the preload API when present', () => {
    const preload = { marker: true } as unknown as NonNullable<Window['runwarden']>;
    const win = { runwarden: preload } as unknown as Window;
    expect(getApi(win)).toBe(preload);
  });
});

describe('push hub phases alone', () => {
  it('streamCheckOutcome: 401 is expired for good; 200 reopens; anything else is lost, then reopened', () => {
    expect(streamCheckOutcome(401)).toBe('expired');
    expect(streamCheckOutcome(200)).toBe('reopen');
    // 0: fetch threw (serve did not answer).
    for (const status of [0, 403, 500, 502, 503]) expect(streamCheckOutcome(status)).toBe('lost-reopen');
  });

  it('helloCatchUp: re-read when the hello is unreadable or an answer ran before the stream joined', () => {
    expect(helloCatchUp('{"pushes":5}', Number.POSITIVE_INFINITY)).toEqual({ joinedAt: 5, next: 'watch' });
    expect(helloCatchUp('{"pushes":5}', 5)).toEqual({ joinedAt: 5, next: 'watch' });
    expect(helloCatchUp('{"pushes":5}', 4)).toEqual({ joinedAt: 5, next: 'reread' });
    expect(helloCatchUp('{"pushes":5}', -1).next).toBe('reread');
    expect(helloCatchUp('not json', Number.POSITIVE_INFINITY).next).toBe('reread');
    expect(helloCatchUp('{"pushes":"5"}', Number.POSITIVE_INFINITY).next).toBe('reread');
    expect(helloCatchUp('{}', Number.POSITIVE_INFINITY).next).toBe('reread');
    expect(helloCatchUp('{"pushes":1.5}', Number.POSITIVE_INFINITY).next).toBe('reread');
  });
});
