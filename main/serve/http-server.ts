/**
 * Browser mode: the same contract over loopback HTTP (docs/ARCHITECTURE.md#browser-mode). Binds
 * 127.0.0.1 only, signs a browser in with a one-time code (session-store.ts), checks Host and Origin on
 * every request, serves the built renderer from inside its folder only, caps connections that have not
 * authenticated, and streams pushes as Server-Sent Events.
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { PushEvent } from '../../shared/channel-names';
import { isChannel, type Pushes } from '../../shared/contract';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../shared/csp';
import {
  PUSH_COUNT_HEADER,
  SESSION_CHECK_PATH,
  SESSION_KEY_HEADER,
  SESSION_KEY_META,
  SESSION_KEY_PARAM,
  SIGN_IN_PARAM,
  STREAM_HELLO_EVENT,
} from '../../shared/browser-session';
import type { ErrorInfo, Result } from '../../shared/errors';
import { limitPendingConnections, type PendingConnections } from './pending-connections';
import { readUiFile } from './read-ui-file';
import { createSessionStore, sessionCookieName, type Session, type SessionStore } from './session-store';

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
  /** The programmatic credential (`Authorization: Bearer`); never put in a URL or a cookie. */
  token: string;
  port: number;
  uiDir: string;
  /** `origin.apiClient`: the request came with the Bearer token, not from a signed-in browser. */
  dispatch: (channel: string, input: unknown, origin: { apiClient: boolean }) => Promise<Result<unknown>>;
  /** Called after a browser signed in, with a fresh one-time URL for the next one. */
  onSignIn?: (nextUrl: string) => void;
  sessionLifetimeMs?: number;
  pendingTimeoutMs?: number;
  maxPendingConnections?: number;
}

export interface ServeHandle {
  readonly port: number;
  /** The first one-time sign-in URL. */
  readonly url: string;
  /** Another one-time sign-in URL. */
  signInUrl(): string;
  push<E extends PushEvent>(event: E, payload: Pushes[E]): void;
  close(): Promise<void>;
}

interface StreamClient {
  res: http.ServerResponse;
  /** Null for a Bearer client. */
  sessionId: string | null;
}

/**
 * What the request phases share: the options, the sessions, the open event streams, the connection limit,
 * and the address, known once the server listens.
 */
interface ServerState {
  readonly options: ServeOptions;
  readonly sessions: SessionStore;
  readonly clients: Set<StreamClient>;
  readonly pending: PendingConnections;
  port: number;
  cookieName: string;
  /** Pushes sent so far: tells a page whether its first reads ran before or after a push its stream missed. */
  pushCount: number;
}

