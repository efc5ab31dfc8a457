/**
 * Row helpers for `leases`: taking, extending and clearing a lease, and what "live" means for one
 * (docs/ARCHITECTURE.md#leases-and-fencing). A run's lease is keyed by its run id, the host lease by its name.
 */
import type { OwnerType } from '../../shared/domain';
import { hashToken, newToken } from './ids';
import { TERMINAL_RUN_SQL, type LeaseRow } from './rows';
import type { StoreContext } from './store-context';

export type LeaseKey = { runId: string } | { name: string };

/** Who takes a lease: recorded on the row so a sweeper can judge whether the owner process still lives. */
export interface LeaseOwner {
  ownerType: OwnerType;
  ownerId: string;
  pid: number | null;
  hostname: string | null;
  startId: string | null;
}

export interface TakenLease {
  generation: number;
  /** The new token; only its hash is stored. */
  token: string;
  expiresAt: number;
}

function keyOf(key: LeaseKey): { column: 'run_id' | 'name'; value: string } {
  return 'runId' in key ? { column: 'run_id', value: key.runId } : { column: 'name', value: key.name };
}

/** A lease with an owner whose expiry has not passed. */
export function isLeaseLive(lease: Pick<LeaseRow, 'owner_type' | 'expires_at'>, now: number): boolean {
  return lease.owner_type !== null && lease.expires_at !== null && lease.expires_at > now;
}

/** Live, and held by someone other than `owner` (the same owner may claim again). */
export function isHeldByOther(
  lease: LeaseRow,
  owner: Pick<LeaseOwner, 'ownerType' | 'ownerId'>,
  now: number,
): boolean {
  return (
    isLeaseLive(lease, now) && !(lease.owner_type === owner.ownerType && lease.owner_id === owner.ownerId)
  );
}

/**
 * Takes the lease for `owner` until `now + leaseMs`: generation+1 fences every write of the previous owner,
 * and a fresh token is issued.
 */
export function takeLease(
  ctx: StoreContext,
  key: LeaseKey,
  owner: LeaseOwner,
  leaseMs: number,
  now: number,
): TakenLease {
  const { column, value } = keyOf(key);
  const token = newToken();
  const expiresAt = now + leaseMs;
  const row = ctx
    .prep(
      `UPDATE leases SET generation = generation + 1, owner_type = ?, owner_id = ?, token_hash = ?, owner_pid = ?,
         owner_hostname = ?, owner_start_id = ?, acquired_at = ?, heartbeat_at = ?, expires_at = ?
       WHERE ${column} = ? RETURNING generation`,
    )
    .get(
      owner.ownerType,
      owner.ownerId,
      hashToken(token),
      owner.pid,
      owner.hostname,
      owner.startId,
      now,
      now,
      expiresAt,
      value,
    ) as { generation: number };
  return { generation: row.generation, token, expiresAt };
}

/** What a holder presents to extend or give back its lease. */
export interface LeaseHold {
  generation: number;
  token: string;
  ownerType: OwnerType;
}

/**
 * Extends a live lease held by `hold` to `now + leaseMs`. The check is inside the UPDATE: an expired owner
 * never revives itself. Returns the new expiry, or null when the hold no longer matches.
 */
export function extendLease(
  ctx: StoreContext,
  key: LeaseKey,
  hold: LeaseHold,
  leaseMs: number,
  now: number,
): number | null {
  const { column, value } = keyOf(key);
  const row = ctx
    .prep(
      `UPDATE leases SET heartbeat_at = ?, expires_at = ?
       WHERE ${column} = ? AND token_hash = ? AND generation = ? AND owner_type = ? AND expires_at > ?
       RETURNING expires_at`,
    )
    .get(now, now + leaseMs, value, hashToken(hold.token), hold.generation, hold.ownerType, now) as
    { expires_at: number } | undefined;
  return row === undefined ? null : row.expires_at;
}

/**
 * The sweeper's verdict on one lease: if it is still generation `generation`, owned, not yet recorded lost,
 * and its run is not finished, it expires now (if it had not already) and records that generation as lost.
 * Returns the owner and the new expiry, or undefined when nothing matched.
 */
export function markLeaseLost(
  ctx: StoreContext,
  runId: string,
  generation: number,
  now: number,
): { owner_id: string; owner_pid: number; expires_at: number } | undefined {
  return ctx
    .prep(
      `UPDATE leases SET expires_at = MIN(expires_at, @now), lost_generation = generation
       WHERE run_id = @runId AND generation = @generation AND owner_type IS NOT NULL
         AND (lost_generation IS NULL OR lost_generation != generation)
         AND EXISTS (SELECT 1 FROM runs r WHERE r.id = @runId AND r.status NOT IN ${TERMINAL_RUN_SQL})
       RETURNING owner_id, owner_pid, expires_at`,
    )
    .get({ now, runId, generation }) as
    { owner_id: string; owner_pid: number; expires_at: number } | undefined;
}

const CLEAR = `owner_type = NULL, owner_id = NULL, token_hash = NULL, owner_pid = NULL, owner_hostname = NULL,
         owner_start_id = NULL, acquired_at = NULL, heartbeat_at = NULL, expires_at = NULL`;

/** Clears a run lease's owner (generation unchanged: the next claim bumps it). */
export function clearLease(ctx: StoreContext, runId: string): void {
  ctx.prep(`UPDATE leases SET ${CLEAR} WHERE run_id = ?`).run(runId);
}

/** Clears the owner of the lease `key` only if `hold` still matches it. True when it did. */
export function clearHeldLease(
  ctx: StoreContext,
  key: LeaseKey,
  hold: Omit<LeaseHold, 'ownerType'>,
): boolean {
  const { column, value } = keyOf(key);
  return (
    ctx
      .prep(`UPDATE leases SET ${CLEAR} WHERE ${column} = ? AND token_hash = ? AND generation = ?`)
      .run(value, hashToken(hold.token), hold.generation).changes === 1
  );
}
