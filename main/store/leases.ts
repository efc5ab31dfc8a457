/**
 * Lease transitions beyond the claim itself (docs/ARCHITECTURE.md#leases-and-fencing): heartbeats, the
 * command a runner started, the host (sweeper) lease and its notification cursor, the sweeper's verdict that
 * a runner is lost, and the lease lists the sweeper reads. Who is live is the liveness check's answer
 * (docs/LIVENESS.md).
 */
import type { Actor } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { hashToken } from './ids';
import { requireLeaseMs } from './input-checks';
import {
  clearHeldLease,
  isHeldByLiveOther,
  markExpiredLeaseLost,
  markLeaseLost,
  renewLease,
  renewLeaseOnTime,
  takeLease,
} from './lease-rows';
import { TERMINAL_RUN_SQL, type LeaseRow } from './row-mapping';
import { actorOf, appendEvent, commitRun, fence, runnerActor, runnerSurface } from './run-state';
import type {
  Claim,
  ClaimKey,
  CommandIdentity,
  HeartbeatAnswer,
  LeaseSummary,
  OwnerInfo,
} from './store-types';
import type { ReadableDB, WritableDB } from './store-context';

/** The host lease's claims carry this in place of a run id (run ids always start with `run_`). */
export const HOST_LEASE_NAME = 'host';

function leaseOwnerId(ctx: WritableDB, runId: string): string | null {
  const row = ctx.prep(`SELECT owner_id FROM leases WHERE run_id = ?`).get(runId) as
    { owner_id: string | null } | undefined;
  return row?.owner_id ?? null;
}

/** The cancel and pause a person requested of the run, which every heartbeat answers with. */
function requests(ctx: ReadableDB, runId: string): { cancelRequested: boolean; pauseRequested: boolean } {
  const flags = ctx.prep(`SELECT cancel_requested, pause_requested FROM runs WHERE id = ?`).get(runId) as
    { cancel_requested: number; pause_requested: number } | undefined;
  return { cancelRequested: flags?.cancel_requested === 1, pauseRequested: flags?.pause_requested === 1 };
}

/**
 * Renews the owner's run lease; token, generation and owner type are checked inside the UPDATE. A lapsed
 * lease renews too while nobody took it over (docs/LIVENESS.md#suspend-safe-renewal), recorded as
 * `run.lease_renewed_late`. The answer carries the cancel / pause requests, or why the lease is lost.
 */
export function heartbeat(ctx: WritableDB, claim: ClaimKey, leaseMs: number, now: number): HeartbeatAnswer {
  requireLeaseMs(leaseMs);
  const { cancelRequested, pauseRequested } = requests(ctx, claim.runId);
  const renewed = renewLease(ctx, { runId: claim.runId }, claim, leaseMs, now);
  if (renewed === null) {
    return { ok: false, cancelRequested, pauseRequested, expiresAt: null, lost: lostHow(ctx, claim) };
  }
  const lapsedMs = Math.max(0, now - renewed.previousExpiresAt);
  if (lapsedMs > 0 || renewed.wasLost || renewed.wasVouched) {
    // A person may have seen it as stale: the timeline says it came back, and the views move with it.
    commitRun(ctx, claim.runId, now, {
      type: 'run.lease_renewed_late',
      // The holder that came back, named as its lease row names it (an empty actor read as "nobody").
      actor: {
        type: claim.ownerType,
        id: leaseOwnerId(ctx, claim.runId),
        surface: runnerSurface(claim.surface),
      },
      leaseGeneration: claim.generation,
      payload: { lapsedMs, vouched: renewed.wasVouched },
    });
  } else {
    ctx.prep(`UPDATE runs SET owner_expires_at = ? WHERE id = ?`).run(renewed.expiresAt, claim.runId);
  }
  return {
    ok: true,
    cancelRequested,
    pauseRequested,
    expiresAt: renewed.expiresAt,
    ...(lapsedMs > 0 && { lapsedMs }),
  };
}

/**
 * The common heartbeat, alone in its transaction: the lease is on time, so renewing it moves its expiry (on
 * the lease and on the run's `owner_expires_at`) and nothing else — no event, no revision. Null, with nothing
 * written, when it is not that simple (a lapse, a recorded loss, a vouch to record): the caller then runs
 * `heartbeat` in a durable commit. Its commit may skip the fsync (docs/ARCHITECTURE.md#lease-renewals).
 */
