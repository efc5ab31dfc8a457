/**
 * The one liveness check (docs/LIVENESS.md) and the store transitions that follow its verdicts: pids are
 * trusted only on the same host, boot and pid namespace; a verifiably alive owner keeps its run whatever
 * the clock; a gone one does not even before its expiry; an orphan refuses cancel and claims; a cancel
 * request on an unclaimed run cancels it and a claim refuses a run that carries one; migration 0006.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RunwardenError } from '../../../shared/errors';
import { createLivenessCheck, pidsTrusted, type ProcessProbe } from '../../../main/store/liveness';
import { groupAlive, machineIdentity } from '../../../main/store/process-identity';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migrate } from '../../../main/store/open-store';
import { mapStoreError } from '../../../main/store/store-context';
import {
  createTempStore,
  HUMAN,
  makeTempDir,
  reserve,
  reserveAndClaim,
  runnerOwner,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';

const HERE = { hostname: 'test-host', bootId: 'boot-a', pidNs: 'pid:[1]' };
const OWNER = {
  ownerType: 'runner' as const,
  ownerPid: 10,
  ownerHostname: 'test-host',
  ownerStartId: '5',
  ownerBootId: 'boot-a',
  ownerPidNs: 'pid:[1]',
};

function probe(alive: Set<number>, groups: Set<number> = new Set()): ProcessProbe {
  return { processAlive: (pid) => alive.has(pid), groupAlive: (pgid) => groups.has(pgid) };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return error instanceof RunwardenError ? error.code : 'raw';
  }
  return 'none';
}

describe('the liveness check', () => {
  it('trusts a pid only on the same host, boot and pid namespace, all known', () => {
    expect(pidsTrusted(OWNER, HERE)).toBe(true);
    expect(pidsTrusted({ ...OWNER, ownerHostname: 'other' }, HERE)).toBe(false);
    expect(pidsTrusted({ ...OWNER, ownerBootId: 'boot-b' }, HERE)).toBe(false);
    expect(pidsTrusted({ ...OWNER, ownerPidNs: 'pid:[2]' }, HERE)).toBe(false);
    expect(pidsTrusted({ ...OWNER, ownerBootId: null }, HERE)).toBe(false);
    expect(pidsTrusted(OWNER, { ...HERE, pidNs: null })).toBe(false);
  });

  it('judges supervisor and command: alive, orphan, gone; unknown when not trusted', () => {
    const check = createLivenessCheck(HERE, probe(new Set([10]), new Set([20])));
    expect(check.judge(OWNER)).toEqual({ supervisor: 'alive', command: 'unknown' });
    const gone = createLivenessCheck(HERE, probe(new Set(), new Set([20])));
    expect(gone.judge({ ...OWNER, commandPid: 20, commandPgid: 20, commandStartId: '9' })).toEqual({
      supervisor: 'gone',
      command: 'alive',
    });
    expect(gone.judge({ ...OWNER, commandPid: 21, commandPgid: 21, commandStartId: '9' })).toEqual({
      supervisor: 'gone',
      command: 'gone',
    });
    expect(gone.judge(OWNER)).toEqual({ supervisor: 'gone', command: 'gone' });
    expect(gone.judge({ ...OWNER, ownerPidNs: 'pid:[2]' })).toEqual({
      supervisor: 'unknown',
      command: 'unknown',
    });
    expect(gone.judge(null)).toEqual({ supervisor: 'unknown', command: 'unknown' });
  });

  it.runIf(process.platform === 'linux')(
    'reads this machine, and sees a real process group come and go',
    async () => {
      const here = machineIdentity();
      expect(here.bootId).toMatch(/^[0-9a-f-]{36}$/);
      expect(here.pidNs).toMatch(/^pid:\[\d+\]$/);
      const child = spawn('sh', ['-c', 'sleep 30 & wait'], { detached: true, stdio: 'ignore' });
      const pgid = child.pid as number;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(groupAlive(pgid, null)).toBe(true);
      expect(groupAlive(pgid, 'not-its-start')).toBe(false);
      process.kill(-pgid, 'SIGKILL');
      const deadline = Date.now() + 5_000;
      while (groupAlive(pgid, null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(groupAlive(pgid, null)).toBe(false);
    },
  );

  it('maps a full disk and a read-only file to their own codes and sentences', () => {
    const full = mapStoreError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    expect(full.code).toBe('DISK_FULL');
    expect(full.message).toContain('disk holding the store is full');
    const ro = mapStoreError(
      Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }),
    );
    expect(ro.code).toBe('READ_ONLY');
    expect(ro.message).toContain('read-only');
  });
});

describe('store transitions judged by the liveness check', () => {
  let t: TempStore;
  afterEach(() => t?.cleanup());
  const trusted = (pid: number) => runnerOwner(`r${pid}`, { pid, bootId: HERE.bootId, pidNs: HERE.pidNs });

  it('an owner verified alive keeps its run past its lease: no cancel, no claim', () => {
    t = createTempStore({ liveness: createLivenessCheck(HERE, probe(new Set([4242]))) });
    const claim = reserveAndClaim(t, 10_000, trusted(4242));
    t.clock.advance(60 * 60_000);
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).display).toMatchObject({
      status: 'running',
      liveOwner: true,
    });
    expect(codeOf(() => t.store.cancelRun(claim.runId, { reason: 'clock jumped', actor: HUMAN }))).toBe(
      'LIVE_OWNER',
    );
    expect(codeOf(() => t.store.claimRun(claim.runId, { ...runnerOwner('thief'), leaseMs: 1_000 }))).toBe(
      'LIVE_OWNER',
    );
    // Its own heartbeat renews the lapsed lease.
    expect(t.store.heartbeat(claim, 10_000)).toMatchObject({ ok: true });
  });

  it('an owner verified gone does not keep its run even before its expiry (a backward clock step)', () => {
    t = createTempStore({ liveness: createLivenessCheck(HERE, probe(new Set())) });
    const claim = reserveAndClaim(t, 60 * 60_000, trusted(4242));
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).display.status).toBe('stale');
    expect(t.store.cancelRun(claim.runId, { reason: 'runner gone', actor: HUMAN }).run.status).toBe(
      'cancelled',
    );
  });

  it('an orphan is its own status, refuses cancel and claims, and is stale once its command is gone', () => {
    const groups = new Set([777]);
    t = createTempStore({ liveness: createLivenessCheck(HERE, probe(new Set(), groups)) });
    const claim = reserveAndClaim(t, 30_000, trusted(4242));
    t.store.recordCommand(claim, { pid: 777, pgid: 777, startId: '1' });
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).display).toMatchObject({
      status: 'orphaned',
      needsYou: true,
      actions: ['stopCommand'],
    });
    expect(codeOf(() => t.store.cancelRun(claim.runId, { reason: 'x', actor: HUMAN }))).toBe('LIVE_OWNER');
    expect(codeOf(() => t.store.claimRun(claim.runId, { ...runnerOwner('w'), leaseMs: 1_000 }))).toBe(
      'LIVE_OWNER',
    );
    expect(t.store.markOrphaned(claim.runId, claim.generation, SWEEPER)).toBe(true);
    expect(t.store.listRuns({ view: 'orphaned', limit: 10 }).items.map((i) => i.run.id)).toEqual([
      claim.runId,
    ]);
    expect(t.store.listRuns({ view: 'needs-you', limit: 10 }).items.map((i) => i.run.id)).toEqual([
      claim.runId,
    ]);
    expect(t.store.attentionSummary(5).counts).toMatchObject({ orphaned: 1 });
    const started = t.store.beginStopCommand(claim.runId, { reason: 'stop it', actor: HUMAN });
    expect(started.command).toEqual({ pid: 777, pgid: 777, startId: '1' });
    groups.clear();
    t.store.finishStopCommand(claim.runId, started.generation, {
      gone: true,
      signals: ['SIGTERM'],
      reason: 'stop it',
      actor: HUMAN,
    });
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).display.status).toBe('stale');
    expect(t.store.listRuns({ view: 'orphaned', limit: 10 }).items).toEqual([]);
    expect(t.store.cancelRun(claim.runId, { reason: 'now', actor: HUMAN }).run.status).toBe('cancelled');
  });

  it('a cancel request on an unclaimed run cancels it; a claim refuses a run carrying one', () => {
    t = createTempStore();
    const queued = reserve(t);
    expect(
      t.store.requestCancel(queued.id, { expectedRevision: queued.revision, reason: 'no', actor: HUMAN })
        .status,
    ).toBe('cancelled');
    const claim = reserveAndClaim(t, 10_000);
    t.store.requestCancel(claim.runId, {
      expectedRevision: t.store.getRun(claim.runId).revision,
      reason: 'stop',
      actor: HUMAN,
    });
    t.clock.advance(20_000);
    expect(codeOf(() => t.store.claimRun(claim.runId, { ...runnerOwner('w'), leaseMs: 1_000 }))).toBe(
      'CONFLICT',
    );
    expect(t.store.claimNext({ ...runnerOwner('w'), leaseMs: 1_000 })).toBeNull();
  });
});

it('retention keeps a finished run with an unresolved ambiguous effect until it is resolved', () => {
  const t = createTempStore();
  try {
    const claim = reserveAndClaim(t, 30_000);
    const effect = t.store.reserveEffect(claim, {
      type: 'bank.transfer',
      idempotencyKey: 'k',
      summary: 'pay',
    });
    t.store.beginEffect(claim, effect.id);
    t.store.cancelOwnRun(claim, 'asked to');
    t.clock.advance(10 * 86_400_000);
    expect(t.store.pruneTerminalRuns(86_400_000, 10)).toBe(0);
    t.store.resolveEffect(effect.id, {
      resolution: 'not_applied',
      note: 'the bank has no record',
      expectedRevision: t.store.getRun(claim.runId).revision,
      actor: HUMAN,
    });
    t.clock.advance(2 * 86_400_000);
    expect(t.store.pruneTerminalRuns(86_400_000, 10)).toBe(1);
  } finally {
    t.cleanup();
  }
});

it('migration 0006 from version 5: liveness columns, every lease untrusted until re-claimed', () => {
  const dir = makeTempDir();
  try {
    const db = new Database(path.join(dir, 's.sqlite'));
    expect(migrate(db, MIGRATIONS.slice(0, 5))).toBe(5);
    expect(migrate(db, MIGRATIONS.slice(0, 6))).toBe(6);
    const columns = (db.prepare(`PRAGMA table_info(leases)`).all() as Array<{ name: string }>).map(
      (c) => c.name,
    );
    expect(columns).toEqual(
      expect.arrayContaining([
        'owner_boot_id',
        'owner_pid_ns',
        'command_pid',
        'command_pgid',
        'command_start_id',
        'vouched_at',
        'orphaned_at',
        'owner_gone_at',
        'notified_seq',
      ]),
    );
    expect(db.prepare(`SELECT notified_seq FROM leases WHERE name = 'host'`).get()).toEqual({
      notified_seq: null,
    });
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
