import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type ServeHandle } from '../../../main/serve/http-server';

const TOKEN = 'a'.repeat(64);
let server: ServeHandle;
const calls: Array<{ channel: string; input: unknown }> = [];

beforeAll(async () => {
  const uiDir = mkdtempSync(path.join(os.tmpdir(), 'rw-ui-'));
  writeFileSync(path.join(uiDir, 'index.html'), '<!doctype html><title>Runwarden</title>');
  server = await startHttpServer({
    token: TOKEN,
    port: 0,
    uiDir,
    dispatch: async (channel, input) => {
      calls.push({ channel, input });
      return { ok: true, value: { echoed: channel } };
    },
  });
});
afterAll(() => server.close());

const base = () => `http://127.0.0.1:${server.port}`;
const invoke = (channel: string, init: RequestInit = {}) =>
  fetch(`${base()}/api/invoke/${channel}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
    body: '{}',
    ...init,
  });

describe('runwarden serve over real HTTP', () => {
  it('binds loopback only and prints a tokened URL', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
  });

  it('answers a channel with the dispatcher envelope when the token is right', async () => {
    const res = await invoke('runs:list');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, value: { echoed: 'runs:list' } });
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

  it('exchanges the URL token for an HttpOnly SameSite=Strict cookie that then authorises the API', async () => {
    const res = await fetch(`${base()}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const session = cookie.split(';')[0] ?? '';
    const api = await fetch(`${base()}/api/invoke/store:info`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: session },
      body: '{}',
    });
    expect(api.status).toBe(200);
    const bad = await fetch(`${base()}/?token=nope`, { redirect: 'manual' });
    expect(bad.status).toBe(403);
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
    const escape = await fetch(`${base()}/..%2f..%2f..%2fetc%2fpasswd`);
    expect(escape.status).toBe(404);
    const malformed = await fetch(`${base()}/%E0%A4%A`);
    expect(malformed.status).toBe(404);
    const malformedChannel = await invoke('%E0%A4%A');
    expect(malformedChannel.status).toBe(404);
  });

  it('streams pushes as server-sent events', async () => {
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
  });
});