/** Starts the server and resolves once it listens. */
export async function startHttpServer(options: ServeOptions): Promise<ServeHandle> {
  // Requests arrive only once the server listens, by when `ready` is set.
  const server = http.createServer((req, res) => {
    handleRequest(ready, req, res).catch((error: unknown) => {
      // A client that went away mid-request is not a failure of Runwarden: nothing to answer, nothing to log.
      if (clientGone(req, res)) return;
      console.error('runwarden serve: request failed', error);
      if (!res.headersSent)
        sendJson(res, 500, envelopeError('INTERNAL', 'The request failed inside Runwarden.'));
      else res.end();
    });
  });
  const ready: ServerState = {
    options,
    sessions: createSessionStore({ lifetimeMs: options.sessionLifetimeMs }),
    clients: new Set<StreamClient>(),
    pending: limitPendingConnections(server, {
      timeoutMs: options.pendingTimeoutMs,
      max: options.maxPendingConnections,
    }),
    port: 0,
    cookieName: '',
    pushCount: 0,
  };

  const ping = setInterval(() => pingStreams(ready), PING_MS);
  ping.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  ready.port = (server.address() as AddressInfo).port;
  ready.cookieName = sessionCookieName(ready.port);

  return {
    port: ready.port,
    url: signInUrl(ready),
    signInUrl: () => signInUrl(ready),
    push(event, payload) {
      ready.pushCount += 1;
      const frame = `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
      for (const client of ready.clients) client.res.write(frame);
    },
    close() {
      clearInterval(ping);
      for (const client of ready.clients) client.res.end();
      ready.clients.clear();
      ready.pending.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets (and a browser reconnecting its event stream) must not hold the exit open.
      server.closeAllConnections();
      return closed;
    },
  };
}

/** One request, in phases: refuse foreign pages, parse the URL and cookie, then the API or a page. */
async function handleRequest(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  setCommonHeaders(res);
  const { port, cookieName } = state;
  if (!hostAllowed(req.headers.host, port) || !originAllowed(req.headers.origin, port)) {
    sendJson(res, 403, envelopeError('FORBIDDEN', 'Only http://127.0.0.1 pages of this server may call it.'));
    return;
  }
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
  const cookieId = parseCookies(req.headers.cookie)[cookieName];
  if (url.pathname.startsWith('/api/')) return routeApi(state, req, res, url, cookieId);
  return routePage(state, req, res, url, cookieId);
}

/** `/api/…`: authorise (a Bearer client or a browser session), then route to a stream, a session call or a channel. */
async function routeApi(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  cookieId: string | undefined,
): Promise<void> {
  const access = authorize(state, req, url, cookieId);
  if (access === null) {
    sendJson(
      res,
      401,
      envelopeError(
        'FORBIDDEN',
        'Not signed in (or the session expired): open the newest URL runwarden serve printed.',
      ),
    );
    return;
  }
  // Only a full credential lifts the limit: the cookie alone is what other ports receive.
  state.pending.trust(req.socket);
  res.setHeader('Cache-Control', 'no-store');
  if (req.method === 'GET' && url.pathname === '/api/events') return openEventStream(state, res, access);
  if (req.method === 'GET' && url.pathname === SESSION_CHECK_PATH) {
    sendJson(res, 200, { ok: true, value: null });
    return;
  }
  if (req.method === 'POST' && url.pathname === '/api/session/code') {
    sendJson(res, 200, { ok: true, value: { url: signInUrl(state) } });
    return;
  }
  const prefix = '/api/invoke/';
  if (req.method === 'POST' && url.pathname.startsWith(prefix)) {
    return invokeChannel(state, req, res, url, prefix, access.sessionId === null);
  }
  sendJson(res, 404, envelopeError('NOT_FOUND', `No API at ${req.method} ${url.pathname}.`));
}

/** `POST /api/invoke/<channel>`: parse the channel and the JSON body, dispatch, respond with the result. */
async function invokeChannel(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  prefix: string,
  apiClient: boolean,
): Promise<void> {
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
  if (body.kind === 'closed') return;
  if (body.kind === 'tooBig') {
    sendJson(res, 413, envelopeError('VALIDATION', 'The request body is larger than 1 MiB.'));
    return;
  }
  let input: unknown;
  try {
    input = body.text.length === 0 ? {} : JSON.parse(body.text);
  } catch {
    sendJson(res, 400, envelopeError('VALIDATION', 'The request body is not valid JSON.'));
    return;
  }
  // Read before the dispatch: a push sent while it runs counts as one this answer may not show.
  const pushesBefore = state.pushCount;
  const result = await state.options.dispatch(channel, input, { apiClient });
  if (clientGone(req, res)) return;
  res.setHeader(PUSH_COUNT_HEADER, String(pushesBefore));
  sendJson(res, 200, result);
}

/** Anything but `/api/`: GET only; `/?code=…` signs a browser in, the rest is the built UI. */
async function routePage(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
  cookieId: string | undefined,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendJson(res, 405, envelopeError('VALIDATION', 'Only GET is served here.'));
    return;
  }
  const code = url.searchParams.get(SIGN_IN_PARAM);
  if (url.pathname === '/' && code !== null) {
    // Only a real navigation spends the code: not a HEAD, nor a browser prefetching a typed URL.
    if (req.method !== 'GET' || (req.headers['sec-purpose'] ?? '').includes('prefetch')) {
      res.setHeader('Cache-Control', 'no-store');
      sendText(res, 503, 'Open this URL in a browser to sign in.');
      return;
    }
    await signIn(state, req, res, code, cookieId);
    return;
  }
  await serveStatic(state.options.uiDir, res, url.pathname);
}

/** Who may call the API: a Bearer client, or a browser session (cookie and key together), else null. */
function authorize(
  state: ServerState,
  req: http.IncomingMessage,
  url: URL,
  cookieId: string | undefined,
): { sessionId: string | null } | null {
  const { options, sessions } = state;
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ') && tokensEqual(header.slice(7), options.token))
    return { sessionId: null };
  const headerKey = req.headers[SESSION_KEY_HEADER.toLowerCase()];
  // The key goes in the URL only where a header cannot: the event stream (EventSource sets no headers).
  // Anywhere else a URL key would land in logs and history (docs/ARCHITECTURE.md#browser-mode).
  const queryKey =
    req.method === 'GET' && url.pathname === '/api/events'
      ? (url.searchParams.get(SESSION_KEY_PARAM) ?? undefined)
      : undefined;
  const key = typeof headerKey === 'string' ? headerKey : queryKey;
  return sessions.verify(cookieId, key) ? { sessionId: cookieId ?? null } : null;
}

/**
 * `/?code=…`: a fresh code becomes a session (cookie + the page with its key), or renews the session of a
 * browser already signed in here (see SessionStore.exchange); a used code signs nobody in, but a browser
 * already signed in here is sent on to the app (the printed URL opened twice).
 */
async function signIn(
  state: ServerState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  code: string,
  cookieId: string | undefined,
): Promise<void> {
  const { options, sessions } = state;
  const index = await readUiFile(options.uiDir, 'index.html');
  if (index === null) {
    sendText(res, 503, 'The UI is not built. Run `npm run build` and start runwarden serve again.');
    return;
  }
  const session = sessions.exchange(code, cookieId);
  if (session === null) {
    if (sessions.byId(cookieId) !== null) {
      res.setHeader('Location', '/');
      res.writeHead(302).end();
      return;
    }
    sendText(
      res,
      403,
      'This sign-in URL was already used, or is not one of this server. Each URL runwarden serve prints signs in once: open the newest one it printed (it prints a new one after every sign-in).',
    );
    return;
  }
  state.pending.trust(req.socket);
  res.setHeader('Set-Cookie', sessionCookie(state, session));
  res.writeHead(200, { 'Content-Type': MIME['.html'], 'Cache-Control': 'no-store' });
  res.end(withSessionKey(index.toString('utf8'), session.key));
  options.onSignIn?.(signInUrl(state));
}

function sessionCookie(state: ServerState, session: Session): string {
  const maxAge = Math.max(0, Math.ceil((session.expiresAt - Date.now()) / 1000));
  return `${state.cookieName}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}`;
}

function signInUrl(state: ServerState): string {
  return `http://127.0.0.1:${state.port}/?${SIGN_IN_PARAM}=${state.sessions.issueCode()}`;
}

function openEventStream(
  state: ServerState,
  res: http.ServerResponse,
  access: { sessionId: string | null },
): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', Connection: 'keep-alive' });
  const client: StreamClient = { res, sessionId: access.sessionId };
  state.clients.add(client);
  // From here on every push reaches this stream: say how many went before it.
  res.write(
    `: connected\n\nevent: ${STREAM_HELLO_EVENT}\ndata: ${JSON.stringify({ pushes: state.pushCount })}\n\n`,
  );
  res.on('close', () => state.clients.delete(client));
}

