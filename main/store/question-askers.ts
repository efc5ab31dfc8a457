/**
 * A question lives only while someone waits for it, and only a person outside the run answers it
 * (docs/LIVENESS.md#questions-and-their-askers). A question may record the process that asked it; when
 * that process is interrupted, or verifiably gone (the same trust rule as every other pid: same host,
 * boot and pid namespace), the question is withdrawn — cancelled with provenance `asker_interrupted` or
 * `asker_gone` — and an answer to it is refused with NOBODY_WAITING. An answer whose caller is inside the
 * run that asked is refused with SELF_ANSWER and changes nothing.
 */
import { OPEN_INTERACTION_STATUSES, type Actor, type Lease } from '../../shared/domain';
import { AGENT_SESSION_ORIGIN, type Verdict } from '../../shared/display-status';
import { RunwardenError } from '../../shared/errors';
import { resumeWaitingAttempts } from './attempt-rows';
import {
  countOpenInteractions,
  goneAskerQuestions,
  loadInteractionRow,
  waitingDetail,
} from './interaction-rows';
import { pidsTrusted, processTrusted } from './liveness';
import { resolveQuestionNotifications } from './notification-subjects';
import type { AncestorProcess } from './process-identity';
import { toInteraction, toLease, type InteractionRow } from './row-mapping';
import { setRunStatus } from './run-rows';
import {
  actorOf,
  commitRun,
  fence,
  loadLeaseRow,
  loadQueueRow,
  loadRunRow,
  runnerSurface,
  type ClaimRef,
} from './run-state';
import type { ReadableDB, WritableDB } from './store-context';

/** Why a question was withdrawn; the interaction's provenance says the same. */
export type Withdrawal = 'asker_interrupted' | 'asker_gone';

/** The process that asked a question and waits for its answer, and the machine it runs on. */
export interface AskerIdentity {
  pid: number;
  startId: string | null;
  hostname: string;
  bootId: string | null;
  pidNs: string | null;
}

/** Who is answering, as far as telling "inside the run" needs it. */
export interface CallerIdentity {
  /** RUNWARDEN_RUN_ID in the caller's environment; null outside every run. */
  runId: string | null;
  /** The caller's process and its ancestors, nearest first, read on this machine (empty when unknown). */
  ancestry: readonly AncestorProcess[];
  /** The desktop host or the browser server, answering for a person in its window. */
  host?: true;
  /** A caller the check cannot place at all, and why: its answer is accepted and recorded unchecked. */
  unchecked?: string;
}

/** A caller known to be outside every run: the desktop host or the browser server answering for a person. */
export const OUTSIDE_EVERY_RUN: CallerIdentity = { runId: null, ancestry: [], host: true };

/**
 * A `runwarden serve` API client with the Bearer token: a program, not the browser's person, and nothing
 * says which process it is — it may run inside the run (docs/LIVENESS.md#what-cannot-be-told).
 */
export const API_CLIENT_CALLER: CallerIdentity = {
  runId: null,
  ancestry: [],
  unchecked:
    'given through the runwarden serve API with its Bearer token, by a program the check cannot place',
};

/** Checks an asker given to `requestInteraction` (VALIDATION when malformed). */
export function checkAsker(asker: unknown): AskerIdentity {
  const a = asker as Partial<AskerIdentity> | null;
  const optional = (v: unknown): boolean => v === null || typeof v === 'string';
  if (
    a === null ||
    typeof a !== 'object' ||
    !Number.isInteger(a.pid) ||
    (a.pid as number) <= 0 ||
    typeof a.hostname !== 'string' ||
    !optional(a.startId) ||
    !optional(a.bootId) ||
    !optional(a.pidNs)
  ) {
    throw new RunwardenError(
      'VALIDATION',
      'asker must be {pid, startId, hostname, bootId, pidNs} with a positive integer pid.',
    );
  }
  return {
    pid: a.pid as number,
    startId: a.startId ?? null,
    hostname: a.hostname,
    bootId: a.bootId ?? null,
    pidNs: a.pidNs ?? null,
  };
}

/** Alive, gone, or unknown (none recorded, or its pid means nothing on this machine). */
export function askerVerdict(ctx: ReadableDB, row: InteractionRow): Verdict {
  if (row.asker_pid === null) return 'unknown';
  return ctx.liveness.judgeProcess({
    pid: row.asker_pid,
    startId: row.asker_start_id,
    hostname: row.asker_hostname,
    bootId: row.asker_boot_id,
    pidNs: row.asker_pid_ns,
  });
}

/**
 * Withdraws one open question in the caller's transaction: cancelled (revision+1, presenter claim
 * dropped) with `withdrawal` as its provenance, the run's "Waiting for an answer" line cleared, and a run
 * left with no open question back to running (unless a park holds it), with an `interaction.withdrawn`
 * event. False, and nothing written, when the question was no longer open.
 */
