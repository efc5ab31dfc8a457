import type Electron from 'electron';
import { describe, expect, it, vi } from 'vitest';
import {
  applyLaunchAtLogin,
  HIDDEN_ARG,
  loginItemApprovalNotice,
  startsHidden,
} from '../../../main/electron/login-item';
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

  it.each(['darwin', 'win32'] as const)(
    'under npm start (not packaged) on %s registers nothing: the login item would be bare Electron',
    (platform) => {
      const app = { setLoginItemSettings: vi.fn<(settings: Electron.Settings) => void>() };
      expect(applyLaunchAtLogin(app, true, platform, false)).toBe(false);
      expect(app.setLoginItemSettings).not.toHaveBeenCalled();
    },
  );

  it('a login launch starts hidden', () => {
    expect(startsHidden(['app', HIDDEN_ARG], false)).toBe(true);
    expect(startsHidden(['app'], true)).toBe(true);
    expect(startsHidden(['app'], false)).toBe(false);
  });
});
describe('DisposableStore', () => {
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

describe('loginItemApprovalNotice (macOS 13+ requires-approval)', () => {
  it('tells the person where to allow it, only on macOS, only when on and waiting', () => {
    expect(loginItemApprovalNotice('darwin', true, 'requires-approval')?.detail).toMatch(
      /System Settings → General → Login Items/,
    );
    expect(loginItemApprovalNotice('darwin', true, 'enabled')).toBeNull();
    expect(loginItemApprovalNotice('darwin', false, 'requires-approval')).toBeNull();
    expect(loginItemApprovalNotice('win32', true, 'requires-approval')).toBeNull();
  });
});
