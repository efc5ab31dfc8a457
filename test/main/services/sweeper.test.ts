import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/views';
import {
  createSweeper,
  FEED_IDLE_AFTER_MS,
  FEED_IDLE_POLL_MS,
  FEED_POLL_MS,
  FEED_WATCH_GAP_MS,
  initialSweeperState,
  sweep,
  type Scheduler,
  type SweepReport,
  type SweeperDeps,
} from '../../../main/services/sweeper';
import { createLivenessCheck } from '../../../main/store';
import { probeWriteLock } from '../../../bench/lock-probe';
import {
  createTempStore,
  reserve,
  reserveAndClaim,
  RUNNER_ACTOR,
  runnerOwner,
  type TempStore,
} from '../../helpers/temp-store';

let t: TempStore;
afterEach(() => t?.cleanup());

const HOST = { ownerId: 'app:test-host:1', pid: 1, hostname: 'test-host', startId: null };
/** The machine the sweeper believes it runs on: pids recorded there are trusted (docs/LIVENESS.md). */
const MACHINE = { hostname: 'test-host', bootId: 'boot-test', pidNs: 'pid:[4026531836]' };
const HERE = { bootId: MACHINE.bootId, pidNs: MACHINE.pidNs };

function deps(over: Partial<Settings> = {}, alive: (pid: number) => boolean = () => true): SweeperDeps {
  const settings = { ...DEFAULT_SETTINGS, ...over };
  const liveness = createLivenessCheck(MACHINE, {
    processAlive: (pid) => alive(pid),
    groupAlive: (pgid) => alive(pgid),
  });
  return { store: t.store, settings: () => settings, host: HOST, liveness };
}

/** A scheduler whose timers fire only when a test calls them: timeouts record their delay, intervals are kept. */
function fakeScheduler() {
  const timeouts: number[] = [];
  const intervals: Array<{ fn: () => void; ms: number; cleared: boolean }> = [];
  const scheduler: Scheduler = {
    setTimeout: (_fn, ms) => timeouts.push(ms),
    clearTimeout: () => {},
    setInterval: (fn, ms) => intervals.push({ fn, ms, cleared: false }) - 1,
    clearInterval: (handle) => {
      const timer = intervals[handle as number];
      if (timer !== undefined) timer.cleared = true;
    },
  };
  return { scheduler, timeouts, intervals };
}

const rethrow = (error: unknown): never => {
  throw error;
};