/** Every PING_MS: keeps each stream open, and ends those whose session expired. */
function pingStreams(state: ServerState): void {
  for (const client of state.clients) {
    // An expired session's stream ends; the page's reconnect is then refused and it says so.
    if (client.sessionId !== null && state.sessions.byId(client.sessionId) === null) client.res.end();
    else client.res.write(': ping\n\n');
  }
}

async function serveStatic(uiDir: string, res: http.ServerResponse, pathname: string): Promise<void> {
  const decoded = safeDecode(pathname);
  if (decoded === null) {
    sendText(res, 404, 'Not found.');
    return;
  }
  const relative = pathname === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const root = path.resolve(uiDir);
  const file = path.resolve(root, relative);
  if (!file.startsWith(root + path.sep)) {
    sendText(res, 404, 'Not found.');
    return;
  }
  const bytes = await readUiFile(uiDir, relative);
  if (bytes === null) {
    if (relative === 'index.html') {
      sendText(res, 503, 'The UI is not built. Run `npm run build` and start runwarden serve again.');
    } else {
      sendText(res, 404, 'Not found.');
    }
    return;
  }
  res.writeHead(200, {
    'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
    'Cache-Control': cacheControlFor(relative),
  });
  res.end(bytes);
}

/**
 * The build names every file under `assets/` after a hash of its content, so a name always means the same
 * bytes: the browser keeps them and does not ask again, and Chromium keeps the compiled script beside them
 * (a reload compiles nothing). The rest (index.html, which names the current assets) is checked every time.
 */
export function cacheControlFor(relative: string): string {
  return /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.(?:js|css|woff2|svg|png)$/.test(relative)
    ? 'max-age=31536000, immutable'
    : 'no-cache';
}

/** The sign-in page: index.html with the session key in a meta tag (CSP allows no inline script). */
function withSessionKey(html: string, key: string): string {
  const meta = `<meta name="${SESSION_KEY_META}" content="${key}" />`;
  return html.includes('</head>') ? html.replace('</head>', `${meta}\n</head>`) : `${meta}\n${html}`;
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

/** The client closed its connection (`req.destroyed` alone is no sign: a fully read body is destroyed too). */
function clientGone(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  return res.destroyed || res.writableEnded || req.socket.destroyed;
}

type Body = { kind: 'text'; text: string } | { kind: 'tooBig' } | { kind: 'closed' };

/** The request body; `closed` when the client went away before sending all of it (an aborted upload). */
function readBody(req: http.IncomingMessage): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(tooBig ? { kind: 'tooBig' } : { kind: 'text', text: Buffer.concat(chunks).toString('utf8') }),
    );
    req.on('error', () => resolve({ kind: 'closed' }));
    req.on('close', () => {
      if (!req.complete) resolve({ kind: 'closed' });
    });
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
