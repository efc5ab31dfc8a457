/**
 * Row helpers for `leases`: taking, extending and clearing a lease, and what "live" means for one
 * (docs/ARCHITECTURE.md#leases-and-fencing). A run's lease is keyed by its run id, the host lease by its name.
 */
import { hasLiveOwner, isOrphaned } from '../../shared/display-status';
import type { OwnerType } from '../../shared/domain';
import { hashToken, newToken } from './ids';
import { TERMINAL_RUN_SQL, toLease, type LeaseRow } from './row-mapping';
import type { WritableDB } from './store-context';
import type { OwnerInfo } from './store-types';

export type LeaseKey = { runId: string } | { name: string };

/**
 * Who takes a lease: the owner's identity (`OwnerInfo`, declared once), with pid and host unknown (null) for
 * the store's own control claim when `openStore` was given none.
 */
export type LeaseOwner = Omit<OwnerInfo, 'pid' | 'hostname' | 'surface'> & {
  pid: number | null;
  hostname: string | null;
};

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

/**
 * Held by someone other than `owner`, as the liveness check judges it (docs/LIVENESS.md): an owner verifiably
 * alive holds it past its expiry, one verifiably gone does not even before it, and an orphan's command still
 * holds it (a second copy must not start beside it).
 */
export function isHeldByLiveOther(
  ctx: WritableDB,
  row: LeaseRow,
  owner: Pick<LeaseOwner, 'ownerType' | 'ownerId'>,
  now: number,
): boolean {
  if (row.owner_type === null) return false;
  if (row.owner_type === owner.ownerType && row.owner_id === owner.ownerId) return false;
  const lease = toLease(row);
  const liveness = ctx.liveness.judge(lease);
  return hasLiveOwner(lease, now, liveness) || isOrphaned(lease, liveness) || liveness.command === 'alive';
}

/**
 * Takes the lease for `owner` until `now + leaseMs`: generation+1 fences every write of the previous owner,
 * and a fresh token is issued.
 */
