/**
 * Browser sessions (main/serve/session-store.ts, docs/ARCHITECTURE.md#browser-mode) on an injected clock:
 * a code signs in once, a session ends at its lifetime, and a browser already signed in that spends a
 * fresh code keeps its session, renewed.
 */
import { describe, expect, it } from 'vitest';
import { createSessionStore } from '../../../main/serve/session-store';

function store(lifetimeMs = 1_000) {
  let now = 0;
  const sessions = createSessionStore({ lifetimeMs, now: () => now });
  return { sessions, advance: (ms: number) => (now += ms) };
}

describe('session store', () => {
  it('a code makes one session, once; the session authenticates with its key until its lifetime ends', () => {
    const { sessions, advance } = store();
    const code = sessions.issueCode();
    const session = sessions.exchange(code);
    if (session === null) throw new Error('a fresh code was refused');
    expect(sessions.exchange(code)).toBeNull();
    expect(sessions.verify(session.id, session.key)).toBe(true);
    expect(sessions.verify(session.id, 'another key')).toBe(false);
    advance(999);
    expect(sessions.verify(session.id, session.key)).toBe(true);
    advance(1);
    expect(sessions.verify(session.id, session.key)).toBe(false);
  });

  it('a fresh code spent by a browser already signed in keeps its session, renewed', () => {
    const { sessions, advance } = store();
    const first = sessions.exchange(sessions.issueCode());
    if (first === null) throw new Error('a fresh code was refused');
    advance(800);
    const code = sessions.issueCode();
    const again = sessions.exchange(code, first.id);
    expect(again).toMatchObject({ id: first.id, key: first.key, expiresAt: 1_800 });
    expect(sessions.exchange(code, first.id)).toBeNull();
    advance(900);
    // Past the first lifetime, within the renewed one.
    expect(sessions.verify(first.id, first.key)).toBe(true);
    advance(100);
    expect(sessions.verify(first.id, first.key)).toBe(false);
  });

  it('a cookie that is no live session gets a new session from a fresh code', () => {
    const { sessions, advance } = store();
    const first = sessions.exchange(sessions.issueCode());
    if (first === null) throw new Error('a fresh code was refused');
    const stranger = sessions.exchange(sessions.issueCode(), 'not-a-session');
    expect(stranger?.id).not.toBe('not-a-session');
    advance(1_000);
    const after = sessions.exchange(sessions.issueCode(), first.id);
    expect(after).not.toBeNull();
    expect(after?.id).not.toBe(first.id);
    expect(after?.key).not.toBe(first.key);
    expect(sessions.verify(first.id, first.key)).toBe(false);
  });
});
