import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cacheControlFor,
  startHttpServer,
  type ServeHandle,
  type ServeOptions,
} from '../../../main/serve/http-server';

const TOKEN = 'a'.repeat(64);
let server: ServeHandle;
let uiDir: string;
const calls: Array<{ channel: string; input: unknown; apiClient: boolean }> = [];
const signIns: string[] = [];
const others: ServeHandle[] = [];

function makeUiDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rw-ui-'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><head><title>Runwarden</title></head><body></body>',
  );
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(dir, 'assets', 'index-DuElrMrj.js'), 'console.log(2)');
  return dir;
}

function start(extra: Partial<ServeOptions> = {}): Promise<ServeHandle> {
  return startHttpServer({
    token: TOKEN,
    port: 0,
    uiDir,
    dispatch: async (channel, input, origin) => {
      calls.push({ channel, input, apiClient: origin.apiClient });
      return { ok: true, value: { echoed: channel } };
    },
    ...extra,
  });
}

beforeAll(async () => {
  uiDir = makeUiDir();
  server = await start({ onSignIn: (next) => signIns.push(next) });
});
afterAll(async () => {
  await server.close();
  for (const other of others) await other.close();
});

const base = (s: ServeHandle = server) => `http://127.0.0.1:${s.port}`;
const invoke = (channel: string, init: RequestInit = {}) =>
  fetch(`${base()}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
    body: '{}',
    ...init,
  });

interface SignedIn {
  /** `name=value`, as a browser sends it back. */
  cookie: string;
  setCookie: string;
  key: string;
  html: string;
}

/** Opens a sign-in URL as a browser does and keeps what it gets: the cookie and the page's key. */
async function signIn(url: string): Promise<SignedIn> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(200);
  const setCookie = res.headers.getSetCookie()[0] ?? '';
  const html = await res.text();
  const key = /<meta name="runwarden-session-key" content="([^"]+)"/.exec(html)?.[1] ?? '';
  expect(key).not.toBe('');
  return { cookie: setCookie.split(';')[0] ?? '', setCookie, key, html };
}

function callAs(s: ServeHandle, headers: Record<string, string>, channel = 'store:info') {
  return fetch(`${base(s)}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: '{}',
  });
}