export function heartbeatOnTime(
  ctx: WritableDB,
  claim: ClaimKey,
  leaseMs: number,
  now: number,
): HeartbeatAnswer | null {
  requireLeaseMs(leaseMs);
  const { cancelRequested, pauseRequested } = requests(ctx, claim.runId);
  const renewed = renewLeaseOnTime(ctx, { runId: claim.runId }, claim, leaseMs, now);
  if (renewed === 'late') return null;
  if (renewed === null) {
    return { ok: false, cancelRequested, pauseRequested, expiresAt: null, lost: lostHow(ctx, claim) };
  }
  ctx.prep(`UPDATE runs SET owner_expires_at = ? WHERE id = ?`).run(renewed.expiresAt, claim.runId);
  return { ok: true, cancelRequested, pauseRequested, expiresAt: renewed.expiresAt };
}

/**
 * Why a heartbeat found no lease to renew: another generation (taken over), nobody's (released), or still
 * this one but lapsed with its owner recorded as gone (it may not come back).
 */
function lostHow(ctx: WritableDB, claim: ClaimKey): 'takenOver' | 'released' | 'lapsed' {
  const row = ctx.prep(`SELECT generation, owner_type FROM leases WHERE run_id = ?`).get(claim.runId) as
    { generation: number; owner_type: string | null } | undefined;
  if (row === undefined || row.generation !== claim.generation) return 'takenOver';
  return row.owner_type === null ? 'released' : 'lapsed';
}

/** The runner records the command it started, so an orphan can be told and stopped (docs/LIVENESS.md#orphans). */
export function recordCommand(ctx: WritableDB, claim: ClaimKey, command: CommandIdentity, now: number): void {
  for (const value of [command.pid, command.pgid ?? 1]) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new RunwardenError('VALIDATION', 'command pid and pgid must be positive integers.');
    }
  }
  const lease = fence(ctx, claim, now);
  ctx
    .prep(`UPDATE leases SET command_pid = ?, command_pgid = ?, command_start_id = ? WHERE run_id = ?`)
    .run(command.pid, command.pgid, command.startId, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.command_started',
    actor: runnerActor(lease, claim),
    leaseGeneration: lease.generation,
    payload: {
      pid: command.pid,
      pgid: command.pgid,
      ...(command.containment !== undefined && { containment: command.containment }),
    },
  });
}

const HOST = { name: HOST_LEASE_NAME };

function hostLease(ctx: ReadableDB): LeaseRow {
  return ctx.prep(`SELECT * FROM leases WHERE name = ?`).get(HOST_LEASE_NAME) as LeaseRow;
}

/**
 * Only one sweeper acts at a time. Null when another host holds a live lease — judged by the one liveness
 * check: a holder verifiably gone from this machine is not live whatever its expiry says (a backward clock
 * step), and one verifiably alive is live even past it (docs/LIVENESS.md).
 */
export function claimHostLease(
  ctx: WritableDB,
  owner: OwnerInfo & { leaseMs: number },
  now: number,
): Claim | null {
  if (isHeldByLiveOther(ctx, hostLease(ctx), owner, now)) return null;
  const taken = takeLease(ctx, HOST, { ...owner, startId: owner.startId ?? null }, owner.leaseMs, now);
  appendEvent(ctx, now, null, null, {
    type: 'host.claimed',
    actor: { type: owner.ownerType, id: owner.ownerId, surface: 'sweeper' },
    leaseGeneration: taken.generation,
    payload: { pid: owner.pid, hostname: owner.hostname },
  });
  return {
    runId: HOST_LEASE_NAME,
    generation: taken.generation,
    token: taken.token,
    expiresAt: taken.expiresAt,
    ownerType: owner.ownerType,
    ownerId: owner.ownerId,
  };
}

/** Renews the host lease; like a run's, a lapsed one renews while nobody took it over (a suspended app). */
export function renewHostLease(ctx: WritableDB, claim: ClaimKey, leaseMs: number, now: number): boolean {
  return renewLease(ctx, HOST, claim, leaseMs, now) !== null;
}

/**
 * The durable notification cursor (docs/LIVENESS.md#notifications): the last event sequence the acting host
 * notified. Null on a store no host has notified from yet.
 */
