/**
 * The host's other machines (main/services/remote/remote-hub.ts) with the session opener injected, so a remote
 * can misbehave on cue: a flood of pushes is bounded and still ends in one read; rows that are not runs are
 * left out; a machine that fails is unreachable since its first failure and tried again; a call to it then is
 * refused at once. The real sessions over sshd are test/main/cli/remote.test.ts and test/e2e/remotes.e2e.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RemotesPush } from '../../../shared/remotes';
import {
  createRemoteHub,
  LOG_FORWARD_EVERY_MS,
  LOG_FORWARD_RUNS,
  MAX_PUSHES_PER_SECOND,
  type RemoteHub,
} from '../../../main/services/remote/remote-hub';
import {
  RemoteLinkError,
  type RemoteLink,
  type RemoteLinkOptions,
} from '../../../main/services/remote/ssh-link';
import { createTempStore, HUMAN, type TempStore } from '../../helpers/temp-store';
import { waitFor } from '../../helpers/cli';

let t: TempStore;
let hub: RemoteHub;
afterEach(() => {
  hub?.dispose();
  t?.cleanup();
});

const row = (id: string, title: string) => ({
  run: { id, title, workflow: 'w', projectPath: '/p', createdAt: 1 },
  display: { status: 'stale' },
  openInteractions: 0,
});

function fakeLink(calls: string[]): RemoteLink {
  return {
    hello: { t: 'hello', protocol: 1, runwarden: '0.1.0', store: '/r.db', machine: 'box-host' },
    droppedPushes: 0,
    call: async (channel) => {
      calls.push(channel);
      if (channel !== 'runs:list') return { ok: true, value: {} };
      const items = [
        row('run_01abc', 'good'),
        { run: { id: '../../etc' } },
        // As a remote of an older version sends it: the whole run, its queue entry and lease.
        {
          ...row('run_01abd', '\u001b]0;x\u0007t'),
          run: { ...row('run_01abd', '').run, title: '\u001b]0;x\u0007t', input: { token: 'x' } },
          queue: { status: 'queued' },
          lease: { heartbeatAt: 7, ownerId: 'r' },
        },
      ];
      return { ok: true, value: { items } };
    },
    cli: async () => ({ code: 0, stdout: '', stderr: '' }),
    close: () => {},
  };
}

describe('remote hub', () => {
  it('bounds a flood of pushes, reads once after it, and leaves out rows that are not runs', async () => {
    t = createTempStore();
    t.store.setSetting('remotes', [{ name: 'box', dest: 'box', runwarden: 'runwarden' }], HUMAN);
    const calls: string[] = [];
    let options: RemoteLinkOptions | null = null;
    const pushes: RemotesPush[] = [];
    hub = createRemoteHub({
      store: t.store,
      person: 'ada@here',
      surface: 'app',
      push: (p) => pushes.push(p),
      clock: () => Date.now(),
      connect: async (o) => {
        options = o;
        return fakeLink(calls);
      },
    });
    hub.start();
    await waitFor('connected', () => hub.list()[0]?.state === 'connected');
    await waitFor('the first read', () => hub.list()[0]?.readAt !== null);
    const before = calls.filter((c) => c === 'runs:list').length;
    for (let i = 0; i < 1000; i += 1) options!.onPush?.('changed', { seq: i });
    await waitFor('the read after the flood', () => calls.filter((c) => c === 'runs:list').length > before);
    await new Promise((r) => setTimeout(r, 600));
    const reads = calls.filter((c) => c === 'runs:list').length - before;
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(3);
    const view = hub.list()[0]!;
    expect(view.dropped).toBe(1000 - MAX_PUSHES_PER_SECOND);
    // The row with a path for an id is left out; the hostile title is kept as text (the window draws text).
    expect(view.needsYou.map((r) => r.run.id)).toEqual(['run_01abc', 'run_01abd']);
    // Each row as this side's list carries it, whatever shape the remote sent.
    expect(view.needsYou.map((r) => r.heartbeatAt)).toEqual([null, 7]);
    expect(view.needsYou[1]?.run).not.toHaveProperty('input');
    expect(view.needsYou[1]).not.toHaveProperty('lease');
    expect(pushes.length).toBeLessThan(20);
  });

  it('a failing machine is unreachable since its first failure, retried, and refuses calls at once', async () => {
    t = createTempStore();
    t.store.setSetting('remotes', [{ name: 'box', dest: 'box', runwarden: 'runwarden' }], HUMAN);
    let tries = 0;
    hub = createRemoteHub({
      store: t.store,
      person: 'ada@here',
      surface: 'app',
      push: () => {},
      clock: () => Date.now(),
      connect: async () => {
        tries += 1;
        throw new RemoteLinkError('unreachable', `box: unreachable — ssh: try ${tries}`);
      },
    });
    hub.start();
    await waitFor('unreachable', () => hub.list()[0]?.state === 'unreachable');
    const since = hub.list()[0]!.since;
    await waitFor('a second try', () => tries >= 2, 5_000);
    expect(hub.list()[0]!.since).toBe(since);
    expect(hub.list()[0]!.error).toBe('box: unreachable — ssh: try 2');
    const refused = await hub.call('box', 'interactions:answer', { interactionId: 'int_01' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
  });

  it("passes a remote run's output on as NAME:run_…, coalesced and bounded; a bad id is dropped", async () => {
    t = createTempStore();
    t.store.setSetting('remotes', [{ name: 'box', dest: 'box', runwarden: 'runwarden' }], HUMAN);
    let options: RemoteLinkOptions | null = null;
    const logs: string[] = [];
    hub = createRemoteHub({
      store: t.store,
      person: 'ada@here',
      surface: 'app',
      push: () => {},
      onLog: (runId) => logs.push(runId),
      clock: () => Date.now(),
      connect: async (o) => {
        options = o;
        return fakeLink([]);
      },
    });
    hub.start();
    await waitFor('connected', () => hub.list()[0]?.state === 'connected');
    // One run printing fast: one forward per interval, however many pushes.
    for (let i = 0; i < 500; i += 1) options!.onPush?.('log', { runId: 'run_01fast' });
    options!.onPush?.('log', { runId: '../../etc/passwd' });
    options!.onPush?.('log', { runId: 42 });
    await waitFor('the forward', () => logs.length > 0, 5_000);
    await new Promise((r) => setTimeout(r, LOG_FORWARD_EVERY_MS * 2));
    expect(logs).toEqual(['box:run_01fast']);
    // Many runs at once: at most LOG_FORWARD_RUNS per interval, the rest dropped and counted.
    logs.length = 0;
    const dropped = hub.list()[0]!.dropped;
    for (let i = 0; i < LOG_FORWARD_RUNS + 10; i += 1) options!.onPush?.('log', { runId: `run_01r${i}` });
    await waitFor('the forwards', () => logs.length === LOG_FORWARD_RUNS, 5_000);
    await new Promise((r) => setTimeout(r, LOG_FORWARD_EVERY_MS * 2));
    expect(logs).toHaveLength(LOG_FORWARD_RUNS);
    expect(logs.every((id) => /^box:run_01r\d+$/.test(id))).toBe(true);
    expect(hub.list()[0]!.dropped - dropped).toBe(10);
  });
});