/** Polls until check() is true or the deadline passes (no duration is asserted). */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('runwarden serve over real HTTP', () => {
  it('binds loopback only and prints a one-time sign-in URL that does not carry the token', () => {
    expect(server.url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/\\?code=[A-Za-z0-9_-]{43}$`),
    );
    expect(server.url).not.toContain(TOKEN);
  });

  it('answers a channel with the dispatcher envelope when the token is right', async () => {
    const res = await invoke('runs:list');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, value: { echoed: 'runs:list' } });
  });

  it('tells the handlers a Bearer client from a signed-in browser (answers record which)', async () => {
    await invoke('interactions:answer');
    expect(calls.at(-1)).toMatchObject({ channel: 'interactions:answer', apiClient: true });
    const session = await signIn(server.signInUrl());
    const res = await callAs(
      server,
      { Cookie: session.cookie, 'X-Runwarden-Key': session.key },
      'interactions:answer',
    );
    expect(res.status).toBe(200);
    expect(calls.at(-1)).toMatchObject({ channel: 'interactions:answer', apiClient: false });
  });

  it('refuses the API without a token, or with a wrong one, before dispatching', async () => {
    const before = calls.length;
    const none = await fetch(`${base()}/api/invoke/runs:list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(none.status).toBe(401);
    const wrong = await invoke('runs:list', {
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${'b'.repeat(64)}` },
    });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    expect(calls.length).toBe(before);
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding) even with the token', async () => {
    const before = calls.length;
    const origin = await invoke('runs:list', {
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${TOKEN}`,
        Origin: 'http://evil.example',
      },
    });
    expect(origin.status).toBe(403);
    const otherPort = await invoke('runs:list', {
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${TOKEN}`,
        Origin: `http://127.0.0.1:${server.port + 1}`,
      },
    });
    expect(otherPort.status).toBe(403);
    const host = await new Promise<number>((resolve, reject) => {
      // fetch() will not let a page set Host; a raw request can, as a rebinding attacker's browser would.
      import('node:http').then(({ request }) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: '/api/invoke/runs:list',
            method: 'POST',
            headers: { Host: `evil.example:${server.port}`, Authorization: `Bearer ${TOKEN}` },
          },
          (res) => resolve(res.statusCode ?? 0),
        );
        req.on('error', reject);
        req.end('{}');
      }, reject);
    });
    expect(host).toBe(403);
    expect(calls.length).toBe(before);
  });

  it('exchanges the code for a per-port HttpOnly SameSite=Strict cookie with an expiry, unrelated to the token', async () => {
    const session = await signIn(server.signInUrl());
    expect(session.setCookie).toMatch(new RegExp(`^rw_session_${server.port}=[A-Za-z0-9_-]{43};`));
    expect(session.setCookie).toContain('HttpOnly');
    expect(session.setCookie).toContain('SameSite=Strict');
    expect(session.setCookie).toContain('Path=/');
    const maxAge = Number(/Max-Age=(\d+)/.exec(session.setCookie)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(12 * 60 * 60);
    expect(session.setCookie).not.toContain(TOKEN);
    expect(session.key).not.toBe(TOKEN);
    expect(session.cookie.split('=')[1]).not.toBe(session.key);
    // The sign-in page is the UI itself, never cached.
    expect(session.html).toContain('<title>Runwarden</title>');

    const both = await callAs(server, { Cookie: session.cookie, 'X-Runwarden-Key': session.key });
    expect(both.status).toBe(200);
    expect(await both.json()).toEqual({ ok: true, value: { echoed: 'store:info' } });
    const before = calls.length;
    // Either half alone authenticates nothing: the cookie is what other ports receive.
    expect((await callAs(server, { Cookie: session.cookie })).status).toBe(401);
    expect((await callAs(server, { 'X-Runwarden-Key': session.key })).status).toBe(401);
    expect(
      (
        await callAs(server, {
          Cookie: `rw_session_${server.port}=${session.key}`,
          'X-Runwarden-Key': session.key,
        })
      ).status,
    ).toBe(401);
    expect((await callAs(server, { Cookie: `rw_session_${server.port}=${TOKEN}` })).status).toBe(401);
    expect(calls.length).toBe(before);
  });

  it('a code works once: used again it is refused, unless this browser is already signed in', async () => {
    const url = server.signInUrl();
    const first = await signIn(url);
    const again = await fetch(url, { redirect: 'manual' });
    expect(again.status).toBe(403);
    expect(await again.text()).toMatch(/already used/);
    expect(again.headers.getSetCookie()).toEqual([]);
    // The printed URL opened a second time in the browser that used it: on to the app, no new session.
    const reopened = await fetch(url, { redirect: 'manual', headers: { Cookie: first.cookie } });
    expect(reopened.status).toBe(302);
    expect(reopened.headers.get('location')).toBe('/');
    expect(reopened.headers.getSetCookie()).toEqual([]);
    const bad = await fetch(`${base()}/?code=nope`, { redirect: 'manual' });
    expect(bad.status).toBe(403);
    // The old form of URL signs nobody in.
    const oldForm = await fetch(`${base()}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(oldForm.headers.getSetCookie()).toEqual([]);
  });

  it('a browser already signed in that opens a fresh sign-in URL keeps its session: its other tabs stay signed in', async () => {
    const first = await signIn(server.signInUrl());
    const headers = { Cookie: first.cookie, 'X-Runwarden-Key': first.key };
    // Another tab of the same browser opens the next URL: the browser sends its cookie along.
    const url = server.signInUrl();
    const again = await fetch(url, { redirect: 'manual', headers: { Cookie: first.cookie } });
    expect(again.status).toBe(200);
    // The same cookie and key: a new pair would replace the cookie the first tab sends at once, while its
    // key (the origin's storage) changes only once the new page has run, and meanwhile it is refused.
    expect(again.headers.getSetCookie()[0]?.split(';')[0]).toBe(first.cookie);
    expect(await again.text()).toContain(`content="${first.key}"`);
    expect((await callAs(server, headers)).status).toBe(200);
    // The code is spent all the same: elsewhere it signs nobody in.
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);
    // A cookie that is no session of this server gets a session of its own.
    const stranger = await fetch(server.signInUrl(), {
      redirect: 'manual',
      headers: { Cookie: `rw_session_${server.port}=not-a-session` },
    });
    expect(stranger.status).toBe(200);
    expect(stranger.headers.getSetCookie()[0]?.split(';')[0]).not.toBe(
      `rw_session_${server.port}=not-a-session`,
    );
  });

  it('only a real navigation spends a code: not a HEAD, nor a prefetch', async () => {
    const url = server.signInUrl();
    expect((await fetch(url, { method: 'HEAD', redirect: 'manual' })).status).toBe(503);
    const prefetch = await fetch(url, {
      redirect: 'manual',
      headers: { 'Sec-Purpose': 'prefetch;prerender' },
    });
    expect(prefetch.status).toBe(503);
    expect(prefetch.headers.getSetCookie()).toEqual([]);
    await signIn(url);
  });

  it('after each sign-in hands out a fresh one-time URL for the next browser', async () => {
    const before = signIns.length;
    await signIn(server.signInUrl());
    expect(signIns.length).toBe(before + 1);
    const next = signIns.at(-1) ?? '';
    expect(next).toMatch(/\?code=/);
    await signIn(next);
    expect((await fetch(next, { redirect: 'manual' })).status).toBe(403);
    // An API client mints one with its token.
    const minted = await fetch(`${base()}/api/session/code`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    const { value } = (await minted.json()) as { value: { url: string } };
    await signIn(value.url);
  });

  it('keeps two servers apart: each has its own cookie, and one session opens nothing on the other', async () => {
    const second = await start();
    others.push(second);
    const a = await signIn(server.signInUrl());
    const b = await signIn(second.url);
    expect(a.cookie.split('=')[0]).toBe(`rw_session_${server.port}`);
    expect(b.cookie.split('=')[0]).toBe(`rw_session_${second.port}`);
    // A browser sends both cookies to both ports: each server reads only its own.
    const cookies = `${a.cookie}; ${b.cookie}`;
    expect((await callAs(server, { Cookie: cookies, 'X-Runwarden-Key': a.key })).status).toBe(200);
    expect((await callAs(second, { Cookie: cookies, 'X-Runwarden-Key': b.key })).status).toBe(200);
    expect((await callAs(second, { Cookie: cookies, 'X-Runwarden-Key': a.key })).status).toBe(401);
    const renamed = `rw_session_${second.port}=${a.cookie.split('=')[1]}`;
    expect((await callAs(second, { Cookie: renamed, 'X-Runwarden-Key': a.key })).status).toBe(401);
    expect(
      (await fetch(server.url.replace(String(server.port), String(second.port)), { redirect: 'manual' }))
        .status,
    ).toBe(403);
  });

  it('a session expires', async () => {
    const short = await start({ sessionLifetimeMs: 300 });
    others.push(short);
    const s = await signIn(short.url);
    expect(s.setCookie).toMatch(/Max-Age=1;|Max-Age=1$/);
    const headers = { Cookie: s.cookie, 'X-Runwarden-Key': s.key };
    await until(async () => (await callAs(short, headers)).status === 401, 'the session to expire');
    const check = await fetch(`${base(short)}/api/session`, { headers });
    expect(check.status).toBe(401);
  });

  it('answers the session check with 200 while the session is good', async () => {
    const s = await signIn(server.signInUrl());
    const check = await fetch(`${base()}/api/session`, {
      headers: { Cookie: s.cookie, 'X-Runwarden-Key': s.key },
    });
    expect(check.status).toBe(200);
    expect((await fetch(`${base()}/api/session`, { headers: { Cookie: s.cookie } })).status).toBe(401);
    // The key in the URL counts only on the event stream (docs/ARCHITECTURE.md#browser-mode).
    const inUrl = await fetch(`${base()}/api/session?key=${encodeURIComponent(s.key)}`, {
      headers: { Cookie: s.cookie },
    });
    expect(inUrl.status).toBe(401);
  });

  it('rejects unknown channels, non-JSON bodies and oversized bodies with typed errors', async () => {
    const unknown = await invoke('runs:destroyEverything');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const form = await invoke('runs:list', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${TOKEN}` },
    });
    expect(form.status).toBe(415);
    const garbage = await invoke('runs:list', { body: '{not json' });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: { code: string } }).error.code).toBe('VALIDATION');
    const huge = await invoke('runs:list', { body: JSON.stringify({ search: 'x'.repeat(1_100_000) }) });
    expect(huge.status).toBe(413);
  });

  it('serves the UI with the CSP header and never escapes the UI folder', async () => {
    const page = await fetch(`${base()}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    // The plain page carries no session key: only the sign-in response does.
    expect(await page.text()).not.toContain('runwarden-session-key');
    const escape = await fetch(`${base()}/..%2f..%2f..%2fetc%2fpasswd`);
    expect(escape.status).toBe(404);
    const malformed = await fetch(`${base()}/%E0%A4%A`);
    expect(malformed.status).toBe(404);
    const malformedChannel = await invoke('%E0%A4%A');
    expect(malformedChannel.status).toBe(404);
    expect((await fetch(`${base()}/assets`)).status).toBe(404);
    expect((await fetch(`${base()}/assets/app.js`)).status).toBe(200);
  });

  it('lets the browser keep the built assets, named by their content, and checks the rest every time', async () => {
    const hashed = await fetch(`${base()}/assets/index-DuElrMrj.js`);
    expect(hashed.status).toBe(200);
    expect(hashed.headers.get('cache-control')).toBe('max-age=31536000, immutable');
    for (const plain of ['/', '/index.html', '/assets/app.js'])
      expect((await fetch(`${base()}${plain}`)).headers.get('cache-control')).toBe('no-cache');
    // A missing hashed name is a 404 the browser must not keep.
    const missing = await fetch(`${base()}/assets/index-AAAAAAAA.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control') ?? '').not.toContain('immutable');
    expect(cacheControlFor('assets/index-DuElrMrj.css')).toContain('immutable');
    expect(cacheControlFor('assets/sub/index-DuElrMrj.js')).toBe('no-cache');
    expect(cacheControlFor('favicon.svg')).toBe('no-cache');
  });

  it('refuses a symlink inside the UI folder that points outside it, signed in or not', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'rw-secret-'));
    writeFileSync(path.join(outside, 'secret.txt'), 'the store lives here');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(uiDir, 'leak.txt'));
    symlinkSync(outside, path.join(uiDir, 'leakdir'));
    symlinkSync('/etc/passwd', path.join(uiDir, 'passwd'));
    symlinkSync(path.join(uiDir, 'assets', 'app.js'), path.join(uiDir, 'inside.js'));
    const s = await signIn(server.signInUrl());
    for (const headers of [{}, { Cookie: s.cookie }, { Cookie: s.cookie, 'X-Runwarden-Key': s.key }]) {
      for (const file of ['/leak.txt', '/leakdir/secret.txt', '/passwd']) {
        const res = await fetch(`${base()}${file}`, { headers });
        expect(res.status, file).toBe(404);
        expect(await res.text()).not.toContain('the store lives here');
      }
      // A link that stays inside the folder is just another file of the UI.
      expect((await fetch(`${base()}/inside.js`, { headers })).status).toBe(200);
    }
  });

  it('serves a UI folder that is itself reached through a symlink', async () => {
    const linkParent = mkdtempSync(path.join(os.tmpdir(), 'rw-ui-link-'));
    const linked = path.join(linkParent, 'ui');
    symlinkSync(uiDir, linked);
    const viaLink = await start({ uiDir: linked });
    others.push(viaLink);
    expect((await fetch(`${base(viaLink)}/assets/app.js`)).status).toBe(200);
    await signIn(viaLink.url);
  });

  it('treats an aborted upload as a closed client: no dispatch, no stack trace, serve keeps answering', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const before = calls.length;
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        [
          'POST /api/invoke/runs:list HTTP/1.1',
          `Host: 127.0.0.1:${server.port}`,
          `Authorization: Bearer ${TOKEN}`,
          'Content-Type: application/json',
          'Content-Length: 100000',
          '',
          '{"search":"partial',
        ].join('\r\n'),
      );
      await new Promise((r) => setTimeout(r, 100));
      const answered: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => answered.push(chunk));
      socket.destroy();
      // The server's side of the abort is immediate on loopback; give it a moment, then look.
      await new Promise((r) => setTimeout(r, 300));
      expect((await invoke('runs:list')).status).toBe(200);
      expect(errors).not.toHaveBeenCalled();
      expect(calls.length).toBe(before + 1);
      expect(Buffer.concat(answered).toString()).not.toContain('500');
    } finally {
      errors.mockRestore();
    }
  });

  it('says how many pushes it had sent: on each answer, and as the first event of a stream', async () => {
    // Its own server: the count starts at 0 and only this test pushes.
    const counting = await start();
    others.push(counting);
    const at = `http://127.0.0.1:${counting.port}`;
    const answer = () =>
      fetch(`${at}/api/invoke/runs:list`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
        body: '{}',
      });
    expect((await answer()).headers.get('x-runwarden-pushes')).toBe('0');
    counting.push('changed', { seq: 1, runIds: [], at: 1 });
    counting.push('attention', { counts: {}, needsYou: 0, tray: 'idle' });
    expect((await answer()).headers.get('x-runwarden-pushes')).toBe('2');

    const controller = new AbortController();
    const res = await fetch(`${at}/api/events`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: hello\ndata: {"pushes":2}\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    // Before any push: a page compares it with its answers' counts.
    expect(text.indexOf('event: hello')).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain('event: changed');
    counting.push('changed', { seq: 2, runIds: [], at: 2 });
    while (!text.includes('event: changed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('event: changed\ndata: {"seq":2,"runIds":[],"at":2}');
    expect((await answer()).headers.get('x-runwarden-pushes')).toBe('3');
    controller.abort();
  });

  it('streams pushes as server-sent events, to a Bearer client or a session with its key', async () => {
    const controller = new AbortController();
    const res = await fetch(`${base()}/api/events`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    server.push('changed', { seq: 7, runIds: ['run_1'], at: 1 });
    while (!text.includes('event: changed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('event: changed\ndata: {"seq":7,"runIds":["run_1"],"at":1}');
    controller.abort();

    const s = await signIn(server.signInUrl());
    const cookieOnly = await fetch(`${base()}/api/events`, { headers: { Cookie: s.cookie } });
    expect(cookieOnly.status).toBe(401);
    const stream = new AbortController();
    const withKey = await fetch(`${base()}/api/events?key=${encodeURIComponent(s.key)}`, {
      headers: { Cookie: s.cookie },
      signal: stream.signal,
    });
    expect(withKey.status).toBe(200);
    stream.abort();
  });
});

describe('connections that have not authenticated', () => {
  /** Opens n raw sockets that send nothing; counts how many the server closes. */
  async function idleSockets(port: number, n: number) {
    const sockets: net.Socket[] = [];
    let closedByServer = 0;
    for (let i = 0; i < n; i++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('close', () => (closedByServer += 1));
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      sockets.push(socket);
    }
    return {
      closed: () => closedByServer,
      destroy: () => {
        for (const socket of sockets) socket.destroy();
      },
    };
  }

  it('are capped: with 200 idle sockets open, serve still answers, having closed all but the newest 64', async () => {
    const s = await start();
    const idle = await idleSockets(s.port, 200);
    try {
      const res = await fetch(`${base(s)}/api/invoke/runs:list`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
        body: '{}',
      });
      expect(res.status).toBe(200);
      await until(() => idle.closed() >= 200 - 64, 'the server to close the oldest idle sockets');
      expect(idle.closed()).toBeLessThan(200);
    } finally {
      idle.destroy();
      await s.close();
    }
  });

  it('time out before authenticating, while an authenticated stream stays open', async () => {
    const s = await start({ pendingTimeoutMs: 300 });
    const stream = new AbortController();
    try {
      const events = await fetch(`${base(s)}/api/events`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
        signal: stream.signal,
      });
      const reader = (events.body as ReadableStream<Uint8Array>).getReader();
      const idle = await idleSockets(s.port, 5);
      await until(() => idle.closed() === 5, 'idle sockets to time out');
      // The authenticated stream outlived the pre-authentication timeout and still delivers.
      s.push('changed', { seq: 9, runIds: [], at: 2 });
      const decoder = new TextDecoder();
      let text = '';
      while (!text.includes('"seq":9')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      expect(text).toContain('"seq":9');
    } finally {
      stream.abort();
      await s.close();
    }
  });

  it('a busy socket that never authenticates is timed out too (static files and refused API calls)', async () => {
    const s = await start({ pendingTimeoutMs: 300 });
    const socket = net.connect(s.port, '127.0.0.1');
    let closed = false;
    let answers = 0;
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => (answers += chunk.toString().split('HTTP/1.1 ').length - 1));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // A request every 50 ms keeps the connection from ever being idle, so only the pre-authentication
    // limit can end it; a session cookie without its key (what another port receives) does not help.
    const signedIn = await signIn(s.url);
    const paths = ['/assets/app.js', '/api/session'];
    let i = 0;
    const writer = setInterval(() => {
      if (!closed)
        socket.write(
          `GET ${paths[i++ % 2]} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nCookie: ${signedIn.cookie}\r\n\r\n`,
        );
    }, 50);
    try {
      await until(() => closed, 'the never-authenticated socket to be closed');
      expect(answers).toBeGreaterThan(1);
    } finally {
      clearInterval(writer);
      socket.destroy();
      await s.close();
    }
  });
});