export function notifiedSeq(ctx: ReadableDB): number | null {
  return hostLease(ctx).notified_seq ?? null;
}

/**
 * Moves the cursor from `from` to `to`, only for the current host-lease holder and only if nobody moved it
 * since (compare-and-set): of two hosts racing over a takeover, exactly one notifies each event.
 */
export function advanceNotifiedSeq(
  ctx: WritableDB,
  claim: ClaimKey,
  from: number | null,
  to: number,
): boolean {
  return (
    ctx
      .prep(
        `UPDATE leases SET notified_seq = ?
         WHERE name = ? AND token_hash = ? AND generation = ? AND notified_seq IS ?`,
      )
      .run(to, HOST_LEASE_NAME, hashToken(claim.token), claim.generation, from).changes === 1
  );
}

export function releaseHostLease(ctx: WritableDB, claim: ClaimKey): boolean {
  return clearHeldLease(ctx, HOST, claim);
}

interface LeaseSummaryRow {
  run_id: string;
  owner_id: string;
  owner_pid: number;
  owner_hostname: string;
  owner_start_id: string | null;
  expires_at: number;
  generation: number;
  owner_boot_id: string | null;
  owner_pid_ns: string | null;
  command_pid: number | null;
  command_pgid: number | null;
  command_start_id: string | null;
  orphaned_at: number | null;
}

function toSummary(row: LeaseSummaryRow): LeaseSummary {
  return {
    runId: row.run_id,
    ownerId: row.owner_id,
    ownerPid: row.owner_pid,
    ownerHostname: row.owner_hostname,
    ownerStartId: row.owner_start_id,
    expiresAt: row.expires_at,
    generation: row.generation,
    ownerBootId: row.owner_boot_id,
    ownerPidNs: row.owner_pid_ns,
    commandPid: row.command_pid,
    commandPgid: row.command_pgid,
    commandStartId: row.command_start_id,
    orphanedAt: row.orphaned_at,
  };
}

const SUMMARY_COLUMNS = [
  'run_id',
  'owner_id',
  'owner_pid',
  'owner_hostname',
  'owner_start_id',
  'expires_at',
  'generation',
  'owner_boot_id',
  'owner_pid_ns',
  'command_pid',
  'command_pgid',
  'command_start_id',
  'orphaned_at',
];
const LEASE_SUMMARY = SUMMARY_COLUMNS.map((c) => `l.${c}`).join(', ');

/** Expired, not yet recorded as lost: what the sweeper has to notice (cheap when nothing is new). */
export const EXPIRED_LEASES_SQL = `SELECT ${LEASE_SUMMARY}
  FROM leases l JOIN runs r ON r.id = l.run_id
  WHERE l.owner_type IS NOT NULL AND l.run_id IS NOT NULL
    AND (l.lost_generation IS NULL OR l.lost_generation != l.generation) AND l.expires_at <= ?
    AND r.status NOT IN ${TERMINAL_RUN_SQL}
  ORDER BY l.expires_at LIMIT ?`;

/** Every stale lease, noticed or not. */
export const STALE_LEASES_SQL = `SELECT ${LEASE_SUMMARY}
  FROM leases l JOIN runs r ON r.id = l.run_id
  WHERE l.owner_type IS NOT NULL AND l.run_id IS NOT NULL AND l.expires_at <= ?
    AND r.status NOT IN ${TERMINAL_RUN_SQL}
  ORDER BY l.expires_at LIMIT ?`;

/**
 * Non-terminal runs whose owner's lease expired at least `graceMs` ago and whose loss is not recorded yet
 * (`markLapsedRunnersLost` or `markRunnerGone` records it), oldest expiry first.
 */
export function listExpiredLeases(
  ctx: ReadableDB,
  graceMs: number,
  limit: number,
  now: number,
): LeaseSummary[] {
  return (ctx.prep(EXPIRED_LEASES_SQL).all(now - graceMs, limit) as LeaseSummaryRow[]).map(toSummary);
}

/** Every non-terminal run whose owner's lease expired at least `olderThanMs` ago (for the auto-cancel policy). */
export function listStaleLeases(
  ctx: ReadableDB,
  olderThanMs: number,
  limit: number,
  now: number,
): LeaseSummary[] {
  return (ctx.prep(STALE_LEASES_SQL).all(now - olderThanMs, limit) as LeaseSummaryRow[]).map(toSummary);
}