describe('sweeper tick', () => {
  it('does nothing and reports no change when nothing happened', () => {
    t = createTempStore();
    const d = deps();
    const state = initialSweeperState(t.store);
    const first = sweep(d, state);
    expect(first.acting).toBe(true);
    const second = sweep(d, state);
    expect(second).toMatchObject({ runnersLost: 0, interactionsExpired: 0, changed: null, events: [] });
  });

  it('notices a runner whose lease expired once, with an event, and the run shows stale', () => {
    t = createTempStore();
    const claim = reserveAndClaim(t, 10_000);
    const d = deps();
    const state = initialSweeperState(t.store);
    expect(sweep(d, state).runnersLost).toBe(0);
    t.clock.advance(10_001);
    const report = sweep(d, state);
    expect(report.runnersLost).toBe(1);
    expect(report.events.map((e) => e.type)).toContain('run.runner_lost');
    expect(report.changed?.runIds).toEqual([claim.runId]);
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 50 }).display.status).toBe('stale');
    // Idempotent: the next tick reports nothing new for the same lease generation.
    t.clock.advance(2_000);
    expect(sweep(d, state).runnersLost).toBe(0);
  });

  it('waits out the stale grace before reporting', () => {
    t = createTempStore();
    reserveAndClaim(t, 10_000);
    const d = deps({ staleGraceMs: 5_000 });
    const state = initialSweeperState(t.store);
    t.clock.advance(12_000);
    expect(sweep(d, state).runnersLost).toBe(0);
    t.clock.advance(4_000);
    expect(sweep(d, state).runnersLost).toBe(1);
  });

  it('expires the lease of a runner whose process is gone from this host at once', () => {
    t = createTempStore();
    const claim = reserveAndClaim(
      t,
      60_000,
      runnerOwner('r-gone', { pid: 999_999, hostname: 'test-host', ...HERE }),
    );
    const d = deps({}, (pid) => pid !== 999_999);
    const state = initialSweeperState(t.store);
    const report = sweep(d, state);
    expect(report.runnersLost).toBe(1);
    const snapshot = t.store.getSnapshot(claim.runId);
    expect(snapshot.lease?.expiresAt).toBeLessThanOrEqual(t.clock.now());
    // The runner is fenced from now on.
    expect(t.store.heartbeat(claim, 60_000).ok).toBe(false);
  });

  it('leaves runners on other hosts alone, even with the same pid', () => {
    t = createTempStore();
    reserveAndClaim(t, 60_000, runnerOwner('r-remote', { pid: 999_999, hostname: 'other-host', ...HERE }));
    expect(
      sweep(
        deps({}, () => false),
        initialSweeperState(t.store),
      ).runnersLost,
    ).toBe(0);
  });

  it('settles a question past its deadline with its default, and expires one without', () => {
    t = createTempStore();
    const withDefault = reserveAndClaim(t, 600_000);
    const a = t.store.requestInteraction(withDefault, {
      kind: 'decision',
      title: 'Ship?',
      choices: ['yes', 'no'],
      defaultResponse: 'no',
      hasDefault: true,
      deadlineAt: t.clock.now() + 5_000,
    });
    const without = reserveAndClaim(t, 600_000, runnerOwner('runner-2'));
    const b = t.store.requestInteraction(without, {
      kind: 'decision',
      title: 'Migrate?',
      choices: ['yes', 'no'],
      deadlineAt: t.clock.now() + 5_000,
    });
    const state = initialSweeperState(t.store);
    sweep(deps(), state);
    t.clock.advance(5_001);
    expect(sweep(deps(), state).interactionsExpired).toBe(2);
    expect(t.store.getInteraction(a.id)).toMatchObject({
      status: 'settled',
      provenance: 'timeout_policy',
      response: 'no',
    });
    expect(t.store.getInteraction(b.id)).toMatchObject({
      status: 'expired',
      provenance: 'expired_no_default',
    });
  });

  it('auto-cancels long-stale runs only when the policy is on, as the policy actor', () => {
    t = createTempStore();
    const claim = reserveAndClaim(t, 10_000);
    const state = initialSweeperState(t.store);
    t.clock.advance(10 * 60_000);
    expect(sweep(deps(), state).autoCancelled).toBe(0);
    const report = sweep(deps({ autoCancelStaleAfterMin: 5 }), state);
    expect(report.autoCancelled).toBe(1);
    expect(t.store.getRun(claim.runId).status).toBe('cancelled');
    const cancelled = report.events.find((e) => e.type === 'run.cancelled');
    expect(cancelled?.actorType).toBe('policy');
  });

  it('never auto-cancels a live run', () => {
    t = createTempStore();
    const claim = reserveAndClaim(t, 10_000);
    const state = initialSweeperState(t.store);
    for (let i = 0; i < 20; i++) {
      t.clock.advance(5_000);
      expect(t.store.heartbeat(claim, 10_000).ok).toBe(true);
      sweep(deps({ autoCancelStaleAfterMin: 1 }), state);
    }
    expect(t.store.getRun(claim.runId).status).not.toBe('cancelled');
  });

  it('acts only while holding the host lease: a second sweeper process just follows the feed', () => {
    t = createTempStore();
    const other = t.reopen();
    const first = initialSweeperState(t.store);
    const second = initialSweeperState(other);
    const settings = () => DEFAULT_SETTINGS;
    expect(sweep(deps(), first).acting).toBe(true);
    const secondDeps: SweeperDeps = {
      store: other,
      settings,
      host: { ...HOST, ownerId: 'serve:test-host:2', pid: 2 },
      liveness: deps().liveness,
    };
    expect(sweep(secondDeps, second).acting).toBe(false);
    // A write by the first process reaches the second's change feed through data_version.
    reserve(t);
    const report = sweep(secondDeps, second);
    expect(report.changed).not.toBeNull();
    expect(report.events.map((e) => e.type)).toContain('run.reserved');
  });

  it('prunes terminal runs past retention in batches', () => {
    t = createTempStore();
    const claim = reserveAndClaim(t);
    t.store.completeRun(claim, {});
    const live = reserve(t);
    const state = initialSweeperState(t.store);
    t.clock.advance(3 * 86_400_000);
    expect(sweep(deps({ retentionDays: 2 }), state).pruned).toBe(1);
    expect(() => t.store.getRun(claim.runId)).toThrow();
    expect(t.store.getRun(live.id).status).toBe('queued');
  });
});

