/**
 * Browser sessions of one `runwarden serve` (docs/ARCHITECTURE.md#browser-mode). A sign-in URL carries a
 * one-time code; exchanging it creates a session of two halves that only authenticate together:
 *
 * - the session id, in an HttpOnly cookie named after this server's port. Browsers send 127.0.0.1 cookies
 *   to every port, so any local listener a person visits receives it; alone it opens nothing.
 * - the session key, handed to the page once and kept in its origin's storage, which browsers isolate per
 *   port; the page sends it as a header. Script on the page can read it, but not the cookie.
 *
 * Neither half is derived from the server's token, and both expire.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** Sessions and unused codes kept at most; the oldest is dropped first. */
const MAX_SESSIONS = 32;
const MAX_CODES = 8;

export interface Session {
  readonly id: string;
  readonly key: string;
  readonly expiresAt: number;
}

export interface SessionStore {
  /** A new one-time sign-in code (the printed URL's). */
  issueCode(): string;
  /**
   * Consumes a code: a new session, or null when the code is unknown or was already used. Given the
   * cookie of a browser already signed in, that browser keeps its session (the same id and key, renewed):
   * a new one would replace the cookie its other tabs send at once, while their key (in the origin's
   * storage) changes only when the new page has run, so in between every request they sent was refused.
   */
  exchange(code: string, current?: string): Session | null;
  /** The session for a cookie value alone (enough to redirect a used sign-in URL, never for the API). */
  byId(id: string | undefined): Session | null;
  /** True when the cookie's session exists, has not expired and the key is its key. */
  verify(id: string | undefined, key: string | undefined): boolean;
}

export function createSessionStore(options: { lifetimeMs?: number; now?: () => number } = {}): SessionStore {
  const lifetimeMs = options.lifetimeMs ?? SESSION_LIFETIME_MS;
  const now = options.now ?? Date.now;
  // Keyed by a digest so lookups do not compare secrets with `===` one character at a time.
  const codes = new Map<string, true>();
  const sessions = new Map<string, Session>();

  const live = (id: string | undefined): Session | null => {
    if (id === undefined || id.length === 0) return null;
    const digest = digestOf(id);
    const session = sessions.get(digest);
    if (session === undefined) return null;
    if (session.expiresAt <= now()) {
      sessions.delete(digest);
      return null;
    }
    return session;
  };

  return {
    issueCode() {
      const code = randomSecret();
      codes.set(digestOf(code), true);
      dropOldest(codes, MAX_CODES);
      return code;
    },
    exchange(code, current) {
      const digest = digestOf(code);
      if (!codes.delete(digest)) return null;
      const kept = live(current);
      const session: Session = {
        id: kept?.id ?? randomSecret(),
        key: kept?.key ?? randomSecret(),
        expiresAt: now() + lifetimeMs,
      };
      // Re-set, so a renewed session also counts as the newest when the oldest are dropped.
      sessions.delete(digestOf(session.id));
      sessions.set(digestOf(session.id), session);
      dropOldest(sessions, MAX_SESSIONS);
      return session;
    },
    byId: live,
    verify(id, key) {
      const session = live(id);
      return session !== null && key !== undefined && secretsEqual(key, session.key);
    },
  };
}

/** The cookie's name: one per port, so two servers in one browser keep their own sessions. */
export function sessionCookieName(port: number): string {
  return `rw_session_${port}`;
}

function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

function digestOf(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function dropOldest<K, V>(map: Map<K, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}
