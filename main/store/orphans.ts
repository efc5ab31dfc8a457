/**
 * What the liveness check's verdicts change in the store (docs/LIVENESS.md): a host vouching for an owner
 * that is alive past its lease, a run whose supervisor died while its command lives (orphaned), that command
 * verified gone, and a person's *Stop the command* — each in the caller's one transaction.
 */
import type { Actor } from '../../shared/domain';
import { hasLiveOwner, isOrphaned } from '../../shared/display-status';
import { RunwardenError } from '../../shared/errors';
import { requireReason } from './input-checks';
import { TERMINAL_RUN_SQL, toLease, type LeaseRow } from './row-mapping';
import {
  actorOf,
  checkRevision,
  commitRun,
  loadLeaseRow,
  loadRunRow,
  loadSnapshot,
  refuseTerminal,
} from './run-state';
import type { CommandIdentity } from './store-types';
import type { ReadableDB, WritableDB } from './store-context';

/**
 * Keeps owners a host verified alive live for `forMs` more, past a lapsed lease (a suspend, a clock step):
 * nobody may cancel or claim them meanwhile, and the views keep them running. No event, no revision (like
 * a heartbeat); the owner's own next heartbeat records that it came back late.
 */
export function vouchForOwners(
  ctx: WritableDB,
  leases: ReadonlyArray<{ runId: string; generation: number }>,
  forMs: number,
  now: number,
): number {
  const until = now + forMs;
  const vouch = ctx.prep(
    `UPDATE leases SET expires_at = @until, vouched_at = COALESCE(vouched_at, @now)
     WHERE run_id = @runId AND generation = @generation AND owner_type IS NOT NULL AND owner_gone_at IS NULL
       AND expires_at < @until`,
  );
  const view = ctx.prep(`UPDATE runs SET owner_expires_at = @until WHERE id = @runId`);
  let vouched = 0;
  for (const lease of leases) {
    if (vouch.run({ until, now, runId: lease.runId, generation: lease.generation }).changes === 0) continue;
    view.run({ until, runId: lease.runId });
    vouched += 1;
  }
  return vouched;
}

/**
 * The supervisor is verifiably gone and a process of its command lives: the run becomes `orphaned` (under
 * Needs you, never "stale, safe to cancel") until the command is stopped or ends. True when it wrote.
 */
export function markOrphaned(
  ctx: WritableDB,
  runId: string,
  generation: number,
  actor: Actor,
  now: number,
): boolean {
  const lease = ctx
    .prep(
      `SELECT l.* FROM leases l JOIN runs r ON r.id = l.run_id
       WHERE l.run_id = ? AND l.generation = ? AND l.owner_type IS NOT NULL AND l.orphaned_at IS NULL
         AND r.status NOT IN ${TERMINAL_RUN_SQL}`,
    )
    .get(runId, generation) as LeaseRow | undefined;
  if (lease === undefined) return false;
  ctx
    .prep(
      `UPDATE leases SET orphaned_at = ?, owner_gone_at = ?, lost_generation = generation,
         expires_at = MIN(expires_at, ?)
       WHERE run_id = ?`,
    )
    .run(now, now, now, runId);
  commitRun(ctx, runId, now, {
    type: 'run.orphaned',
    actor: actorOf(actor),
    leaseGeneration: generation,
    payload: {
      ownerId: lease.owner_id,
      pid: lease.owner_pid,
      commandPid: lease.command_pid ?? null,
      commandPgid: lease.command_pgid ?? null,
    },
  });
  return true;
}

/** An orphan's command is verifiably gone (it ended, or was stopped): the run is plain stale from now on. */
export function markCommandGone(
  ctx: WritableDB,
  runId: string,
  generation: number,
  actor: Actor,
  now: number,
  payload: Record<string, unknown> = {},
  type: 'run.command_gone' | 'run.command_stopped' = 'run.command_gone',
): boolean {
  const changed = ctx
    .prep(
      `UPDATE leases SET orphaned_at = NULL, command_pid = NULL, command_pgid = NULL, command_start_id = NULL,
         owner_gone_at = COALESCE(owner_gone_at, ?), expires_at = MIN(expires_at, ?)
       WHERE run_id = ? AND generation = ? AND owner_type IS NOT NULL AND orphaned_at IS NOT NULL`,
    )
    .run(now, now, runId, generation).changes;
  if (changed === 0) return false;
  commitRun(ctx, runId, now, { type, actor: actorOf(actor), leaseGeneration: generation, payload });
  return true;
}

