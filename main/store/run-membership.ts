/**
 * Whether a process belongs to a run (docs/LIVENESS.md#unknown-outcomes): its ancestry, read on this
 * machine, reaches the run's supervisor, its command, or a process recorded as performing one of its
 * effects — compared by pid and start identity, and only where those pids mean something here.
 */
import { pidsTrusted, processTrusted, type RecordedProcess } from './liveness';
import type { AncestorProcess } from './process-identity';
import { toLease } from './row-mapping';
import { loadLeaseRow } from './run-state';
import type { WritableDB } from './store-context';

/** The processes a caller of the run descends from, as far as this machine can tell. */
function runProcesses(ctx: WritableDB, runId: string): AncestorProcess[] {
  const recorded: AncestorProcess[] = [];
  const lease = toLease(loadLeaseRow(ctx, runId));
  if (lease.ownerType === 'runner' && lease.ownerPid !== null && pidsTrusted(lease, ctx.liveness.here)) {
    recorded.push({ pid: lease.ownerPid, startId: lease.ownerStartId });
    if (lease.commandPid !== null && lease.commandPid !== undefined) {
      recorded.push({ pid: lease.commandPid, startId: lease.commandStartId ?? null });
    }
  }
  const performers = ctx
    .prep(
      `SELECT process_pid AS pid, process_start_id AS startId, process_hostname AS hostname,
         process_boot_id AS bootId, process_pid_ns AS pidNs
       FROM effects WHERE run_id = ? AND status = 'applying' AND process_pid IS NOT NULL`,
    )
    .all(runId) as RecordedProcess[];
  for (const performer of performers) {
    if (processTrusted(performer, ctx.liveness.here))
      recorded.push({ pid: performer.pid, startId: performer.startId });
  }
  return recorded;
}

/**
 * Null when the caller is of the run, or nothing here can tell (no ancestry read, pids not trusted: the
 * claim in its environment then stands alone); otherwise the sentence saying why it is not.
 */
export function outsideRun(
  ctx: WritableDB,
  runId: string,
  ancestry: readonly AncestorProcess[],
): string | null {
  if (ancestry.length === 0) return null;
  const recorded = runProcesses(ctx, runId);
  if (recorded.length === 0) return null;
  const inside = ancestry.some((a) =>
    recorded.some(
      (r) => r.pid === a.pid && (r.startId === null || a.startId === null || r.startId === a.startId),
    ),
  );
  if (inside) return null;
  return `process ${ancestry[0]?.pid ?? '?'} carries run ${runId}'s claim in its environment, but it was not started by the run's supervisor (pid ${recorded[0]?.pid ?? '?'}) nor by its command`;
}
