import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNELS, type Channel } from '../../../shared/channel-names';
import { ERROR_CODES, RunwardenError } from '../../../shared/errors';
import { LISTED_RUN_FIELDS } from '../../../shared/views';
import { createDispatcher, type Dispatch } from '../../../main/services/dispatcher';
import {
  HUMAN,
  createTempStore,
  denyWrites,
  reserve,
  reserveAndClaim,
  type TempStore,
} from '../../helpers/temp-store';

let t: TempStore;
let dispatch: Dispatch;
let settingsChanges = 0;

beforeEach(() => {
  t = createTempStore();
  settingsChanges = 0;
  dispatch = createDispatcher({
    store: t.store,
    clock: t.clock,
    actor: HUMAN,
    onSettingsChanged: () => {
      settingsChanges += 1;
    },
  });
});
afterEach(() => t.cleanup());

function seed() {
  const queued = reserve(t, { title: 'Queued one' });
  const live = reserveAndClaim(t, 30_000);
  const stale = reserveAndClaim(t, 5_000);
  const asking = reserveAndClaim(t, 600_000);
  const question = t.store.requestInteraction(asking, {
    kind: 'decision',
    title: 'Ship?',
    choices: ['yes', 'no'],
  });
  t.clock.advance(6_000);
  return { queued, live, stale, asking, question };
}

