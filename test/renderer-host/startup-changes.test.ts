/**
 * What changes while a page starts is still shown (docs/ARCHITECTURE.md#the-pages-connection): serve pushes
 * only to the event streams open at that moment, and a page's first reads and its stream are separate
 * requests. A runner that asks its question between the two used to leave the page without the row until
 * some later change. Driven with the real host on a temporary store, the real HTTP server, the real browser
 * client, and the orderings forced rather than hoped for.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../shared/channel-names';
import type { RunwardenApi } from '../../shared/contract';
import { startHttpServer, type ServeHandle } from '../../main/serve/http-server';
import { createHttpClient, type EventSourceLike } from '../../renderer/src/lib/api/http-client';
import { AppState } from '../../renderer/src/lib/state/app-state.svelte';
import { RunListState } from '../../renderer/src/lib/state/run-list.svelte';
import { MemoryHistory } from '../renderer/memory-history';
import { createRealHost, seedQuestion, type RealHost } from './real-host';

const TOKEN = 'startup-changes-test-token';
const NEEDS_YOU = { view: 'needs-you' as const, projectPath: null, search: '' };

let h: RealHost;
let server: ServeHandle | null = null;
const streams: FetchEventSource[] = [];

beforeEach(() => {
  h = createRealHost();
});
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await server?.close();
  server = null;
  h.cleanup();
});

/**
 * EventSource over fetch (Node has none), reading serve's real stream. It does not connect until `gate`
 * resolves, so a test decides when the stream reaches serve; 'open' fires when serve has answered, as a
 * browser's does.
 */
class FetchEventSource implements EventSourceLike {
  readyState = 0;
  readonly #listeners = new Map<string, Set<(event: MessageEvent<string>) => void>>();
  readonly #abort = new AbortController();

  constructor(url: string, gate: Promise<void>) {
    void this.#run(url, gate).catch(() => {
      if (this.readyState !== 2) this.#emit('error', '');
    });
  }

  async #run(url: string, gate: Promise<void>): Promise<void> {
    await gate;
    const res = await fetch(url, {
      headers: { Authorization: `Bearer ${TOKEN}` },
      signal: this.#abort.signal,
    });
    if (res.status !== 200 || res.body === null) {
      this.readyState = 2;
      this.#emit('error', '');
      return;
    }
    this.readyState = 1;
    this.#emit('open', '');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event !== undefined && data !== undefined) this.#emit(event, data);
      }
    }
  }

  #emit(type: string, data: string): void {
    for (const listener of this.#listeners.get(type) ?? []) listener(new MessageEvent(type, { data }));
  }

  addEventListener(type: string, listener: (event: MessageEvent<string>) => void): void {
    const set = this.#listeners.get(type) ?? new Set();
    set.add(listener);
    this.#listeners.set(type, set);
  }

  removeEventListener(type: string, listener: (event: MessageEvent<string>) => void): void {
    this.#listeners.get(type)?.delete(listener);
  }

  close(): void {
    this.readyState = 2;
    this.#abort.abort();
  }
}

/** Polls until check() holds or the deadline passes (no duration is asserted). */
async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('changes while the page starts', () => {
  it('a question asked after the first list read, before the stream reached serve, shows once it opens', async () => {
    server = await startHttpServer({
      token: TOKEN,
      port: 0,
      uiDir: h.projectDir,
      dispatch: (channel, input) => h.host.dispatch(channel as Channel, input),
    });
    const origin = `http://127.0.0.1:${server.port}`;
    let connect = () => {};
    const gate = new Promise<void>((resolve) => (connect = resolve));
    const api = createHttpClient({
      baseUrl: origin,
      fetch: (url, init) =>
        fetch(url, {
          ...init,
          headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${TOKEN}` },
        }),
      openEvents: (url) => {
        const stream = new FetchEventSource(url, gate);
        streams.push(stream);
        return stream;
      },
    });
    const app = new AppState(api, new MemoryHistory(), h.now);
    const stop = app.start();
    await until(() => app.list.loaded, 'the first page');
    expect(app.list.items).toEqual([]);

    // The runner asks; the host's change feed pushes it while no stream is open yet: to nobody.
    const { runId } = seedQuestion(h, { title: 'Deploy' });
    server.push('changed', { seq: 1, runIds: [runId], at: h.now() });
    connect();
    await until(() => streams[0]?.readyState === 1, 'the stream to open');

    await until(() => app.list.items.some((i) => i.run.id === runId), 'the row of the question');
    expect(app.list.items.map((i) => i.display.status)).toEqual(['needs-answer']);
    stop();
  }, 20_000);

  it('a change pushed while the first page is in flight is re-read once that page lands', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const api: RunwardenApi = {
      ...h.api,
      // The store answers at once; the answer reaches the page only later (a slow network, a busy tab).
      listRuns: async (input) => {
        reads += 1;
        const answer = await h.api.listRuns(input);
        if (reads === 1) await held;
        return answer;
      },
    };
    const list = new RunListState(api);
    const loading = list.load(NEEDS_YOU);
    await until(() => reads === 1, 'the first read');

    const { runId } = seedQuestion(h, { title: 'Rotate keys' });
    // The push for it arrives before the page read earlier does.
    const refreshed = list.refresh();
    release();
    await loading;
    await refreshed;
    expect(list.items.map((i) => i.run.id)).toEqual([runId]);
    expect(reads).toBe(2);
  }, 20_000);
});
