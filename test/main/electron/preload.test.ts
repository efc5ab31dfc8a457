import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CHANNEL_METHODS,
  LISTENING_CHANNEL,
  PUSH_CHANNEL_PREFIX,
  PUSH_EVENTS,
  type ApiMethod,
} from '../../../shared/channel-names';
import type { RunwardenApi } from '../../../shared/contract';
import { contextBridge, ipcRenderer } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

type ExposedApi = Record<string, (...args: unknown[]) => unknown>;

/** The method names `RunwardenApi` requires: kept in step with the contract at compile time. */
const API_METHODS = Object.values(CHANNEL_METHODS) satisfies Array<keyof RunwardenApi>;
/** And the other way round: RunwardenApi has nothing but those methods and `on`. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const apiHasOnlyChannelMethods: Same<keyof RunwardenApi, ApiMethod | 'on'> = true;

let api: ExposedApi;

beforeAll(async () => {
  await import('../../../main/electron/preload');
  api = contextBridge.exposed.get('runwarden') as ExposedApi;
});

describe('preload (fake contextBridge)', () => {
  it('exposes one object, as window.runwarden, and nothing else', () => {
    expect([...contextBridge.exposed.keys()]).toEqual(['runwarden']);
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('exposes exactly one method per contract channel, plus on', () => {
    expect(apiHasOnlyChannelMethods).toBe(true);
    expect(Object.keys(api).toSorted()).toEqual([...API_METHODS, 'on'].toSorted());
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it.each(Object.entries(CHANNEL_METHODS))(
    '%s: %s() invokes its channel with the input only',
    async (channel, method) => {
      ipcRenderer.invocations.length = 0;
      const input = { probe: method };
      await expect(api[method]?.(input, 'extra argument')).resolves.toEqual({ ok: true, value: channel });
      expect(ipcRenderer.invocations).toEqual([{ channel, args: [input] }]);
    },
  );

  it.each(PUSH_EVENTS)('on(%s) delivers the payload without the IpcRendererEvent', (event) => {
    const received: unknown[][] = [];
    const unsubscribe = api.on?.(event, (...args: unknown[]) => received.push(args)) as () => void;
    const ipcEvent = { sender: ipcRenderer, senderId: 0, ports: [] };
    ipcRenderer.emit(PUSH_CHANNEL_PREFIX + event, ipcEvent, { seq: 1 });
    expect(received).toEqual([[{ seq: 1 }]]);
    unsubscribe();
    ipcRenderer.emit(PUSH_CHANNEL_PREFIX + event, ipcEvent, { seq: 2 });
    expect(received).toHaveLength(1);
    expect(ipcRenderer.listenerCount(PUSH_CHANNEL_PREFIX + event)).toBe(0);
  });

  it('unsubscribing twice is harmless and only removes its own listener', () => {
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = api.on?.('changed', (p: unknown) => a.push(p)) as () => void;
    const offB = api.on?.('changed', (p: unknown) => b.push(p)) as () => void;
    offA();
    offA();
    ipcRenderer.emit(`${PUSH_CHANNEL_PREFIX}changed`, {}, 'x');
    expect(a).toEqual([]);
    expect(b).toEqual(['x']);
    offB();
  });

  it.each(['push:changed', 'runs:list', 'anything', '__proto__', ''])(
    'on(%j) refuses an undeclared event',
    (event) => {
      expect(() => api.on?.(event, () => {})).toThrow(/Unknown Runwarden event/);
      expect(ipcRenderer.listenerCount(PUSH_CHANNEL_PREFIX + event)).toBe(0);
    },
  );

  it('on() refuses a listener that is not a function', () => {
    expect(() => api.on?.('changed', 'alert(1)')).toThrow(/must be a function/);
  });
});

describe('preload source', () => {
  it('imports only electron and shared/channel-names (a sandboxed preload can require nothing else)', () => {
    const source = readFileSync(
      fileURLToPath(new URL('../../../main/electron/preload.ts', import.meta.url)),
      'utf8',
    );
    const imports = [...source.matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(imports.toSorted()).toEqual(['../../shared/channel-names', 'electron']);
  });
});

describe('preload: telling main which pushes the page listens to', () => {
  const reports = () =>
    ipcRenderer.invocations.filter((i) => i.channel === LISTENING_CHANNEL).map((i) => i.args[0]);

  it('reports the set when the first listener of an event comes and when the last one goes', () => {
    ipcRenderer.invocations.length = 0;
    const offA = api.on?.('open-run', () => {}) as () => void;
    const offB = api.on?.('open-run', () => {}) as () => void;
    const offC = api.on?.('changed', () => {}) as () => void;
    expect(reports()).toEqual([['open-run'], ['open-run', 'changed']]);
    offA();
    expect(reports()).toHaveLength(2);
    offB();
    offB();
    expect(reports().at(-1)).toEqual(['changed']);
    offC();
    expect(reports().at(-1)).toEqual([]);
  });
});