describe('dispatcher: the one path every request takes', () => {
  it('answers every channel with valid input', () => {
    seed();
    const inputs: Record<Channel, unknown> = {
      'projects:list': {},
      'runs:list': { view: 'all', limit: 10 },
      'runs:detail': { runId: t.store.listRuns({ view: 'all', limit: 1 }).items[0]?.run.id },
      'runs:log': { runId: t.store.listRuns({ view: 'all', limit: 1 }).items[0]?.run.id, tail: 10 },
      'runs:openLog': { runId: 'run_missing' },
      'runs:previewCancel': { runId: t.store.listRuns({ view: 'stale', limit: 1 }).items[0]?.run.id },
      'runs:cancel': { runId: 'run_missing', expectedRevision: 0, reason: 'x' },
      'runs:requestCancel': { runId: 'run_missing', expectedRevision: 0, reason: 'x' },
      'runs:requestPause': { runId: 'run_missing', expectedRevision: 0, reason: 'x' },
      'runs:pause': { runId: 'run_missing', expectedRevision: 0, reason: 'x' },
      'runs:resume': { runId: 'run_missing', expectedRevision: 0 },
      'runs:retry': { runId: 'run_missing', expectedRevision: 0 },
      'runs:stopCommand': { runId: 'run_missing', expectedRevision: 0, reason: 'x' },
      'runs:bulk': {
        action: 'cancel',
        items: [{ runId: 'run_missing', expectedRevision: 0 }],
        dryRun: true,
        reason: 'x',
      },
      'effects:resolve': { effectId: 999, expectedRevision: 0, resolution: 'applied', note: 'checked' },
      'interactions:answer': {
        interactionId: 'int_missing',
        interactionRevision: 0,
        idempotencyKey: 'key-0000001',
        payload: 'yes',
      },
      'attention:summary': {},
      'notifications:list': {},
      'notifications:markRead': { ids: 'all' },
      'settings:get': {},
      'settings:set': { patch: { closeToTray: false } },
      'store:info': {},
      'store:doctor': {},
      'cli:status': {},
      'cli:install': {},
      'cli:uninstall': {},
      'updates:status': {},
      'updates:check': {},
      'updates:restart': {},
      'remotes:list': {},
      'remotes:add': { name: 'box', dest: 'ssh://127.0.0.1:1' },
      'remotes:remove': { name: 'box' },
      'remotes:call': { machine: 'box', channel: 'runs:list', input: {} },
    };
    for (const channel of CHANNELS) {
      const result = dispatch(channel, inputs[channel]);
      if (!result.ok)
        expect(
          // Only a shell's host has the desktop's PATH actions, its updates and the other machines.
          /^(cli|updates|remotes):/.test(channel) ? ['FORBIDDEN'] : ['NOT_FOUND'],
          `${channel}: ${result.error.message}`,
        ).toContain(result.error.code);
    }
    expect(settingsChanges).toBe(1);
    expect(dispatch('settings:get', {})).toMatchObject({ ok: true, value: { closeToTray: false } });
  });

  it('sends each list row without what no list reads; the detail has the whole run', () => {
    const { live, asking } = seed();
    const page = dispatch('runs:list', { view: 'all', limit: 10 });
    if (!page.ok) throw new Error(page.error.message);
    expect(page.value.items).toHaveLength(4);
    for (const item of page.value.items) {
      expect(Object.keys(item.run).sort()).toEqual([...LISTED_RUN_FIELDS].sort());
      expect(item).not.toHaveProperty('lease');
      expect(item).not.toHaveProperty('queue');
    }
    // The heartbeat the row shows is the lease's, read by another connection.
    const row = page.value.items.find((item) => item.run.id === live.runId);
    expect(row?.heartbeatAt).toBe(t.store.getSnapshot(live.runId).lease?.heartbeatAt);
    expect(row?.heartbeatAt).toEqual(expect.any(Number));
    // Needs you orders by what the row still carries, and the tray's summary is sent the same way.
    const needs = dispatch('runs:list', { view: 'needs-you' });
    if (!needs.ok) throw new Error(needs.error.message);
    expect(needs.value.items.map((item) => [item.run.id, item.triageGroup])).toContainEqual([
      asking.runId,
      'answer',
    ]);
    const summary = dispatch('attention:summary', { limit: 5 });
    if (!summary.ok) throw new Error(summary.error.message);
    expect(summary.value.items.length).toBeGreaterThan(0);
    for (const item of summary.value.items) expect(item).not.toHaveProperty('lease');
    const detail = dispatch('runs:detail', { runId: live.runId });
    if (!detail.ok) throw new Error(detail.error.message);
    expect(detail.value.snapshot.run.input).toEqual({ n: 1 });
    expect(detail.value.snapshot.lease?.ownerId).toEqual(expect.any(String));
  });

  it('cancels a stale run, refuses a live one with LIVE_OWNER and a recovery, and refuses a stale view', () => {
    const { live, stale } = seed();
    const staleRun = t.store.getRun(stale.runId);
    const liveRun = t.store.getRun(live.runId);
    const refused = dispatch('runs:cancel', {
      runId: live.runId,
      expectedRevision: liveRun.revision,
      reason: 'r',
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'LIVE_OWNER', recovery: { kind: 'requestCancel' } },
    });
    const wrongRevision = dispatch('runs:cancel', {
      runId: stale.runId,
      expectedRevision: staleRun.revision - 1,
      reason: 'r',
    });
    expect(wrongRevision).toMatchObject({ ok: false, error: { code: 'STALE_VIEW' } });
    const done = dispatch('runs:cancel', {
      runId: stale.runId,
      expectedRevision: staleRun.revision,
      reason: 'gone',
    });
    expect(done).toMatchObject({ ok: true, value: { run: { status: 'cancelled' } } });
  });

  it('previews and runs a bulk cancel item by item', () => {
    const { live, stale } = seed();
    const items = [live, stale].map((c) => ({
      runId: c.runId,
      expectedRevision: t.store.getRun(c.runId).revision,
    }));
    const seqBefore = t.store.lastEventSeq();
    const preview = dispatch('runs:bulk', { action: 'cancel', items, dryRun: true, reason: 'cleanup' });
    expect(preview).toMatchObject({ ok: true, value: { dryRun: true, succeeded: 1, failed: 1 } });
    expect(t.store.lastEventSeq()).toBe(seqBefore);
    const real = dispatch('runs:bulk', { action: 'cancel', items, dryRun: false, reason: 'cleanup' });
    expect(real).toMatchObject({ ok: true, value: { succeeded: 1, failed: 1 } });
    if (real.ok) expect(real.value.items.find((i) => !i.ok)?.code).toBe('LIVE_OWNER');
  });

  it('answers a question once; the same key again is adopted, another key is refused', () => {
    const { question } = seed();
    const answer = (key: string) =>
      dispatch('interactions:answer', {
        interactionId: question.id,
        interactionRevision: question.revision,
        idempotencyKey: key,
        payload: 'yes',
      });
    expect(answer('tab-one-key-1')).toMatchObject({ ok: true, value: { outcome: 'accepted' } });
    expect(answer('tab-one-key-1')).toMatchObject({ ok: true, value: { outcome: 'adopted' } });
    const second = answer('tab-two-key-2');
    expect(second.ok).toBe(false);
    if (!second.ok) expect(['STALE_VIEW', 'CONFLICT']).toContain(second.error.code);
  });

  it('refuses an answer that is not one of the declared choices, and writes nothing', () => {
    const { question } = seed();
    const before = t.store.getInteraction(question.id);
    const result = dispatch('interactions:answer', {
      interactionId: question.id,
      interactionRevision: question.revision,
      idempotencyKey: 'key-bad-choice',
      payload: 'maybe',
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'VALIDATION' } });
    expect(t.store.getInteraction(question.id)).toEqual(before);
  });

  it('property: any input to any channel gives a typed error or a value, never a raw error or a write', () => {
    const { question, stale } = seed();
    const ids = [stale.runId, question.runId, 'run_missing', question.id, '', '__proto__'];
    const arbitraryInput = fc.oneof(
      fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true }),
      fc.record(
        {
          runId: fc.constantFrom(...ids),
          interactionId: fc.constantFrom(...ids),
          expectedRevision: fc.oneof(fc.integer(), fc.double(), fc.string()),
          interactionRevision: fc.integer({ min: -2, max: 5 }),
          reason: fc.string(),
          idempotencyKey: fc.string(),
          payload: fc.jsonValue(),
          effectId: fc.integer(),
          note: fc.string(),
          resolution: fc.constantFrom('applied', 'not_applied', 'maybe'),
          view: fc.string(),
          limit: fc.integer(),
        },
        { requiredKeys: [] },
      ),
    );
    const codes = new Set<string>(ERROR_CODES);
    fc.assert(
      fc.property(fc.constantFrom(...CHANNELS), arbitraryInput, (channel, input) => {
        const seqBefore = t.store.lastEventSeq();
        const result = dispatch(channel, input);
        if (!result.ok) {
          expect(codes.has(result.error.code), result.error.message).toBe(true);
          expect(result.error.code).not.toBe('INTERNAL');
          expect(result.error.message).not.toMatch(/SQLITE|sqlite3/);
          expect(t.store.lastEventSeq()).toBe(seqBefore);
        }
      }),
      { numRuns: 1_500 },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(t.store.doctor()).toMatchObject({ integrity: 'ok', contradictions: [] });
  });

  it("routes cli:* to the desktop's PATH actions, validated, and refuses them where there are none", () => {
    const calls: string[] = [];
    const status = (installed: boolean) => ({
      available: true,
      target: '/home/ann/.local/bin/runwarden',
      installed,
      found: installed ? '/home/ann/.local/bin/runwarden' : null,
      leadsHere: installed,
      message: installed ? 'here' : 'none',
    });
    const d = createDispatcher({
      store: t.store,
      clock: t.clock,
      actor: HUMAN,
      onSettingsChanged: () => {},
      cliPath: {
        status: () => (calls.push('status'), status(false)),
        install: () => (calls.push('install'), status(true)),
        uninstall: () => {
          calls.push('uninstall');
          throw new RunwardenError('CONFLICT', 'not ours');
        },
      },
    });
    expect(d('cli:status', {})).toEqual({ ok: true, value: status(false) });
    expect(d('cli:install', {})).toEqual({ ok: true, value: status(true) });
    expect(d('cli:uninstall', {})).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT', message: 'not ours' },
    });
    expect(d('cli:install', { target: '/etc/passwd' })).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION' },
    });
    expect(calls).toEqual(['status', 'install', 'uninstall']);
    // The default dispatcher (browser mode's) has none.
    expect(dispatch('cli:status', {})).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });

  it('refuses writes on a read-only store before reaching the store', () => {
    seed();
    t.store.close();
    // Read-only by the file, not on request: a store asked for read-only is typed a reader and could not
    // be handed to a writer's consumer at all. Tests run as root, so the denial is injected.
    const ro = t.reopen({ access: denyWrites });
    expect(ro.mode).toBe('read-only');
    const d = createDispatcher({ store: ro, clock: t.clock, actor: HUMAN, onSettingsChanged: () => {} });
    expect(d('settings:set', { patch: { closeToTray: false } })).toMatchObject({
      ok: false,
      error: { code: 'READ_ONLY' },
    });
    expect(d('runs:list', { view: 'all' }).ok).toBe(true);
  });
});

