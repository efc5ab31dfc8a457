import type Electron from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { applyLaunchAtLogin, HIDDEN_ARG, startsHidden } from '../../../main/electron/login-item';
import {
  chooseNativeBinding,
  electronNativeBindingPath,
  NATIVE_BINDING_ENV,
  type NativeBindingFacts,
} from '../../../main/electron/native-binding';
import { DisposableStore } from '../../../main/electron/disposables';

describe('applyLaunchAtLogin', () => {
  it.each([
    ['darwin', true, [{ openAtLogin: true }]],
    ['darwin', false, [{ openAtLogin: false }]],
    ['win32', true, [{ openAtLogin: true, args: [HIDDEN_ARG] }]],
    ['win32', false, [{ openAtLogin: false, args: [HIDDEN_ARG] }]],
    ['linux', true, []],
  ] as const)('%s, enabled %s → %j', (platform, enabled, calls) => {
    const app = { setLoginItemSettings: vi.fn<(settings: Electron.Settings) => void>() };
    expect(applyLaunchAtLogin(app, enabled, platform)).toBe(calls.length > 0);
    expect(app.setLoginItemSettings.mock.calls.map((c) => c[0])).toEqual(calls);
  });

  it('a login launch starts hidden', () => {
    expect(startsHidden(['app', HIDDEN_ARG], false)).toBe(true);
    expect(startsHidden(['app'], true)).toBe(true);
    expect(startsHidden(['app'], false)).toBe(false);
  });
});

const facts = (overrides: Partial<NativeBindingFacts> = {}): NativeBindingFacts => ({
  isPackaged: false,
  env: {},
  appPath: '/work/runwarden',
  electronVersion: '45.5.0',
  exists: () => true,
  ...overrides,
});

describe('chooseNativeBinding (STACK.md pitfall 3)', () => {
  it('a packaged app uses the addon electron-builder rebuilt', () => {
    expect(
      chooseNativeBinding(facts({ isPackaged: true, env: { [NATIVE_BINDING_ENV]: '/x.node' } })),
    ).toEqual({
      kind: 'default',
    });
  });

  it('development uses the path npm start passed', () => {
    expect(chooseNativeBinding(facts({ env: { [NATIVE_BINDING_ENV]: '/cache/b.node' } }))).toEqual({
      kind: 'file',
      path: '/cache/b.node',
    });
  });

  it('development falls back to the cache folder for this Electron version', () => {
    expect(chooseNativeBinding(facts())).toEqual({
      kind: 'file',
      path: '/work/runwarden/.cache/electron-native/45.5.0/better_sqlite3.node',
    });
    expect(electronNativeBindingPath('/p', '45.5.0')).toBe(
      '/p/.cache/electron-native/45.5.0/better_sqlite3.node',
    );
  });

  it('a missing addon is reported with how to fix it (never the Node-ABI copy)', () => {
    const choice = chooseNativeBinding(facts({ exists: () => false }));
    expect(choice.kind).toBe('missing');
    expect(choice.kind === 'missing' && choice.message).toMatch(/npm start/);
  });
});

describe('DisposableStore (STYLE.md point 12)', () => {
  it('disposes newest first, once, and keeps going when one fails', () => {
    const errors: unknown[] = [];
    const order: string[] = [];
    const store = new DisposableStore((e) => errors.push(e));
    store.add(() => order.push('first'));
    store.add(() => {
      throw new Error('boom');
    });
    store.add(() => order.push('last'));
    store.dispose();
    store.dispose();
    expect(order).toEqual(['last', 'first']);
    expect(errors).toHaveLength(1);
    expect(store.disposed).toBe(true);
  });

  it('runs a disposer added after disposal at once', () => {
    const store = new DisposableStore();
    store.dispose();
    const ran = vi.fn<() => void>();
    store.add(ran);
    expect(ran).toHaveBeenCalledTimes(1);
  });
});
