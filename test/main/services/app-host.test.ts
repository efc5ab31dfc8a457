import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PushEvent } from '../../../shared/channel-names';
import { createAppHost } from '../../../main/services/app-host';
import type { AppHost, DesktopNotice } from '../../../main/services/host-types';
import { waitFor } from '../../helpers/cli';
import { createTempStore, HUMAN, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

let t: TempStore;
let running: AppHost | null = null;
afterEach(() => {
  vi.restoreAllMocks();
  running?.dispose();
  running = null;
  t?.cleanup();
});

function startHost() {
  const pushes: Array<{ event: PushEvent; payload: unknown }> = [];
  const notices: DesktopNotice[] = [];
  const settingsSeen: unknown[] = [];
  const host = createAppHost({
    storePath: t.path,
    surface: 'app',
    actorId: 'alice',
    clock: t.clock,
    notifier: { show: (n) => notices.push(n) },
    push: (event, payload) => pushes.push({ event, payload }),
    onSettingsChanged: (s) => settingsSeen.push(s),
  });
  running = host;
  host.start();
  return { host, pushes, notices, settingsSeen };
}

describe('app host', () => {
  it('marks read only the unread notifications of a clicked run, and nothing of a run that has none', async () => {
    t = createTempStore();
    const one = reserveAndClaim(t, 60_000);
    const two = reserveAndClaim(t, 60_000);
    for (const runId of [one.runId, two.runId, one.runId]) {
      t.store.notify(runId, { level: 'attention', title: 'Look' }, HUMAN);
    }
    const { host } = startHost();
    expect(await host.markRunRead(one.runId)).toEqual({ ok: true, value: { count: 2 } });
    const unread = t.store.listNotifications({ unreadOnly: true, limit: 10 });
    expect(unread.map((n) => n.runId)).toEqual([two.runId]);
    expect(await host.markRunRead(one.runId)).toEqual({ ok: true, value: { count: 0 } });
    expect(await host.markRunRead('run_none')).toEqual({ ok: true, value: { count: 0 } });
  });

  it('pauses notifications from the tray through the settings path', async () => {
    t = createTempStore();
    const { host, settingsSeen } = startHost();
    const paused = await host.setNotificationsPaused(true);
    expect(paused.ok && paused.value.notificationsPaused).toBe(true);
    expect(host.settings.notificationsPaused).toBe(true);
    expect(settingsSeen).toHaveLength(1);
  });

  it('pushes store status and attention on start', () => {
    t = createTempStore();
    const { pushes } = startHost();
    expect(pushes.map((p) => p.event)).toEqual(expect.arrayContaining(['store-status', 'attention']));
    expect(pushes.find((p) => p.event === 'store-status')?.payload).toEqual({
      mode: 'read-write',
      modeReason: null,
      busy: false,
    });
  });

  it("turns a person's cancel into a changed push, an attention update and a notification history row", async () => {
    t = createTempStore();
    const claim = reserveAndClaim(t, 5_000);
    const { host, pushes } = startHost();
    t.clock.advance(6_000);
    const revision = t.store.getRun(claim.runId).revision;
    const result = await host.dispatch('runs:cancel', {
      runId: claim.runId,
      expectedRevision: revision,
      reason: 'dead',
    });
    expect(result.ok).toBe(true);
    const changed = pushes.filter((p) => p.event === 'changed');
    expect(changed.at(-1)?.payload).toMatchObject({ runIds: [claim.runId] });
    const attention = pushes.filter((p) => p.event === 'attention').at(-1)?.payload as { tray: string };
    expect(attention.tray).toBe('idle');
    const history = await host.dispatch('notifications:list', {});
    expect(history.ok).toBe(true);
  });

  it('notifies a new question asked by a runner in another process, once', async () => {
    t = createTempStore();
    const { host, notices } = startHost();
    const claim = reserveAndClaim(t, 600_000);
    t.store.requestInteraction(claim, { kind: 'decision', title: 'Deploy?', choices: ['yes', 'no'] });
    // A person's write triggers an immediate tick; here we use a harmless settings write.
    await host.dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 } });
    expect(notices.map((n) => n.title)).toEqual(['Needs an answer: Deploy?']);
    expect(notices[0]?.runId).toBe(claim.runId);
    await host.dispatch('settings:set', { patch: { sweepIntervalMs: 2_000 } });
    expect(notices).toHaveLength(1);
    const history = await host.dispatch('notifications:list', {});
    expect(history.ok && history.value.map((n) => n.title)).toEqual(['Needs an answer: Deploy?']);
  });

  it("records each notice linked to what it announces, and the history follows the question's and effects' end", async () => {
    t = createTempStore();
    const { host } = startHost();
    const claim = reserveAndClaim(t, 600_000);
    const q = t.store.requestInteraction(claim, {
      kind: 'decision',
      title: 'Deploy?',
      choices: ['yes', 'no'],
    });
    const effect = t.store.beginEffect(
      claim,
      t.store.reserveEffect(claim, { type: 'pay', idempotencyKey: 'p1', summary: 'refund' }).id,
    );
    await host.dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 } });
    const list = async () => {
      const history = await host.dispatch('notifications:list', {});
      if (!history.ok) throw new Error(history.error.message);
      return history.value.map((n) => [n.title, n.interactionId, n.resolution, n.readAt !== null]);
    };
    expect(await list()).toEqual([['Needs an answer: Deploy?', q.id, null, false]]);
    // Answered from the window: the answer's own commit resolves it.
    const answered = await host.dispatch('interactions:answer', {
      interactionId: q.id,
      interactionRevision: q.revision,
      idempotencyKey: 'window-answer-1',
      payload: 'yes',
    });
    expect(answered.ok ? null : answered.error).toBeNull();
    expect(await list()).toEqual([['Needs an answer: Deploy?', q.id, 'answered', true]]);
    // The runner dies with the refund applying: the failure notice stands for the effect until resolved.
    t.store.failRun(claim, 'supervisor died');
    await host.dispatch('settings:set', { patch: { sweepIntervalMs: 2_000 } });
    expect((await list())[0]).toEqual(['Failed: Build the thing', null, null, false]);
    const resolved = await host.dispatch('effects:resolve', {
      effectId: effect.id,
      resolution: 'not_applied',
      note: 'no charge in the ledger',
      expectedRevision: t.store.getRun(claim.runId).revision,
    });
    expect(resolved.ok).toBe(true);
    expect((await list())[0]).toEqual(['Failed: Build the thing', null, 'resolved', true]);
  });

  it('keeps the in-app history while desktop notifications are paused', async () => {
    t = createTempStore();
    const { host, notices } = startHost();
    await host.dispatch('settings:set', { patch: { notificationsPaused: true } });
    const claim = reserveAndClaim(t, 600_000);
    t.store.requestInteraction(claim, { kind: 'decision', title: 'Ship?', choices: ['yes', 'no'] });
    await host.dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 } });
    expect(notices).toEqual([]);
    const history = await host.dispatch('notifications:list', {});
    expect(history.ok && history.value.map((n) => n.title)).toEqual(['Needs an answer: Ship?']);
  });

  /** The attention pushes so far, their counts by display status. */
  const attentionCounts = (pushes: Array<{ event: PushEvent; payload: unknown }>) =>
    pushes
      .filter((p) => p.event === 'attention')
      .map((p) => (p.payload as { counts: Partial<Record<string, number>> }).counts);

  it('a lease running out with no commit reaches the attention summary on the next tick', async () => {
    t = createTempStore();
    // 250 ms ticks; the sweeper records the lost runner only after an hour's grace, so no event says so.
    t.store.setSetting('sweepIntervalMs', 250, HUMAN);
    t.store.setSetting('staleGraceMs', 3_600_000, HUMAN);
    reserveAndClaim(t, 5_000);
    const { pushes } = startHost();
    expect(attentionCounts(pushes).at(-1)?.stale).toBeUndefined();
    const seen = pushes.length;
    t.clock.advance(5_001);
    // Within a few ticks (the old every-15-ticks refresh took 3.75 s here).
    await waitFor(
      'the stale run in attention',
      () => attentionCounts(pushes.slice(seen)).at(-1)?.stale === 1,
      2_500,
      25,
    );
    // Nothing was committed: the one `changed` push says the clock moved the views, so lists re-read.
    const changed = pushes.slice(seen).filter((p) => p.event === 'changed');
    expect(changed.map((p) => p.payload)).toEqual([expect.objectContaining({ clock: true, runIds: [] })]);
  });

  it('does not recompute attention on idle ticks while nothing is due', async () => {
    t = createTempStore();
    t.store.setSetting('sweepIntervalMs', 250, HUMAN);
    // A live lease due in an hour: nothing changes attention before then.
    reserveAndClaim(t, 3_600_000);
    // Each sweeper tick arms the next with setTimeout(…, sweepIntervalMs): counting those counts ticks.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const { pushes } = startHost();
    const seen = pushes.length;
    const ticks = () => timers.mock.calls.filter(([, ms]) => ms === 250).length - 1;
    // More ticks than the old refresh period (15) pass with nothing to do.
    await waitFor('16 sweeper ticks', () => ticks() >= 16, 20_000, 25);
    expect(pushes.slice(seen).map((p) => p.event)).toEqual([]);
  });

  it('reports settings changes to the shell', async () => {
    t = createTempStore();
    const { host, settingsSeen } = startHost();
    await host.dispatch('settings:set', { patch: { launchAtLogin: true } });
    expect(settingsSeen).toHaveLength(1);
    expect(host.settings.launchAtLogin).toBe(true);
  });
});
