/**
 * Runs started inside a run (docs/LIVENESS.md#nested-runs): a person's cancel of a run reaches the runs
 * started inside it, at any depth, as a cancel *request* — each live one's supervisor stops its command at
 * its next heartbeat and ends its run cancelled; nothing is cancelled by force over a runner's head.
 */
import { isTerminalRunStatus, type Actor } from '../../shared/domain';
import { hasLiveOwner } from '../../shared/display-status';
import { pidsTrusted } from './liveness';
import type { AncestorProcess } from './process-identity';
import { TERMINAL_RUN_SQL, toLease, type LeaseRow } from './row-mapping';
import { liveDescendants } from './run-lineage';
import { setRequestFlag } from './run-rows';
import { actorOf, commitRun, findRunRow, loadLeaseRow, loadRunRow } from './run-state';
import type { ReadableDB, WritableDB } from './store-context';

/** Who is starting a run, as far as telling which run it is nested in needs it. */
export interface NestingCaller {
  /** RUNWARDEN_RUN_ID in its environment; null when not set. */
  runId: string | null;
  /** The process and its ancestors, nearest first, read on this machine (empty when unknown). */
  ancestry: readonly AncestorProcess[];
}

/**
 * The run a new run is started inside: the one the caller's environment names, when it is in this store
 * and has not ended; else — the environment cleared (`env -i`) or a stale one — the run whose live
 * supervisor or command is the caller's nearest ancestor (pid and start identity, pids trusted here).
 * Null outside every run.
 */
export function enclosingRunOfCaller(ctx: ReadableDB, caller: NestingCaller): string | null {
  if (caller.runId !== null) {
    const row = findRunRow(ctx, caller.runId);
    if (row !== undefined && !isTerminalRunStatus(row.status)) return row.id;
  }
  if (caller.ancestry.length === 0) return null;
  const leases = (
    ctx
      .prep(
        `SELECT l.* FROM leases l JOIN runs r ON r.id = l.run_id
         WHERE l.owner_type IS NOT NULL AND l.run_id IS NOT NULL AND l.owner_hostname = ?
           AND r.status NOT IN ${TERMINAL_RUN_SQL}`,
      )
      .all(ctx.liveness.here.hostname) as LeaseRow[]
  )
    .map(toLease)
    .filter((lease) => lease.ownerType === 'runner' && pidsTrusted(lease, ctx.liveness.here));
  const same = (pid: number | null | undefined, startId: string | null | undefined, a: AncestorProcess) =>
    pid === a.pid &&
    (startId === null || startId === undefined || a.startId === null || startId === a.startId);
  for (const ancestor of caller.ancestry) {
    const found = leases.find(
      (lease) =>
        same(lease.ownerPid, lease.ownerStartId, ancestor) ||
        same(lease.commandPid, lease.commandStartId, ancestor),
    );
    if (found !== undefined) return found.runId ?? null;
  }
  return null;
}

/**
 * A run claimed by a process that runs inside another run (a `worker` inside an `exec`, an `exec --key`
 * taking its queued retry) becomes that run's child, like a run `exec` starts there: its effects join the
 * family (docs/LIVENESS.md#nested-runs). Only a run not already nested elsewhere, inside a run that has not
 * ended and that is not itself inside the claimed run. True when the link was written.
 */
export function adoptIntoEnclosingRun(
  ctx: WritableDB,
  runId: string,
  enclosingRunId: string | null | undefined,
): boolean {
  if (enclosingRunId === null || enclosingRunId === undefined || enclosingRunId === runId) return false;
  const row = loadRunRow(ctx, runId);
  if (row.enclosing_run_id !== null && row.enclosing_run_id !== undefined) return false;
  const outer = findRunRow(ctx, enclosingRunId);
  if (outer === undefined || isTerminalRunStatus(outer.status)) return false;
  const cycle = ctx
    .prep(
      `WITH RECURSIVE up(id) AS (
         SELECT @outer
         UNION
         SELECT r.enclosing_run_id FROM runs r JOIN up ON r.id = up.id WHERE r.enclosing_run_id IS NOT NULL
       )
       SELECT 1 FROM up WHERE id = @runId`,
    )
    .get({ outer: enclosingRunId, runId });
  if (cycle !== undefined) return false;
  ctx.prep(`UPDATE runs SET enclosing_run_id = ? WHERE id = ?`).run(enclosingRunId, runId);
  return true;
}

/**
 * Asks every run started inside `runId` that has not ended to cancel, with an event on each naming the
 * run the cancel came from. Returns the ids asked (those already asked are left as they are).
 */
export function requestCancelOfChildren(
  ctx: WritableDB,
  runId: string,
  reason: string,
  actor: Actor,
  now: number,
): string[] {
  const asked: string[] = [];
  for (const id of liveDescendants(ctx, runId)) {
    if (loadRunRow(ctx, id).cancel_requested === 1) continue;
    setRequestFlag(ctx, id, 'cancel_requested');
    const lease = toLease(loadLeaseRow(ctx, id));
    commitRun(ctx, id, now, {
      type: 'run.cancel_requested',
      actor: actorOf(actor),
      payload: {
        reason: `Run ${runId}, which this run was started inside, was cancelled: ${reason}`,
        liveOwner: hasLiveOwner(lease, now, ctx.liveness.judge(lease)),
        fromRunId: runId,
      },
    });
    asked.push(id);
  }
  return asked;
}
