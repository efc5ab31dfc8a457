import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionState } from '../../../../renderer/src/lib/api/connection-state.svelte';
import { adoptSessionKey, getApi } from '../../../../renderer/src/lib/api/get-api';

describe('the page connection', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('goes Live, then Reconnecting on a drop, then Disconnected if it stays down, and Live again', () => {
    let t = 1_000;
    const state = new ConnectionState({ clock: () => t, disconnectedAfterMs: 5_000 });
    expect(state.phase).toBe('desktop');
    state.begin();
    expect(state.phase).toBe('connecting');
    state.opened();
    expect(state.phase).toBe('live');
    t = 2_000;
    state.lost();
    expect(state.phase).toBe('reconnecting');
    vi.advanceTimersByTime(4_999);
    expect(state.phase).toBe('reconnecting');
    vi.advanceTimersByTime(1);
    expect(state.phase).toBe('disconnected');
    state.lost(); // more failures while down change nothing
    expect(state.lostAt).toBe(2_000);
    state.opened();
    expect(state.phase).toBe('live');
    expect(state.lostAt).toBeNull();
  });

  it('a quick reconnect never shows Disconnected', () => {
    const state = new ConnectionState({ disconnectedAfterMs: 5_000 });
    state.begin();
    state.opened();
    state.lost();
    vi.advanceTimersByTime(1_000);
    state.opened();
    vi.advanceTimersByTime(10_000);
    expect(state.phase).toBe('live');
  });

  it('stops the page clock while not live, so countdowns and ages stand still', () => {
    let t = 10_000;
    const state = new ConnectionState({ clock: () => t });
    state.begin();
    state.opened();
    expect(state.now()).toBe(10_000);
    t = 11_000;
    expect(state.now()).toBe(11_000);
    state.lost();
    t = 60_000;
    expect(state.now()).toBe(11_000);
    expect(state.paused).toBe(true);
    state.opened();
    expect(state.now()).toBe(60_000);
  });

  it('once expired stays expired: a later open or drop does not hide it', () => {
    const state = new ConnectionState();
    state.begin();
    state.opened();
    state.expired();
    state.opened();
    state.lost();
    vi.advanceTimersByTime(60_000);
    expect(state.phase).toBe('expired');
    expect(state.paused).toBe(true);
  });
});

describe('the session key', () => {
  afterEach(() => {
    localStorage.clear();
    document.head.innerHTML = '';
    history.replaceState(null, '', '/');
  });

  it('is taken from the sign-in page, kept per origin, and the used code leaves the address bar', () => {
    history.replaceState(null, '', '/?code=used-code#/all');
    const meta = document.createElement('meta');
    meta.name = 'runwarden-session-key';
    meta.content = 'the-key';
    document.head.append(meta);
    const key = adoptSessionKey(window);
    expect(key()).toBe('the-key');
    expect(location.search).toBe('');
    expect(location.hash).toBe('#/all');
    expect(document.querySelector('meta[name="runwarden-session-key"]')).toBeNull();
    // A reload (no meta tag) finds it again; a newer sign-in in another tab wins.
    expect(adoptSessionKey(window)()).toBe('the-key');
    localStorage.setItem('runwarden.session-key', 'newer');
    expect(key()).toBe('newer');
  });

  it('is absent before any sign-in', () => {
    expect(adoptSessionKey(window)()).toBeNull();
  });

  it('getApi starts tracking the connection only in browser mode', () => {
    const state = new ConnectionState();
    const preload = { marker: true } as unknown as NonNullable<Window['runwarden']>;
    getApi({ runwarden: preload } as unknown as Window, state);
    expect(state.phase).toBe('desktop');
  });
});