describe('host lease renewal', () => {
  /** The host lease row as the store holds it. */
  const hostRow = () =>
    t.store.db
      .prepare(`SELECT generation, expires_at, heartbeat_at FROM leases WHERE name = 'host'`)
      .get() as {
      generation: number;
      expires_at: number;
      heartbeat_at: number;
    };

  it('renews only once half of the lease is left: one write every third 2 s tick, none in between', () => {
    t = createTempStore();
    const d = deps();
    const state = initialSweeperState(t.store);
    expect(sweep(d, state).acting).toBe(true);
    const claimedAt = t.clock.now();
    const renewals: number[] = [];
    let seen = hostRow().heartbeat_at;
    for (let tick = 1; tick <= 12; tick += 1) {
      t.clock.advance(2_000);
      const report = sweep(d, state);
      expect(report.acting).toBe(true);
      const row = hostRow();
      if (row.heartbeat_at !== seen) renewals.push((row.heartbeat_at - claimedAt) / 1_000);
      seen = row.heartbeat_at;
      // Always held for longer than a tick, never for longer than one lease from now.
      expect(row.expires_at - t.clock.now()).toBeGreaterThan(2_000);
      expect(row.expires_at - t.clock.now()).toBeLessThanOrEqual(10_000);
    }
    // 10 s lease, 2 s ticks: renewed when 4 s are left (seconds after the claim).
    expect(renewals).toEqual([6, 12, 18, 24]);
  });

  it("walks no table or whole index in an idle tick's reads: its cost does not grow with the store", () => {
    t = createTempStore();
    // A few runs of each kind the tick looks at, so every step runs its reads.
    reserveAndClaim(t, 60_000);
    reserve(t);
    sweep(deps(), initialSweeperState(t.store));
    // Statements are cached once prepared: a fresh connection's ticks prepare every one they run.
    const host = t.reopen();
    const seen = new Set<string>();
    const db = host.db;
    const original = db.prepare.bind(db);
    Object.defineProperty(db, 'prepare', {
      value: (source: string) => {
        seen.add(source);
        return original(source);
      },
      configurable: true,
      writable: true,
    });
    const d = { ...deps(), store: host };
    const state = initialSweeperState(host);
    for (let tick = 1; tick <= 3; tick += 1) {
      t.clock.advance(2_000);
      sweep(d, state);
    }
    expect(seen.size).toBeGreaterThan(5);
    // A scan is allowed only of a partial index that holds just what is due or open (few rows), or of a
    // JSON argument; `SCAN leases USING INDEX leases_expiry` walked every owned lease.
    const allowed = new Set(['interactions_asked', 'leases_orphaned']);
    const scans: string[] = [];
    for (const sql of seen) {
      if (!/^\s*(SELECT|WITH)/i.test(sql)) continue;
      const named = [...new Set([...sql.matchAll(/[@:$](\w+)/g)].map((m) => m[1] as string))];
      const args: unknown[] =
        named.length > 0
          ? [Object.fromEntries(named.map((n) => [n, 0]))]
          : Array((sql.match(/\?/g) ?? []).length).fill(0);
      const plan = (original(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map(
        (r) => r.detail,
      );
      for (const line of plan) {
        const m = /^SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(line);
        // Plans name a table by its alias.
        const aliases = new Map(
          [...sql.matchAll(/(?:FROM|JOIN) (\w+) (?:AS )?(\w+)/gi)].map((a) => [a[2], a[1]]),
        );
        const table = m === null ? null : (aliases.get(m[1] as string) ?? m[1]);
        // One row per agent session: a small table next to runs and leases.
        if (m === null || table === 'json_each' || table === 'agent_sessions') continue;
        if (m[2] !== undefined && allowed.has(m[2])) continue;
        scans.push(`${line}  <-  ${sql.replace(/\s+/g, ' ').slice(0, 100)}`);
      }
    }
    expect(scans).toEqual([]);
  });

  it('opens a write transaction only on the ticks that renew: an idle tick writes nothing', () => {
    t = createTempStore();
    const d = deps();
    const state = initialSweeperState(t.store);
    sweep(d, state);
    const lock = probeWriteLock(t.store.db);
    try {
      const perTick: number[] = [];
      for (let tick = 1; tick <= 6; tick += 1) {
        t.clock.advance(2_000);
        sweep(d, state);
        perTick.push(lock.take().length);
      }
      // The host lease renews on the third and sixth tick; nothing else is there to write.
      expect(perTick).toEqual([0, 0, 1, 0, 0, 1]);
    } finally {
      lock.restore();
    }
  });

  it('a host that stops ticking is taken over within one lease of its last tick, as before', () => {
    for (const stopAfterTicks of [0, 1, 2, 3, 4, 5]) {
      t = createTempStore();
      const other = t.reopen();
      // Another machine: no pid to check, so only the lease clock decides (docs/LIVENESS.md).
      const first = { ...deps(), host: { ...HOST, hostname: 'far-host' } };
      const second: SweeperDeps = {
        ...deps(),
        store: other,
        host: { ...HOST, ownerId: 'serve:test-host:2', pid: 2 },
      };
      const firstState = initialSweeperState(t.store);
      const secondState = initialSweeperState(other);
      expect(sweep(first, firstState).acting).toBe(true);
      for (let i = 0; i < stopAfterTicks; i += 1) {
        t.clock.advance(2_000);
        expect(sweep(first, firstState).acting).toBe(true);
      }
      const lastTick = t.clock.now();
      t.clock.advance(2_000);
      expect(sweep(second, secondState).acting).toBe(false);
      // At the latest one lease (10 s) after the holder's last tick, the other host acts.
      t.clock.set(lastTick + 10_001);
      expect(sweep(second, secondState).acting).toBe(true);
      t.cleanup();
    }
  });
});

describe('sweeper hygiene (step 5)', () => {
  const leafPages = () =>
    (
      t.store.db.prepare(`SELECT count(*) AS n FROM run_search_data WHERE id >= 1 << 37`).get() as {
        n: number;
      }
    ).n;
  const tickUntilHygiene = (d: SweeperDeps) => {
    const state = initialSweeperState(t.store);
    for (let i = 0; i < 100; i += 1) {
      const report = sweep(d, state);
      if (report.walPages !== null) return report;
    }
    throw new Error('no hygiene step in 100 ticks');
  };

  it('merges the search index and checkpoints inline when no hygiene worker runs', () => {
    t = createTempStore();
    for (let i = 0; i < 8; i += 1) reserve(t);
    const before = leafPages();
    const report = tickUntilHygiene(deps());
    expect(report.walPages).toBeGreaterThan(0); // the WAL it checkpointed
    expect(leafPages()).toBeLessThan(before);
  });

  it('leaves both to an active hygiene worker and reports the WAL size it last saw', () => {
    t = createTempStore();
    for (let i = 0; i < 8; i += 1) reserve(t);
    const before = leafPages();
    const worker = { active: true, last: { walPages: 42, checkpointed: 42, merged: false, ms: 1 } };
    const report = tickUntilHygiene({ ...deps(), hygieneWorker: worker });
    expect(report.walPages).toBe(42);
    expect(leafPages()).toBe(before);
  });
});

describe('sweeper timer', () => {
  it('ticks on the injected scheduler at the configured interval and stops cleanly', () => {
    t = createTempStore();
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const scheduler: Scheduler = {
      setTimeout: (fn, ms) => {
        timers.push({ fn, ms });
        return timers.length;
      },
      clearTimeout: () => {},
    };
    const reports: number[] = [];
    const sweeper = createSweeper(
      deps({ sweepIntervalMs: 750 }),
      (r) => reports.push(r.runnersLost),
      (e) => {
        throw e;
      },
      scheduler,
    );
    sweeper.start();
    expect(reports).toHaveLength(1);
    expect(timers.at(-1)?.ms).toBe(750);
    timers.at(-1)?.fn();
    expect(reports).toHaveLength(2);
    sweeper.stop();
    timers.at(-1)?.fn();
    expect(reports).toHaveLength(2);
    // Stopping released the host lease: another host can take it at once.
    expect(
      t.store.claimHostLease({ ...runnerOwner('host-2'), ownerType: 'host', leaseMs: 10_000 }),
    ).not.toBeNull();
  });

  it('looks for changes on one repeating timer when the scheduler has one, and clears it on stop', () => {
    t = createTempStore();
    const { scheduler, timeouts, intervals } = fakeScheduler();
    const reports: SweepReport[] = [];
    const sweeper = createSweeper(deps(), (r) => reports.push(r), rethrow, scheduler, 40);
    sweeper.start();
    expect(intervals.map((x) => x.ms)).toEqual([40]);
    const armed = timeouts.length;
    const runner = t.reopen();
    for (let look = 0; look < 5; look += 1) intervals[0]?.fn();
    reserve({ ...t, store: runner });
    intervals[0]?.fn();
    // The looks re-armed nothing; the commit from the other connection was still found.
    expect(timeouts).toHaveLength(armed);
    expect(reports.at(-1)?.events.map((e) => e.type)).toContain('run.reserved');
    sweeper.stop();
    expect(intervals[0]?.cleared).toBe(true);
  });

  it("with a watch of the store's folder, arms no feed timer and still finds another process's commit", async () => {
    t = createTempStore();
    const { scheduler, intervals } = fakeScheduler();
    // The watch's own wait before a look runs on real time; the sweeper's tick never fires here.
    const watchScheduler: Scheduler = {
      ...scheduler,
      setTimeout: (fn, ms) => (ms >= DEFAULT_SETTINGS.sweepIntervalMs ? 0 : setTimeout(fn, ms)),
      clearTimeout: (handle) => clearTimeout(handle as never),
    };
    const reports: SweepReport[] = [];
    const sweeper = createSweeper(
      deps(),
      (r) => reports.push(r),
      rethrow,
      watchScheduler,
      FEED_POLL_MS,
      t.store.path,
    );
    sweeper.start();
    expect(intervals).toEqual([]);
    const ticks = reports.length;
    reserve({ ...t, store: t.reopen() });
    const deadline = Date.now() + 20_000;
    while (!reports.slice(ticks).some((r) => r.events.some((e) => e.type === 'run.reserved'))) {
      if (Date.now() > deadline) throw new Error('the watch never found the commit');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Nothing else committed: the feed stays quiet, with no timer of its own.
    expect(intervals).toEqual([]);
    sweeper.stop();
  });

  it('follows a look woken by a write with one more a gap later, then stays quiet', async () => {
    t = createTempStore();
    const { scheduler } = fakeScheduler();
    const waits: number[] = [];
    const watchScheduler: Scheduler = {
      ...scheduler,
      setTimeout: (fn, ms) => {
        if (ms >= DEFAULT_SETTINGS.sweepIntervalMs) return 0;
        waits.push(ms);
        return setTimeout(fn, ms);
      },
      clearTimeout: (handle) => clearTimeout(handle as never),
    };
    const sweeper = createSweeper(deps(), () => {}, rethrow, watchScheduler, FEED_POLL_MS, t.store.path);
    sweeper.start();
    // A write to one of the store's files whose commit is not visible yet (here: no commit at all). The look it
    // wakes finds nothing; the one after it, a gap later, is what finds a commit SQLite marked in the meantime.
    writeFileSync(`${t.store.path}-probe`, 'x');
    const deadline = Date.now() + 20_000;
    while (waits.length < 2) {
      if (Date.now() > deadline) throw new Error(`looks scheduled: ${waits.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(waits[1]).toBe(FEED_WATCH_GAP_MS);
    // One follow-up per woken look, not a timer: nothing more is scheduled while nothing is written.
    expect(waits).toHaveLength(2);
    sweeper.stop();
  });

  it('looks less often after a quiet spell, and quickly again once anything is committed', () => {
    t = createTempStore();
    const { scheduler, intervals } = fakeScheduler();
    const reports: SweepReport[] = [];
    const sweeper = createSweeper(deps(), (r) => reports.push(r), rethrow, scheduler, FEED_POLL_MS);
    sweeper.start();
    const live = () => intervals.filter((x) => !x.cleared);
    const look = (times: number) => {
      for (let i = 0; i < times; i += 1) live()[0]?.fn();
    };
    const quietLooks = Math.ceil(FEED_IDLE_AFTER_MS / FEED_POLL_MS);
    look(quietLooks - 1);
    expect(live().map((x) => x.ms)).toEqual([FEED_POLL_MS]);
    look(1);
    expect(live().map((x) => x.ms)).toEqual([FEED_IDLE_POLL_MS]);
    // Another connection commits: the slow look still finds it, and the feed is quick again.
    reserve({ ...t, store: t.reopen() });
    look(1);
    expect(reports.at(-1)?.events.map((e) => e.type)).toContain('run.reserved');
    expect(live().map((x) => x.ms)).toEqual([FEED_POLL_MS]);
    // A person's command (markDirty) also brings it back at once.
    look(quietLooks);
    expect(live().map((x) => x.ms)).toEqual([FEED_IDLE_POLL_MS]);
    sweeper.markDirty();
    expect(live().map((x) => x.ms)).toEqual([FEED_POLL_MS]);
    sweeper.stop();
    expect(live()).toEqual([]);
  });

  it('survives a failing tick and keeps the timer armed', () => {
    t = createTempStore();
    const errors: unknown[] = [];
    const timers: Array<() => void> = [];
    let failures = 1;
    const flaky = new Proxy(t.store, {
      get(target, key, receiver) {
        if (key === 'expireInteractionDeadlines' && failures > 0) {
          failures -= 1;
          return () => {
            throw new Error('disk hiccup');
          };
        }
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const reports: number[] = [];
    const sweeper = createSweeper(
      { ...deps(), store: flaky },
      (r) => reports.push(r.interactionsExpired),
      (e) => errors.push(e),
      { setTimeout: (fn) => timers.push(fn), clearTimeout: () => {} },
    );
    sweeper.start();
    // The failing step is reported, and the tick still delivered its report (the change feed ran).
    expect(errors).toHaveLength(1);
    expect(reports).toHaveLength(1);
    timers.at(-1)?.();
    expect(errors).toHaveLength(1);
    expect(reports).toHaveLength(2);
    sweeper.stop();
  });
});

describe('sweeper while another process holds the write lock', () => {
  it('reports busy without waiting long, and still delivers the change feed', () => {
    t = createTempStore();
    const host = t.reopen({ busyTimeoutMs: 50, busyRetries: 0 });
    const d: SweeperDeps = { ...deps(), store: host };
    const state = initialSweeperState(host);
    expect(sweep(d, state).acting).toBe(true);
    // Another connection commits a run, then holds the write lock (a runner stopped inside a transaction).
    reserve(t, { title: 'written before the lock' });
    const blocker = new Database(t.path);
    blocker.exec('BEGIN IMMEDIATE');
    try {
      const started = performance.now();
      const report = sweep(d, state);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(report.busy).toBe(true);
      expect(report.errors).toEqual([]);
      expect(report.events.map((e) => e.type)).toContain('run.reserved');
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect(sweep(d, state).busy).toBe(false);
  });
});

describe('change feed between ticks', () => {
  it('pushes another connection’s commit on the short feed timer, without a tick, and stays quiet otherwise', () => {
    t = createTempStore();
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const scheduler: Scheduler = {
      setTimeout: (fn, ms) => {
        timers.push({ fn, ms });
        return timers.length;
      },
      clearTimeout: () => {},
    };
    const reports: SweepReport[] = [];
    const sweeper = createSweeper(
      deps({ sweepIntervalMs: 2_000 }),
      (r) => reports.push(r),
      (e) => {
        throw e;
      },
      scheduler,
      25,
    );
    sweeper.start();
    const ticks = reports.length;
    const nextFeed = () => {
      const feed = timers.findLast((x) => x.ms === 25);
      feed?.fn();
    };
    // Nothing committed: the feed timer reports nothing.
    nextFeed();
    nextFeed();
    expect(reports).toHaveLength(ticks);
    // A runner process's commit (another connection) is pushed on the next feed look, not the next tick.
    const runner = t.reopen();
    const run = runner.reserveRun(
      { projectPath: t.projectDir, workflow: 'wf', title: 'from a runner' },
      RUNNER_ACTOR,
    );
    const { claim } = runner.claimRun(run.id, { ...runnerOwner(), leaseMs: 30_000 });
    nextFeed();
    expect(reports).toHaveLength(ticks + 1);
    const feed = reports.at(-1)!;
    expect(feed.acting).toBe(false);
    expect(feed.changed?.runIds).toEqual([run.id]);
    expect(feed.events.length).toBeGreaterThanOrEqual(2);
    // This process holds the host lease (its first tick took it): the same look hands the events to notify.
    const runnerSeqs = feed.events.filter((e) => e.runId === run.id).map((e) => e.seq);
    expect(runnerSeqs.length).toBeGreaterThanOrEqual(2);
    expect(feed.notifyEvents.map((e) => e.seq)).toEqual(runnerSeqs);
    // A commit without events (a heartbeat) moves data_version but pushes nothing.
    const version = t.store.dataVersion();
    runner.heartbeat(claim, 30_000);
    expect(t.store.dataVersion()).not.toBe(version);
    nextFeed();
    expect(reports).toHaveLength(ticks + 1);
    // The tick timer is still armed at its own interval, and the next tick does not repeat the push.
    timers.findLast((x) => x.ms === 2_000)?.fn();
    expect(reports.at(-1)?.changed?.runIds ?? []).not.toContain(run.id);
    sweeper.stop();
    runner.close();
  });
});
