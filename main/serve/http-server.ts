/**
 * Browser mode (SPEC §7): the same contract over loopback HTTP. Binds 127.0.0.1 only, requires a random
 * token (exchanged once for a SameSite=Strict cookie), checks Host and Origin on every request, serves
 * the built renderer, and streams pushes as Server-Sent Events.
 */
import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { PushEvent } from '../../shared/channel-names';
import { isChannel, type Pushes } from '../../shared/contract';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../shared/csp';
import type { ErrorInfo, Result } from '../../shared/errors';

export const SESSION_COOKIE = 'rw_session';
const MAX_BODY = 1024 * 1024;
const PING_MS = 15_000;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

export interface ServeOptions {
  token: string;
  port: number;
  uiDir: string;
  dispatch: (channel: string, input: unknown) => Promise<Result<unknown>>;
}

export interface ServeHandle {
  readonly port: number;
  readonly url: string;
  push<E extends PushEvent>(event: E, payload: Pushes[E]): void;
  close(): Promise<void>;
}

/** Starts the server and resolves once it listens. */
export async function startHttpServer(options: ServeOptions): Promise<ServeHandle> {
  const clients = new Set<http.ServerResponse>();
  let port = 0;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('runwarden serve: request failed', error);
      if (!res.headersSent)
        sendJson(res, 500, envelopeError('INTERNAL', 'The request failed inside Runwarden.'));
      else res.end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    setCommonHeaders(res);
    if (!hostAllowed(req.headers.host, port) || !originAllowed(req.headers.origin, port)) {
      sendJson(
        res,
        403,
        envelopeError('FORBIDDEN', 'Only http://127.0.0.1 pages of this server may call it.'),
      );
      return;
    }
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);

    if (url.pathname.startsWith('/api/')) {
      if (!authorized(req, options.token)) {
        sendJson(
          res,
          401,
          envelopeError('FORBIDDEN', 'Missing or wrong token: open the URL runwarden serve printed.'),
        );
        return;
      }
      res.setHeader('Cache-Control', 'no-store');
      if (req.method === 'GET' && url.pathname === '/api/events') return openEventStream(res);
      const prefix = '/api/invoke/';
      if (req.method === 'POST' && url.pathname.startsWith(prefix)) {
        const channel = safeDecode(url.pathname.slice(prefix.length));
        if (channel === null || !isChannel(channel)) {
          sendJson(res, 404, envelopeError('NOT_FOUND', `Unknown channel ${channel ?? url.pathname}.`));
          return;
        }
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
          // A form post from another page cannot set this header without a CORS preflight we never grant.
          sendJson(res, 415, envelopeError('VALIDATION', 'Send JSON (Content-Type: application/json).'));
          return;
        }
        const body = await readBody(req);
        if (body === null) {
          sendJson(res, 413, envelopeError('VALIDATION', 'The request body is larger than 1 MiB.'));
          return;
        }
        let input: unknown;
        try {
          input = body.length === 0 ? {} : JSON.parse(body);
        } catch {
          sendJson(res, 400, envelopeError('VALIDATION', 'The request body is not valid JSON.'));
          return;
        }
        sendJson(res, 200, await options.dispatch(channel, input));
        return;
      }
      sendJson(res, 404, envelopeError('NOT_FOUND', `No API at ${req.method} ${url.pathname}.`));
      return;
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, envelopeError('VALIDATION', 'Only GET is served here.'));
      return;
    }
    const token = url.searchParams.get('token');
    if (url.pathname === '/' && token !== null) {
      if (!tokensEqual(token, options.token)) {
        sendText(res, 403, 'That token is not valid for this server. Open the URL runwarden serve printed.');
        return;
      }
      res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${options.token}; HttpOnly; SameSite=Strict; Path=/`);
      res.setHeader('Location', '/');
      res.writeHead(302).end();
      return;
    }
    await serveStatic(res, url.pathname);
  }

  function openEventStream(res: http.ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
    res.write(': connected\n\n');
    clients.add(res);
    res.on('close', () => clients.delete(res));
  }

  async function serveStatic(res: http.ServerResponse, pathname: string): Promise<void> {
    const decoded = safeDecode(pathname);
    if (decoded === null) {
      sendText(res, 404, 'Not found.');
      return;
    }
    const relative = pathname === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
    const root = path.resolve(options.uiDir);
    const file = path.resolve(root, relative);
    if (file !== root && !file.startsWith(root + path.sep)) {
      sendText(res, 404, 'Not found.');
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      if (relative === 'index.html') {
        sendText(res, 503, 'The UI is not built. Run `npm run build` and start runwarden serve again.');
      } else {
        sendText(res, 404, 'Not found.');
      }
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'no-cache',
    });
    res.end(bytes);
  }

  const ping = setInterval(() => {
    for (const client of clients) client.write(': ping\n\n');
  }, PING_MS);
  ping.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    url: `http://127.0.0.1:${port}/?token=${options.token}`,
    push(event, payload) {
      const frame = `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
      for (const client of clients) client.write(frame);
    },
    close() {
      clearInterval(ping);
      for (const client of clients) client.end();
      clients.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets (and a browser reconnecting its event stream) must not hold the exit open.
      server.closeAllConnections();
      return closed;
    },
  };
}

/** decodeURIComponent that answers null for a malformed escape instead of throwing. */
function safeDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

export function originAllowed(origin: string | undefined, port: number): boolean {
  return (
    origin === undefined || origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`
  );
}

function authorized(req: http.IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ') && tokensEqual(header.slice(7), token)) return true;
  const cookie = parseCookies(req.headers.cookie)[SESSION_COOKIE];
  return cookie !== undefined && tokensEqual(cookie, token);
}

function tokensEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return cookies;
}

function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooBig ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function setCommonHeaders(res: http.ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY_HEADER);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

function envelopeError(code: ErrorInfo['code'], message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
