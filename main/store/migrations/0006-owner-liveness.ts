/**
 * Schema v6: what the liveness check needs to trust a pid (docs/LIVENESS.md).
 * - Each lease owner's boot id and pid namespace: a pid is only meaningful on the same boot, in the same
 *   namespace. NULL (older rows, other platforms) means "unknown": only the lease clock counts.
 * - The owner's command: pid, process group and start identity, recorded by the runner once it started
 *   it, so the store can tell "the supervisor died but its command still runs" (orphaned).
 * - `vouched_at`: a host verified the owner alive after its lease lapsed (suspend, clock step) and kept
 *   it live; cleared by the owner's next heartbeat. `orphaned_at`: the supervisor is gone and a process
 *   of the command lives; cleared once the command is verified gone. `owner_gone_at`: the supervisor was
 *   verified gone, so its lapsed lease never renews (a merely lapsed one does: docs/LIVENESS.md#suspend-safe-renewal).
 * - `notified_seq` (host lease row only): the last event sequence an acting host turned into desktop
 *   notices, so a new acting host notifies what happened since, once (docs/LIVENESS.md#notifications).
 */
import type { Migration } from './migration';

export const migration0006: Migration = {
  version: 6,
  name: '0006-owner-liveness',
  sql: `
ALTER TABLE leases ADD COLUMN owner_boot_id TEXT;
ALTER TABLE leases ADD COLUMN owner_pid_ns TEXT;
ALTER TABLE leases ADD COLUMN command_pid INTEGER;
ALTER TABLE leases ADD COLUMN command_pgid INTEGER;
ALTER TABLE leases ADD COLUMN command_start_id TEXT;
ALTER TABLE leases ADD COLUMN vouched_at INTEGER;
ALTER TABLE leases ADD COLUMN orphaned_at INTEGER;
ALTER TABLE leases ADD COLUMN owner_gone_at INTEGER;
ALTER TABLE leases ADD COLUMN notified_seq INTEGER;
CREATE INDEX leases_orphaned ON leases(orphaned_at) WHERE orphaned_at IS NOT NULL;
`,
};
