/**
 * Lease transitions beyond the claim itself (docs/ARCHITECTURE.md#leases-and-fencing): heartbeats, the host
 * (sweeper) lease, the sweeper's verdict that a runner is lost, and the lease lists the sweeper reads.
 */
import type { Actor } from '../../shared/domain';
import { requireLeaseMs } from './input-checks';
import { clearHeldLease, extendLease, isHeldByOther, markLeaseLost, takeLease } from './lease-rows';
import { TERMINAL_RUN_SQL, type LeaseRow } from './rows';
import { actorOf, appendEvent, commitRun } from './run-state';
import type { Claim, ClaimKey, HeartbeatAnswer, LeaseSummary, OwnerInfo } from './store-types';
import type { StoreContext } from './store-context';

/** The host lease's claims carry this in place of a run id (run ids always start with `run_`). */
export const HOST_LEASE_NAME = 'host';

/**
 * Extends a live run lease. An expired owner never revives itself. No event and no revision bump (a
 * heartbeat changes nothing a person sees); the answer carries the cancel/pause requests.
 */
export function heartbeat(ctx: StoreContext, claim: ClaimKey, leaseMs: number, now: number): HeartbeatAnswer {
  requireLeaseMs(leaseMs);
  const expiresAt = extendLease(ctx, { runId: claim.runId }, claim, leaseMs, now);
  const flags = ctx
    .prep(`SELECT cancel_requested, pause_requested FROM runs WHERE id = ?`)
    .get(claim.runId) as { cancel_requested: number; pause_requested: number } | undefined;
  const cancelRequested = flags?.cancel_requested === 1;
  const pauseRequested = flags?.pause_requested === 1;
  if (expiresAt === null) return { ok: false, cancelRequested, pauseRequested, expiresAt: null };
  ctx.prep(`UPDATE runs SET owner_expires_at = ? WHERE id = ?`).run(expiresAt, claim.runId);
  return { ok: true, cancelRequested, pauseRequested, expiresAt };
}

const HOST = { name: HOST_LEASE_NAME };

function hostLease(ctx: StoreContext): LeaseRow {
  return ctx.prep(`SELECT * FROM leases WHERE name = ?`).get(HOST_LEASE_NAME) as LeaseRow;
}

/** Only one sweeper acts at a time. Null when another host holds a live lease. */
export function claimHostLease(
  ctx: StoreContext,
  owner: OwnerInfo & { leaseMs: number },
  now: number,
): Claim | null {
  if (isHeldByOther(hostLease(ctx), owner, now)) return null;
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

export function renewHostLease(ctx: StoreContext, claim: ClaimKey, leaseMs: number, now: number): boolean {
  return extendLease(ctx, HOST, claim, leaseMs, now) !== null;
}

export function releaseHostLease(ctx: StoreContext, claim: ClaimKey): boolean {
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
  };
}

const LEASE_SUMMARY = `l.run_id, l.owner_id, l.owner_pid, l.owner_hostname, l.owner_start_id, l.expires_at, l.generation`;

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
 * (`markRunnerLost` records it), oldest expiry first.
 */
export function listExpiredLeases(
  ctx: StoreContext,
  graceMs: number,
  limit: number,
  now: number,
): LeaseSummary[] {
  return (ctx.prep(EXPIRED_LEASES_SQL).all(now - graceMs, limit) as LeaseSummaryRow[]).map(toSummary);
}

/** Every non-terminal run whose owner's lease expired at least `olderThanMs` ago (for the auto-cancel policy). */
export function listStaleLeases(
  ctx: StoreContext,
  olderThanMs: number,
  limit: number,
  now: number,
): LeaseSummary[] {
  return (ctx.prep(STALE_LEASES_SQL).all(now - olderThanMs, limit) as LeaseSummaryRow[]).map(toSummary);
}

/** Live runner leases on one host, for the pid / start-identity check (docs/ARCHITECTURE.md#liveness). */
export function listLiveLeasesOnHost(
  ctx: StoreContext,
  hostname: string,
  limit: number,
  now: number,
): LeaseSummary[] {
  return (
    ctx
      .prep(
        `SELECT run_id, owner_id, owner_pid, owner_hostname, owner_start_id, expires_at, generation
         FROM leases
         WHERE owner_type IS NOT NULL AND run_id IS NOT NULL AND owner_hostname = ? AND expires_at > ?
         ORDER BY expires_at LIMIT ?`,
      )
      .all(hostname, now, limit) as LeaseSummaryRow[]
  ).map(toSummary);
}

/**
 * The sweeper's verdict that a runner is gone (docs/ARCHITECTURE.md#sweeper): expires the lease now if the generation
 * still matches, and records `run.runner_lost` once per generation. True when it wrote.
 */
export function markRunnerLost(
  ctx: StoreContext,
  runId: string,
  generation: number,
  reason: string,
  actor: Actor,
  now: number,
): boolean {
  const before = ctx.prep(`SELECT expires_at FROM leases WHERE run_id = ?`).get(runId) as
    Pick<LeaseRow, 'expires_at'> | undefined;
  const lost = markLeaseLost(ctx, runId, generation, now);
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
 * `markRunnerLost` for a batch, in the caller's one transaction (the sweeper's step 1 at scale: 1,000 runs
 * going stale at once must not cost 1,000 commits). Only the lease expiry, the revision and the event change:
 * the display base is computed with every owned lease counted live, so it cannot move here.
 */
export function markRunnersLost(
  ctx: StoreContext,
  leases: ReadonlyArray<{ runId: string; generation: number }>,
  reason: string,
  actor: Actor,
  now: number,
): number {
  const bump = ctx.prep(
    `UPDATE runs SET revision = revision + 1, updated_at = @now, owner_expires_at = @expiresAt WHERE id = @runId
     RETURNING revision`,
  );
  const eventActor = actorOf(actor);
  let marked = 0;
  for (const lease of leases) {
    const row = markLeaseLost(ctx, lease.runId, lease.generation, now);
    if (row === undefined) continue;
    const { revision } = bump.get({ now, expiresAt: row.expires_at, runId: lease.runId }) as {
      revision: number;
    };
    appendEvent(ctx, now, lease.runId, revision, {
      type: 'run.runner_lost',
      actor: eventActor,
      leaseGeneration: lease.generation,
      payload: { reason, ownerId: row.owner_id, pid: row.owner_pid, expiredEarly: false },
    });
    marked += 1;
  }
  return marked;
}