describe('dispatcher: slow requests', () => {
  it('reports a request that held the process longer than 40 ms, and only those', () => {
    const slow: Array<[string, number]> = [];
    // Start and end readings of two requests: the first takes 10 ms, the second 50 ms.
    const readings = [0, 10, 100, 150];
    const timed = createDispatcher(
      { store: t.store, clock: t.clock, actor: HUMAN, onSettingsChanged: () => {} },
      { onSlow: (channel, ms) => slow.push([channel, ms]), elapsed: () => readings.shift() ?? 0 },
    );
    expect(timed('store:info', {}).ok).toBe(true);
    expect(slow).toEqual([]);
    expect(timed('runs:list', { view: 'all' }).ok).toBe(true);
    expect(slow).toEqual([['runs:list', 50]]);
  });
});

describe('dispatcher: unexpected failures', () => {
  it('logs the details of an INTERNAL error and tells the person only that nothing changed', () => {
    const logged: unknown[] = [];
    const broken = new Proxy(t.store, {
      get(target, key, receiver) {
        if (key === 'listProjects') {
          return () => {
            // What the store makes of a disk error: INTERNAL, with SQLite's words in the message.
            throw new RunwardenError(
              'INTERNAL',
              'Store error SQLITE_IOERR: disk I/O error at /home/alice/secret',
            );
          };
        }
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const d = createDispatcher(
      { store: broken, clock: t.clock, actor: HUMAN, onSettingsChanged: () => {} },
      { onInternalError: (_channel, error) => logged.push(error) },
    );
    const result = d('projects:list', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    expect(JSON.stringify(result)).not.toMatch(/SQLITE|secret/);
    expect(logged).toHaveLength(1);
  });

  it('passes a full disk through with its own code and sentence, tells the host, and clears it on the next write', () => {
    const run = reserve(t);
    let full = true;
    const store = new Proxy(t.store, {
      get(target, prop) {
        if (prop === 'cancelRun' && full) {
          return () => {
            throw new RunwardenError('DISK_FULL', 'The disk holding the store is full: nothing was written.');
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const seen: unknown[] = [];
    const d = createDispatcher(
      { store, clock: t.clock, actor: HUMAN, onSettingsChanged: () => {} },
      { onWriteError: (error) => seen.push(error) },
    );
    const input = { runId: run.id, expectedRevision: run.revision, reason: 'not needed' };
    expect(d('runs:cancel', input)).toMatchObject({
      ok: false,
      error: { code: 'DISK_FULL', message: 'The disk holding the store is full: nothing was written.' },
    });
    full = false;
    expect(d('runs:cancel', input).ok).toBe(true);
    expect(seen).toEqual([
      { code: 'DISK_FULL', message: 'The disk holding the store is full: nothing was written.' },
      null,
    ]);
  });
});
