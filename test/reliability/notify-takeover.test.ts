/**
 * docs/LIVENESS.md#notifications: the acting host's notification cursor is durable. `runwarden serve` acts
 * and notifies a failure; it is SIGKILLed (its host lease still has seconds to run); another run fails in
 * the gap; a new host takes over at once (the dead holder is verifiably gone) and shows exactly one notice
 * for the gap — not the failure already notified — and a later host shows none.
 */
import { expect, it } from 'vitest';
import { createAppHost } from '../../main/services/app-host';
import type { DesktopNotice } from '../../main/services/host-types';
import { openStore, type RunStore } from '../../main/store';
import { runnerOwner } from '../../main/runner';
import { printCounts, spawnRunwarden, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-notify-');

function failRun(store: RunStore, title: string): string {
  const run = store.reserveRun(
    { projectPath: project, workflow: 'nightly', title },
    { type: 'runner', id: 't', surface: 'cli' },
  );
  const { claim } = store.claimRun(run.id, { ...runnerOwner('t'), leaseMs: 30_000 });
  store.failRun(claim, 'exit 1');
  return run.id;
}

function startHost(notices: DesktopNotice[]) {
  const host = createAppHost({
    storePath: dir.store,
    surface: 'app',
    actorId: 'alice',
    notifier: { show: (n) => notices.push(n) },
    push: () => {},
  });
  host.start();
  return host;
}

it('host takeover with a failure in the gap: exactly one notification', async () => {
  const store = openStore(dir.store);
  try {
    const serve = spawnRunwarden(['serve', '--json', '--port', '0'], { store: dir.store, cwd: project });
    await waitFor('serve to listen', () => serve.stdout.includes('"url"'));
    await waitFor('serve to act', () => hostHolder(store) !== null);
    failRun(store, 'before the crash');
    await waitFor('serve to notify the first failure', () =>
      store.listNotifications({ limit: 10 }).some((n) => n.title === 'Failed: before the crash'),
    );
    serve.child.kill('SIGKILL');
    await serve.done;
    failRun(store, 'in the gap');

    const deadHolderExpiry = (
      store.db.prepare(`SELECT expires_at FROM leases WHERE name = 'host'`).get() as { expires_at: number }
    ).expires_at;

    const shown: DesktopNotice[] = [];
    const b = startHost(shown);
    // Taken over at once: the dead holder's lease had seconds left, but its process is verifiably gone.
    const tookOverAt = Date.now();
    expect(hostHolder(store)).toMatch(/^app:/);
    expect(tookOverAt).toBeLessThan(deadHolderExpiry);
    // A few more ticks: nothing is notified twice.
    for (let i = 0; i < 3; i += 1)
      await b.dispatch('settings:set', { patch: { sweepIntervalMs: 1_000 + i } });
    b.dispose();
    const later: DesktopNotice[] = [];
    const c = startHost(later);
    await c.dispatch('settings:set', { patch: { sweepIntervalMs: 2_000 } });
    c.dispose();

    const history = store.listNotifications({ limit: 20 }).map((n) => n.title);
    printCounts('notification takeover', {
      takeoverBeforeDeadLeaseExpiredMs: deadHolderExpiry - tookOverAt,
      noticesByNewHost: shown.length,
      noticesByLaterHost: later.length,
      historyRows: history.length,
      title: shown[0]?.title,
    });
    expect(shown).toHaveLength(1);
    expect(shown[0]?.title).toBe('While Runwarden was closed: 1 run failed');
    expect(shown[0]?.body).toContain('in the gap');
    expect(shown[0]?.body).not.toContain('before the crash');
    expect(later).toHaveLength(0);
    expect(history.filter((t) => t === 'Failed: in the gap')).toHaveLength(1);
    expect(history.filter((t) => t === 'Failed: before the crash')).toHaveLength(1);
  } finally {
    store.close();
  }
});

function hostHolder(store: RunStore): string | null {
  const row = store.db.prepare(`SELECT owner_id FROM leases WHERE name = 'host'`).get() as {
    owner_id: string | null;
  };
  return row.owner_id;
}