export function withdrawInteraction(
  ctx: WritableDB,
  interactionId: string,
  withdrawal: Withdrawal,
  actor: Actor,
  now: number,
): boolean {
  if (withdrawal !== 'asker_interrupted' && withdrawal !== 'asker_gone') {
    throw new RunwardenError('VALIDATION', 'A withdrawal is asker_interrupted or asker_gone.');
  }
  const row = loadInteractionRow(ctx, interactionId);
  if (!OPEN_INTERACTION_STATUSES.includes(row.status)) return false;
  ctx
    .prep(
      `UPDATE interactions SET status = 'cancelled', withdrawal = ?, revision = revision + 1, settled_at = ?,
         presenter_id = NULL, presenter_expires_at = NULL WHERE id = ?`,
    )
    .run(withdrawal, now, row.id);
  resolveQuestionNotifications(ctx, [row.id], now);
  ctx
    .prep(`UPDATE runs SET status_detail = NULL WHERE id = ? AND status_detail = ?`)
    .run(row.run_id, waitingDetail(row.title));
  const run = loadRunRow(ctx, row.run_id);
  if (
    run.status === 'waiting' &&
    countOpenInteractions(ctx, row.run_id) === 0 &&
    loadQueueRow(ctx, row.run_id).status !== 'parked'
  ) {
    // Nobody waits for an answer any more: the run goes on (or its runner's liveness says it cannot).
    resumeWaitingAttempts(ctx, row.run_id);
    setRunStatus(ctx, row.run_id, 'running');
  }
  commitRun(ctx, row.run_id, now, {
    type: 'interaction.withdrawn',
    actor: actorOf(actor),
    payload: { interactionId: row.id, provenance: withdrawal },
  });
  return true;
}

/**
 * The supervisor's own look, each second while its command runs: its run's open questions whose asker is
 * verifiably gone are withdrawn (`asker_gone`) at once, not when the run ends or a sweeper passes. Ids.
 */
export function withdrawGoneAskersOfRun(ctx: WritableDB, claim: ClaimRef, now: number): string[] {
  const lease = fence(ctx, claim, now);
  const actor: Actor = {
    type: 'runner',
    id: lease.owner_id ?? claim.runId,
    surface: runnerSurface(claim.surface),
  };
  return goneAskerQuestions(ctx, claim.runId).filter((id) =>
    withdrawInteraction(ctx, id, 'asker_gone', actor, now),
  );
}

/** Open questions with a recorded asker, oldest first: the few the sweeper looks at. */
export function askedOpenInteractions(ctx: ReadableDB): InteractionRow[] {
  return ctx
    .prep(
      `SELECT * FROM interactions INDEXED BY interactions_asked
       WHERE asker_pid IS NOT NULL AND status IN ('pending', 'presenting') ORDER BY created_at`,
    )
    .all() as InteractionRow[];
}

/**
 * The sweeper's step: withdraws (as `asker_gone`) up to `limit` open questions whose asker is verifiably
 * gone, in the caller's transaction. Returns how many.
 */
export function withdrawGoneAskers(ctx: WritableDB, limit: number, actor: Actor, now: number): number {
  let withdrawn = 0;
  for (const row of askedOpenInteractions(ctx)) {
    if (withdrawn >= limit) break;
    if (askerVerdict(ctx, row) !== 'gone') continue;
    if (withdrawInteraction(ctx, row.id, 'asker_gone', actor, now)) withdrawn += 1;
  }
  return withdrawn;
}

/**
 * A coding agent's session whose agent process is verifiably gone (docs/AGENTS.md#died): its hook may still
 * wait (Codex's daemon outlives the terminal), but nobody is in the session to act on an answer.
 */
function agentSessionGone(ctx: WritableDB, runId: string): boolean {
  const run = loadRunRow(ctx, runId);
  if (!(run.origin_session ?? '').startsWith(AGENT_SESSION_ORIGIN)) return false;
  const lease = loadLeaseRow(ctx, runId);
  return lease.owner_type === 'runner' && ctx.liveness.judge(toLease(lease)).supervisor === 'gone';
}

/**
 * An answer nobody would read: the question was withdrawn, or its asker is verifiably gone (then it is
 * withdrawn here, in the answer's transaction). Null when someone may still be waiting.
 */
export function nobodyWaitingRefusal(
  ctx: WritableDB,
  row: InteractionRow,
  actor: Actor,
  now: number,
): RunwardenError | null {
  let withdrawal = row.withdrawal;
  let sessionGone = false;
  if (withdrawal === null && OPEN_INTERACTION_STATUSES.includes(row.status)) {
    sessionGone = agentSessionGone(ctx, row.run_id);
    if (sessionGone || askerVerdict(ctx, row) === 'gone') {
      withdrawInteraction(ctx, row.id, 'asker_gone', actor, now);
      withdrawal = 'asker_gone';
    }
  }
  if (withdrawal === null) return null;
  const why = sessionGone
    ? "the agent's session it belongs to is gone"
    : withdrawal === 'asker_interrupted'
      ? 'the process that asked it was interrupted'
      : 'the process that asked it is gone';
  return new RunwardenError(
    'NOBODY_WAITING',
    `Nobody is waiting for an answer to "${row.title}" any more: ${why}, so the question was withdrawn. Your answer was not recorded.`,
    { fresh: toInteraction(loadInteractionRow(ctx, row.id)) },
  );
}