/**
 * Live runner leases on one host, for the pid / start-identity check (docs/ARCHITECTURE.md#liveness); not
 * coding-agent sessions, which end as died in their own step (docs/AGENTS.md#died).
 */
export function listLiveLeasesOnHost(
  ctx: ReadableDB,
  hostname: string,
  limit: number,
  now: number,
): LeaseSummary[] {
  return (
    ctx
      .prep(
        `SELECT ${SUMMARY_COLUMNS.join(', ')}
         FROM leases
         WHERE owner_type IS NOT NULL AND run_id IS NOT NULL AND owner_hostname = ? AND expires_at > ?
           -- A coding agent's session is ended by its own step (agent-sessions.ts, endGoneAgentSessions),
           -- as died, never as a lost runner: a kill between that step's look and this one waits a tick.
           AND NOT EXISTS (SELECT 1 FROM agent_sessions a WHERE a.run_id = leases.run_id)
         ORDER BY expires_at LIMIT ?`,
      )
      .all(hostname, now, limit) as LeaseSummaryRow[]
  ).map(toSummary);
}

/**
 * The sweeper's verdict that a runner is verifiably gone (docs/ARCHITECTURE.md#sweeper): expires the lease
 * now if the generation still matches, and records `run.runner_lost` once per generation. Verified gone,
 * not just late: its lapsed lease never renews (docs/LIVENESS.md#suspend-safe-renewal). True when it wrote.
 */
export function markRunnerGone(
  ctx: WritableDB,
  runId: string,
  generation: number,
  reason: string,
  actor: Actor,
  now: number,
): boolean {
  const before = ctx.prep(`SELECT expires_at FROM leases WHERE run_id = ?`).get(runId) as
    Pick<LeaseRow, 'expires_at'> | undefined;
  const lost = markLeaseLost(ctx, runId, generation, now, { verifiedGone: true });
  if (lost === undefined) return false;
  const expiredEarly = (before?.expires_at ?? now) > now;
  commitRun(ctx, runId, now, {
    type: 'run.runner_lost',
    actor: actorOf(actor),
    leaseGeneration: generation,
    payload: { reason, ownerId: lost.owner_id, pid: lost.owner_pid, expiredEarly },
  });
  return true;
}

/**
 * Records `run.runner_lost` for leases that lapsed by the clock while their owner could not be judged
 * (unlike `markRunnerGone`, nothing is verified and no lease is cut short), a batch in the caller's one
 * transaction (the sweeper's step 1 at scale: 1,000 runs going stale at once must not cost 1,000 commits).
 * Only the lost mark, the revision and the event change: the expiry has passed already, so neither the
 * lease's nor the run's copy of it moves and neither is named in a SET (each names an index or three); the
 * display base is computed with every owned lease counted live, so it cannot move here either.
 */
/** Lapsed leases marked per chunk of a burst (RunStore.markLapsedRunnersLost); a chunk is a fixed set of statements. */
export const LOST_PER_CHUNK = 50;

export function markLapsedRunnersLost(
  ctx: WritableDB,
  leases: ReadonlyArray<{ runId: string; generation: number }>,
  reason: string,
  actor: Actor,
  now: number,
): number {
  const bump = ctx.prep(
    `UPDATE runs SET revision = revision + 1, updated_at = @now WHERE id = @runId
     RETURNING revision, owner_expires_at`,
  );
  // Only when the run's copy disagreed with its lease (it should not): the views follow the lease.
  const sync = ctx.prep(`UPDATE runs SET owner_expires_at = @expiresAt WHERE id = @runId`);
  const eventActor = actorOf(actor);
  let marked = 0;
  for (const lease of leases) {
    const row = markExpiredLeaseLost(ctx, lease.runId, lease.generation, now);
    if (row === undefined) continue;
    const run = bump.get({ now, runId: lease.runId }) as {
      revision: number;
      owner_expires_at: number | null;
    };
    if (run.owner_expires_at !== row.expires_at) sync.run({ expiresAt: row.expires_at, runId: lease.runId });
    appendEvent(ctx, now, lease.runId, run.revision, {
      type: 'run.runner_lost',
      actor: eventActor,
      leaseGeneration: lease.generation,
      payload: { reason, ownerId: row.owner_id, pid: row.owner_pid, expiredEarly: false },
    });
    marked += 1;
  }
  return marked;
}
