/**
 * When the attention summary next changes by the clock alone, with no commit: the soonest live owner's lease
 * to run out (its run turns stale) or queued run to become unattended. The host refreshes the summary then,
 * instead of on a fixed period (docs/ARCHITECTURE.md#change-feed). Two index seeks.
 */
import { timeParams } from './run-views';
import type { ReadableDB } from './store-context';

export function nextAttentionChangeAt(ctx: ReadableDB, now: number): number | null {
  const { unattendedBefore } = timeParams(ctx, now);
  const row = ctx
    .prep(
      `SELECT (SELECT min(owner_expires_at) FROM runs
                WHERE owner_expires_at IS NOT NULL AND owner_expires_at > ?) AS expiry,
              (SELECT min(unattended_since) FROM runs
                WHERE unattended_since IS NOT NULL AND unattended_since > ?) AS queued`,
    )
    .get(now, unattendedBefore) as { expiry: number | null; queued: number | null };
  const candidates: number[] = [];
  // Stale from the moment the expiry is reached (owner_expires_at <= now), unattended once it has waited
  // unattendedQueueMs (unattended_since <= now - unattendedQueueMs).
  if (row.expiry !== null) candidates.push(row.expiry);
  if (row.queued !== null) candidates.push(row.queued + (now - unattendedBefore));
  return candidates.length === 0 ? null : Math.min(...candidates);
}