/** Orphaned runs, oldest first: the sweeper checks whether their command has ended. */
export function listOrphans(
  ctx: ReadableDB,
  limit: number,
): Array<{ runId: string; generation: number; lease: ReturnType<typeof toLease> }> {
  return (
    ctx
      .prep(`SELECT * FROM leases WHERE orphaned_at IS NOT NULL ORDER BY orphaned_at LIMIT ?`)
      .all(limit) as LeaseRow[]
  ).map((row) => ({ runId: row.run_id as string, generation: row.generation, lease: toLease(row) }));
}

export interface StopCommandInput {
  expectedRevision?: number;
  reason: string;
  actor: Actor;
}

/**
 * A person's *Stop the command*, first half (docs/LIVENESS.md#orphans): checks, in the transaction, that the
 * run's supervisor is not live and that a process of its command lives here, and records the request with
 * actor, surface and reason. Returns what to signal; the caller signals the group and then calls
 * `finishStopCommand` with what it saw.
 */
export function beginStopCommand(
  ctx: WritableDB,
  runId: string,
  input: StopCommandInput,
  now: number,
): { generation: number; command: CommandIdentity } {
  requireReason(input.reason);
  const row = loadRunRow(ctx, runId);
  checkRevision(ctx, row, input.expectedRevision);
  refuseTerminal(ctx, row, 'stop the command of');
  const leaseRow = loadLeaseRow(ctx, runId);
  const lease = toLease(leaseRow);
  const liveness = ctx.liveness.judge(lease);
  if (hasLiveOwner(lease, now, liveness)) {
    throw new RunwardenError(
      'LIVE_OWNER',
      `Run ${runId} still has a live runner (${lease.ownerId ?? 'unknown'}); ask it to stop ("cancel --request") and it stops its command itself.`,
      { recovery: { kind: 'requestCancel', runId }, fresh: loadSnapshot(ctx, runId) },
    );
  }
  const pid = lease.commandPid ?? null;
  if (pid === null || liveness.command !== 'alive' || !isOrphaned(lease, liveness)) {
    const why =
      pid === null
        ? 'no command was recorded for it'
        : liveness.command === 'unknown'
          ? 'its command runs on another machine, boot or pid namespace, where this one cannot see or signal it'
          : 'no process of its command is alive';
    throw new RunwardenError('CONFLICT', `Cannot stop the command of run ${runId}: ${why}.`, {
      fresh: loadSnapshot(ctx, runId),
    });
  }
  commitRun(ctx, runId, now, {
    type: 'run.command_stop_requested',
    actor: actorOf(input.actor),
    leaseGeneration: leaseRow.generation,
    payload: { reason: input.reason, commandPid: pid, commandPgid: lease.commandPgid ?? null },
  });
  return {
    generation: leaseRow.generation,
    command: {
      pid,
      pgid: lease.commandPgid ?? null,
      startId: lease.commandStartId ?? null,
      // Without a group of its own, its processes are found by the run's marker (docs/LIVENESS.md#terminal-mode).
      ...((lease.commandPgid ?? null) === null ? { runId } : {}),
    },
  };
}

/**
 * Second half: records how the stop ended, as the same person's action. Verified gone → the run is stale
 * and can be cancelled; still alive → it stays orphaned and the event says so.
 */
export function finishStopCommand(
  ctx: WritableDB,
  runId: string,
  generation: number,
  outcome: { gone: boolean; signals: string[]; reason: string; actor: Actor },
  now: number,
): void {
  const payload = { reason: outcome.reason, signals: outcome.signals, gone: outcome.gone };
  if (
    outcome.gone &&
    markCommandGone(ctx, runId, generation, outcome.actor, now, payload, 'run.command_stopped')
  )
    return;
  commitRun(ctx, runId, now, {
    type: outcome.gone ? 'run.command_stopped' : 'run.command_stop_failed',
    actor: actorOf(outcome.actor),
    leaseGeneration: generation,
    payload,
  });
}