/**
 * Whether an answer came from inside the run that asked (docs/LIVENESS.md#only-a-person-outside-the-run-answers):
 * `refusal` (SELF_ANSWER) when the caller's RUNWARDEN_RUN_ID names the run, or one of its ancestors is the
 * run's supervisor, its command, or a process that asked (compared by pid and start identity, only when
 * those pids mean something on this machine). `unchecked` says why the ancestry could not settle it for a
 * process outside by it: the supervisor did not keep its processes below it (no child subreaper), is gone,
 * or runs elsewhere, or the caller's ancestry could not be read. Null for the host, which answers for a person.
 */
export function checkCaller(
  ctx: WritableDB,
  row: InteractionRow,
  caller: CallerIdentity,
): { refusal: RunwardenError | null; unchecked: string | null } {
  const refuse = (how: string): RunwardenError =>
    new RunwardenError(
      'SELF_ANSWER',
      `Only a person outside run ${row.run_id} can answer "${row.title}": this answer came from inside the run (${how}). Nothing was changed.`,
    );
  if (caller.runId !== null && caller.runId === row.run_id) {
    return { refusal: refuse(`its RUNWARDEN_RUN_ID is ${row.run_id}`), unchecked: null };
  }
  if (caller.unchecked !== undefined) return { refusal: null, unchecked: caller.unchecked };
  if (caller.host === true) return { refusal: null, unchecked: null };
  const lease = toLease(loadLeaseRow(ctx, row.run_id));
  const supervised = lease.ownerType === 'runner' && lease.ownerPid !== null;
  const trusted = supervised && pidsTrusted(lease, ctx.liveness.here);
  const recorded = recordedProcesses(ctx, row.run_id, trusted ? lease : null);
  const inside = caller.ancestry.find((a) =>
    recorded.some(
      (r) => r.pid === a.pid && (r.startId === null || a.startId === null || r.startId === a.startId),
    ),
  );
  if (inside !== undefined) {
    return { refusal: refuse(`it was started by process ${inside.pid} of the run`), unchecked: null };
  }
  return { refusal: null, unchecked: whyUnchecked(ctx, lease, supervised, trusted, caller) };
}

/** The run's supervisor and command (when trusted here) and every process that asked one of its questions. */
function recordedProcesses(ctx: WritableDB, runId: string, lease: Lease | null): AncestorProcess[] {
  const recorded: AncestorProcess[] = [];
  if (lease !== null && lease.ownerPid !== null) {
    recorded.push({ pid: lease.ownerPid, startId: lease.ownerStartId });
    if (lease.commandPid !== null && lease.commandPid !== undefined) {
      recorded.push({ pid: lease.commandPid, startId: lease.commandStartId ?? null });
    }
  }
  const askers = ctx
    .prep(`SELECT * FROM interactions WHERE run_id = ? AND asker_pid IS NOT NULL`)
    .all(runId) as InteractionRow[];
  for (const asker of askers) {
    const asked = {
      pid: asker.asker_pid as number,
      startId: asker.asker_start_id,
      hostname: asker.asker_hostname,
      bootId: asker.asker_boot_id,
      pidNs: asker.asker_pid_ns,
    };
    if (processTrusted(asked, ctx.liveness.here)) recorded.push({ pid: asked.pid, startId: asked.startId });
  }
  return recorded;
}

/** Why a caller not found inside the run may still be one of its processes; null when the check holds. */
function whyUnchecked(
  ctx: WritableDB,
  lease: Lease,
  supervised: boolean,
  trusted: boolean,
  caller: CallerIdentity,
): string | null {
  if (caller.ancestry.length === 0) return "the caller's process ancestry could not be read here";
  // Nobody holds the run: no process of it is running, so none can be answering.
  if (lease.ownerType === null) return null;
  if (!supervised) return `the run is held by a ${lease.ownerType}, not a supervisor keeping its processes`;
  if (!trusted) return "the run's supervisor runs on another machine, boot or pid namespace";
  if (ctx.liveness.judge(lease).supervisor !== 'alive') {
    return "the run's supervisor is gone, so its processes are no longer kept below it";
  }
  const started = ctx
    .prep(
      `SELECT payload_json FROM events WHERE run_id = ? AND type = 'run.command_started' AND lease_generation = ?
       ORDER BY seq DESC LIMIT 1`,
    )
    .get(lease.runId, lease.generation) as { payload_json: string } | undefined;
  if (started === undefined) return "the run's supervisor has not recorded its command";
  const payload = JSON.parse(started.payload_json) as { containment?: { subreaper: boolean; why?: string } };
  if (payload.containment === undefined)
    return "the run's supervisor did not say whether it keeps its processes";
  return payload.containment.subreaper
    ? null
    : `the run's supervisor is not a child subreaper: ${payload.containment.why ?? 'unknown'}`;
}