export function takeLease(
  ctx: WritableDB,
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
         owner_hostname = ?, owner_start_id = ?, owner_boot_id = ?, owner_pid_ns = ?, ${CLEAR_COMMAND},
         acquired_at = ?, heartbeat_at = ?, expires_at = ?
       WHERE ${column} = ? RETURNING generation`,
    )
    .get(
      owner.ownerType,
      owner.ownerId,
      hashToken(token),
      owner.pid,
      owner.hostname,
      owner.startId,
      owner.bootId ?? null,
      owner.pidNs ?? null,
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

/** What a renewal found before it renewed. */
export interface RenewedLease {
  expiresAt: number;
  previousExpiresAt: number;
  /** The sweeper had recorded this generation lost (by the clock). */
  wasLost: boolean;
  /** A host had kept it live past its expiry. */
  wasVouched: boolean;
}

/**
 * Renews the lease held by `hold` to `now + leaseMs` — even a lapsed one, as long as nobody took over (same
 * generation and token) and its owner was not verified gone (docs/LIVENESS.md#suspend-safe-renewal). Clears
 * the marks of a lapse: a recorded loss and a host's vouch. Null when the hold no longer matches.
 */
export function renewLease(
  ctx: WritableDB,
  key: LeaseKey,
  hold: LeaseHold,
  leaseMs: number,
  now: number,
): RenewedLease | null {
  const found = renewable(ctx, key, hold, now);
  return found === undefined ? null : applyRenewal(ctx, found, leaseMs, now);
}

/**
 * `renewLease` for a lease still on time only: 'late' (and nothing written) when the renewal would have to
 * record a lapse, a recorded loss or a host's vouch — those renew through `renewLease`, in a durable commit
 * (docs/ARCHITECTURE.md#lease-renewals).
 */
export function renewLeaseOnTime(
  ctx: WritableDB,
  key: LeaseKey,
  hold: LeaseHold,
  leaseMs: number,
  now: number,
): RenewedLease | 'late' | null {
  const found = renewable(ctx, key, hold, now);
  if (found === undefined) return null;
  const { before } = found;
  const late =
    (before.expires_at ?? now) < now ||
    before.lost_generation === before.generation ||
    (before.vouched_at ?? null) !== null;
  return late ? 'late' : applyRenewal(ctx, found, leaseMs, now);
}

interface Renewable {
  where: string;
  args: readonly [string, string, number, string, number];
  before: Pick<LeaseRow, 'expires_at' | 'generation' | 'lost_generation' | 'vouched_at'>;
}

function renewable(ctx: WritableDB, key: LeaseKey, hold: LeaseHold, now: number): Renewable | undefined {
  const { column, value } = keyOf(key);
  const where = `${column} = ? AND token_hash = ? AND generation = ? AND owner_type = ?
         AND (expires_at > ? OR owner_gone_at IS NULL)`;
  const args = [value, hashToken(hold.token), hold.generation, hold.ownerType, now] as const;
  const before = ctx
    .prep(`SELECT expires_at, generation, lost_generation, vouched_at FROM leases WHERE ${where}`)
    .get(...args) as Renewable['before'] | undefined;
  return before === undefined ? undefined : { where, args, before };
}

function applyRenewal(ctx: WritableDB, found: Renewable, leaseMs: number, now: number): RenewedLease {
  const { where, args, before } = found;
  ctx
    .prep(
      `UPDATE leases SET heartbeat_at = ?, expires_at = ?, vouched_at = NULL,
         lost_generation = CASE WHEN expires_at <= ? THEN NULL ELSE lost_generation END
       WHERE ${where}`,
    )
    .run(now, now + leaseMs, now, ...args);
  return {
    expiresAt: now + leaseMs,
    previousExpiresAt: before.expires_at ?? now,
    wasLost: before.lost_generation === before.generation,
    wasVouched: (before.vouched_at ?? null) !== null,
  };
}

/**
 * The sweeper's verdict on one lease: if it is still generation `generation`, owned, not yet recorded lost,
 * and its run is not finished, it expires now (if it had not already) and records that generation as lost.
 * Returns the owner and the new expiry, or undefined when nothing matched.
 */
export function markLeaseLost(
  ctx: WritableDB,
  runId: string,
  generation: number,
  now: number,
  opts: { verifiedGone?: boolean } = {},
): { owner_id: string; owner_pid: number; expires_at: number } | undefined {
  // Verified gone (its process vanished), not just late by the clock: its lapsed lease must never renew.
  const gone = opts.verifiedGone === true ? `, owner_gone_at = @now` : '';
  return ctx
    .prep(
      `UPDATE leases SET expires_at = MIN(expires_at, @now), lost_generation = generation${gone}
       WHERE run_id = @runId AND generation = @generation AND owner_type IS NOT NULL
         AND (lost_generation IS NULL OR lost_generation != generation)
         AND EXISTS (SELECT 1 FROM runs r WHERE r.id = @runId AND r.status NOT IN ${TERMINAL_RUN_SQL})
       RETURNING owner_id, owner_pid, expires_at`,
    )
    .get({ now, runId, generation }) as
    { owner_id: string; owner_pid: number; expires_at: number } | undefined;
}

/**
 * `markLeaseLost` for a lease already past its expiry (the sweeper's verdict by the clock): records that
 * generation as lost and leaves `expires_at` out of the SET — naming it would rewrite the lease's three
 * expiry indexes for a value that does not change. A lease renewed since it was listed no longer matches.
 */
export function markExpiredLeaseLost(
  ctx: WritableDB,
  runId: string,
  generation: number,
  now: number,
): { owner_id: string; owner_pid: number; expires_at: number } | undefined {
  return ctx
    .prep(
      `UPDATE leases SET lost_generation = generation
       WHERE run_id = @runId AND generation = @generation AND owner_type IS NOT NULL AND expires_at <= @now
         AND (lost_generation IS NULL OR lost_generation != generation)
         AND EXISTS (SELECT 1 FROM runs r WHERE r.id = @runId AND r.status NOT IN ${TERMINAL_RUN_SQL})
       RETURNING owner_id, owner_pid, expires_at`,
    )
    .get({ now, runId, generation }) as
    { owner_id: string; owner_pid: number; expires_at: number } | undefined;
}

/** The liveness columns of migration 0006, cleared whenever a lease changes hands (docs/LIVENESS.md). */
const CLEAR_COMMAND = `command_pid = NULL, command_pgid = NULL, command_start_id = NULL, vouched_at = NULL,
         orphaned_at = NULL, owner_gone_at = NULL`;

const CLEAR = `owner_type = NULL, owner_id = NULL, token_hash = NULL, owner_pid = NULL, owner_hostname = NULL,
         owner_start_id = NULL, acquired_at = NULL, heartbeat_at = NULL, expires_at = NULL, owner_boot_id = NULL,
         owner_pid_ns = NULL, ${CLEAR_COMMAND}`;

/** Clears a run lease's owner (generation unchanged: the next claim bumps it). */
export function clearLease(ctx: WritableDB, runId: string): void {
  ctx.prep(`UPDATE leases SET ${CLEAR} WHERE run_id = ?`).run(runId);
}

/** Clears the owner of the lease `key` only if `hold` still matches it. True when it did. */
export function clearHeldLease(ctx: WritableDB, key: LeaseKey, hold: Omit<LeaseHold, 'ownerType'>): boolean {
  const { column, value } = keyOf(key);
  return (
    ctx
      .prep(`UPDATE leases SET ${CLEAR} WHERE ${column} = ? AND token_hash = ? AND generation = ?`)
      .run(value, hashToken(hold.token), hold.generation).changes === 1
  );
}
