/**
 * Coding-agent sessions as runs (docs/AGENTS.md#sessions-as-runs): one session of a coding agent is
 * one run, claimed under the agent's own process identity. Its hook calls are separate short processes, so
 * the claim is kept in `agent_sessions` (migration 0011) and each call is checked against the agent's
 * identity before it acts, then fenced like every runner write (docs/AGENTS.md#the-claim-of-a-session).
 * Every function here runs inside the caller's one write transaction and goes through the runner's own
 * transitions (`runner-transitions.ts`).
 */
import type { Actor, Interaction, Run } from '../../shared/domain';
import { isTerminalRunStatus } from '../../shared/domain';
import {
  AGENT_LABELS,
  AGENT_NAMES,
  AGENT_SESSION_ORIGIN,
  WAITING_FOR_PROMPT,
  goneSessionEnding,
  type AgentName,
} from '../../shared/agent-names';
import { RunwardenError } from '../../shared/errors';
import { isHeldByLiveOther } from './lease-rows';
import * as leases from './leases';
import { withdrawInteraction, type Withdrawal } from './question-askers';
import { OPEN_INTERACTION_SQL, toLease, toRun } from './row-mapping';
import { reserveRun } from './run-reservation';
import { fence, loadLeaseRow, loadRunRow } from './run-state';
import * as runner from './runner-transitions';
import type { ReadableDB, WritableDB } from './store-context';
import type { Claim, OwnerInfo, RequestInteractionInput } from './store-types';

export { AGENT_LABELS, AGENT_NAMES, WAITING_FOR_PROMPT, type AgentName };

/**
 * An agent session's lease: as long as a lease may be. Nothing heartbeats between hook calls (a session may
 * wait hours for its next prompt); the agent's process identity says whether it lives (docs/LIVENESS.md).
 */
export const AGENT_LEASE_MS = 86_400_000;

export interface AgentSessionInput {
  agent: AgentName;
  sessionId: string;
  projectPath: string;
  title: string;
  /** The agent's process (pid, start identity, machine): the run's owner. */
  owner: OwnerInfo;
}

export interface AgentSessionClaim {
  claim: Claim;
  run: Run;
  created: boolean;
}

interface SessionRow {
  run_id: string;
  generation: number;
  claim_token: string;
}

function sessionRow(ctx: ReadableDB, agent: AgentName, sessionId: string): SessionRow | undefined {
  return ctx
    .prep(`SELECT run_id, generation, claim_token FROM agent_sessions WHERE agent = ? AND session_id = ?`)
    .get(agent, sessionId) as SessionRow | undefined;
}

function claimOf(row: SessionRow, ownerId: string, expiresAt: number): Claim {
  return {
    runId: row.run_id,
    generation: row.generation,
    token: row.claim_token,
    expiresAt,
    ownerType: 'runner',
    ownerId,
    surface: 'cli',
  };
}

function checkInput(input: AgentSessionInput): void {
  if (!(AGENT_NAMES as readonly string[]).includes(input.agent)) {
    throw new RunwardenError('VALIDATION', `agent must be one of ${AGENT_NAMES.join(', ')}.`);
  }
  if (typeof input.sessionId !== 'string' || input.sessionId === '' || input.sessionId.length > 300) {
    throw new RunwardenError('VALIDATION', 'An agent session id must be 1 to 300 characters.');
  }
}

/**
 * The session's run, claimed under the agent's process: created on the session's first hook call; on later
 * calls its lease is renewed. A session whose run ended (a resumed session) or whose recorded agent process is
 * gone (the agent restarted) gets a new run; the gone one's run is recorded as died first. A session held by
 * another live agent process is refused (LIVE_OWNER): two processes never write one run.
 */
export function touchAgentSession(ctx: WritableDB, input: AgentSessionInput, now: number): AgentSessionClaim {
  checkInput(input);
  const row = sessionRow(ctx, input.agent, input.sessionId);
  if (row !== undefined) {
    const run = loadRunRow(ctx, row.run_id);
    if (!isTerminalRunStatus(run.status)) {
      const lease = loadLeaseRow(ctx, row.run_id);
      if (
        lease.owner_type === 'runner' &&
        lease.owner_id === input.owner.ownerId &&
        lease.generation === row.generation
      ) {
        const claim = claimOf(row, input.owner.ownerId, lease.expires_at ?? now);
        const renewed = leases.heartbeat(ctx, claim, AGENT_LEASE_MS, now);
        if (renewed.ok) {
          return {
            claim: { ...claim, expiresAt: renewed.expiresAt ?? claim.expiresAt },
            run: toRun(run),
            created: false,
          };
        }
      } else if (isHeldByLiveOther(ctx, lease, input.owner, now)) {
        throw new RunwardenError(
          'LIVE_OWNER',
          `${AGENT_LABELS[input.agent]} session ${input.sessionId} is held by another live process (${lease.owner_id}).`,
        );
      }
      // The process this session was recorded under is gone: its run died with it.
      if (lease.owner_type === 'runner' && lease.generation === row.generation) {
        endAsDied(ctx, input.agent, claimOf(row, lease.owner_id ?? '', lease.expires_at ?? now), now);
      }
    }
  }
  const actor: Actor = { type: 'runner', id: input.owner.ownerId, surface: 'cli' };
  const reserved = reserveRun(
    ctx,
    {
      projectPath: input.projectPath,
      workflow: input.agent,
      title: input.title,
      executionMode: 'interactive',
      // What the window reads to offer no retry or cancel request (displayStatus, isAgentSessionRun).
      originSession: `${AGENT_SESSION_ORIGIN}${input.agent}`,
    },
    actor,
    now,
  );
  const { claim } = runner.claimRun(
    ctx,
    reserved.id,
    { ...input.owner, leaseMs: AGENT_LEASE_MS, surface: 'cli' },
    now,
  );
  const run = runner.markRunning(ctx, { ...claim, surface: 'cli' }, now);
  ctx
    .prep(
      `INSERT INTO agent_sessions (agent, session_id, run_id, generation, claim_token, created_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, session_id) DO UPDATE SET run_id = excluded.run_id,
         generation = excluded.generation, claim_token = excluded.claim_token, created_at = excluded.created_at`,
    )
    .run(input.agent, input.sessionId, reserved.id, claim.generation, claim.token, now);
  return { claim: { ...claim, surface: 'cli' }, run, created: true };
}

/** What the session is doing, shown under its title; written only when it changes. */
export function setAgentActivity(ctx: WritableDB, claim: Claim, detail: string, now: number): void {
  const run = loadRunRow(ctx, claim.runId);
  if (run.status_detail === detail) return;
  runner.setProgress(ctx, claim, detail, now);
}

/**
 * How long after a renewal a hook call that would change nothing else renews the lease again: the calls of
 * one turn come seconds apart, and a day-long lease loses at most this much by skipping them.
 */
export const AGENT_RENEWED_WITHIN_MS = 5 * 60_000;

/**
 * The session of a hook call that records nothing but maybe a renewal: its run still shows `detail` (any,
 * when null), no question is open, and the lease is this agent process's, of the session's generation.
 */
function quietSession(ctx: ReadableDB, input: AgentSessionInput, detail: string | null) {
  checkInput(input);
  const row = sessionRow(ctx, input.agent, input.sessionId);
  if (row === undefined) return null;
  const run = loadRunRow(ctx, row.run_id);
  if (isTerminalRunStatus(run.status) || run.open_interactions > 0) return null;
  if (detail !== null && run.status_detail !== detail) return null;
  const lease = loadLeaseRow(ctx, row.run_id);
  const ours =
    lease.owner_type === 'runner' &&
    lease.owner_id === input.owner.ownerId &&
    lease.generation === row.generation;
  return ours ? { row, run, lease } : null;
}

/**
 * A hook call that would change nothing at all (docs/AGENTS.md#the-claim-of-a-session): the run still shows
 * `detail` (any, when null), no question is open, the lease is this agent process's, on time and renewed
 * less than `AGENT_RENEWED_WITHIN_MS` ago. It writes nothing, so it needs no write lock and no token check:
 * the caller reads it in one read transaction. Null when there is anything to record, the renewal included.
 */
export function unchangedAgentSession(
  ctx: ReadableDB,
  input: AgentSessionInput,
  detail: string | null,
  now: number,
): AgentSessionClaim | null {
  const quiet = quietSession(ctx, input, detail);
  if (quiet === null) return null;
  const { row, run, lease } = quiet;
  const fresh =
    lease.lost_generation !== lease.generation &&
    (lease.vouched_at ?? null) === null &&
    lease.expires_at !== null &&
    lease.expires_at > now &&
    lease.heartbeat_at !== null &&
    lease.heartbeat_at <= now &&
    now - lease.heartbeat_at < AGENT_RENEWED_WITHIN_MS;
  if (!fresh) return null;
  return {
    claim: claimOf(row, input.owner.ownerId, lease.expires_at ?? now),
    run: toRun(run),
    created: false,
  };
}

/**
 * A hook call that changes nothing but the session's lease — the run still shows `detail` (any, when null),
 * no question is open — is an on-time renewal, like a runner's heartbeat: the caller commits it without an
 * fsync (docs/ARCHITECTURE.md#lease-renewals). Null when the call has more to record or the renewal is not
 * that simple (late, lost); the caller then takes the durable path (`touchAgentSession` and the step).
 */
export function renewAgentSessionOnTime(
  ctx: WritableDB,
  input: AgentSessionInput,
  detail: string | null,
  now: number,
): AgentSessionClaim | null {
  const quiet = quietSession(ctx, input, detail);
  if (quiet === null) return null;
  const { row, run, lease } = quiet;
  const claim = claimOf(row, input.owner.ownerId, lease.expires_at ?? now);
  const renewed = leases.heartbeatOnTime(ctx, claim, AGENT_LEASE_MS, now);
  if (renewed === null || !renewed.ok) return null;
  return {
    claim: { ...claim, expiresAt: renewed.expiresAt ?? claim.expiresAt },
    run: toRun(run),
    created: false,
  };
}

/** The agent asks a person: a question on the session's run (the run waits until it is settled or withdrawn). */
export function askAgentQuestion(
  ctx: WritableDB,
  claim: Claim,
  input: RequestInteractionInput,
  now: number,
): Interaction {
  return runner.requestInteraction(ctx, claim, input, now);
}

/**
 * Nobody waits in Runwarden for the session's open questions any more (docs/AGENTS.md#answered-in-the-terminal):
 * the person answered in the agent's own terminal (`asker_interrupted`: the agent stopped waiting for the
 * hook's answer), or the agent is gone (`asker_gone`). Each is withdrawn, the run works again. Returns the
 * ids withdrawn (none when nothing was open). `onlyTitle`: only the questions with that title (one tool call's,
 * when the agent asks about several at once).
 */
export function withdrawAgentQuestions(
  ctx: WritableDB,
  claim: Claim,
  withdrawal: Withdrawal,
  now: number,
  onlyTitle?: string,
): string[] {
  const run = loadRunRow(ctx, claim.runId);
  if (run.open_interactions === 0) return [];
  const lease = fence(ctx, claim, now);
  const actor: Actor = { type: 'runner', id: lease.owner_id ?? claim.ownerId, surface: 'cli' };
  const ids = (
    ctx
      .prep(
        `SELECT id, title FROM interactions WHERE run_id = ? AND status IN ${OPEN_INTERACTION_SQL}
         ORDER BY created_at, id`,
      )
      .all(claim.runId) as Array<{ id: string; title: string }>
  )
    .filter(({ title }) => onlyTitle === undefined || title === onlyTitle)
    .map(({ id }) => id);
  return ids.filter((id) => withdrawInteraction(ctx, id, withdrawal, actor, now));
}

/** The question the hook waited on was settled or expired: the run works again. */
export function resumeAgentSession(ctx: WritableDB, claim: Claim, now: number): void {
  const run = loadRunRow(ctx, claim.runId);
  if (run.open_interactions > 0 || run.status !== 'waiting') return;
  runner.resumeAfterInteraction(ctx, claim, now);
}

/** The agent ended its session (SessionEnd, pi's session_shutdown): the run completes. */
export function endAgentSession(ctx: WritableDB, claim: Claim, reason: string, now: number): Run {
  return runner.finishRun(ctx, claim, { status: 'completed', output: { ended: reason } }, now);
}

/**
 * The session's agent process is gone. Codex never says a session ended, so a Codex that exits while it
 * waits for the next prompt ended its session; any other exit without an end is a death
 * (docs/AGENTS.md#died).
 */
function endAsDied(ctx: WritableDB, agent: AgentName, claim: Claim, now: number): void {
  // Nobody waits for its questions any more: withdrawn as the asker's, not cancelled as by a person.
  withdrawAgentQuestions(ctx, claim, 'asker_gone', now);
  const run = loadRunRow(ctx, claim.runId);
  const ending = goneSessionEnding(agent, { status: run.status, statusDetail: run.status_detail });
  runner.finishRun(
    ctx,
    claim,
    ending.status === 'completed'
      ? { status: 'completed', output: { ended: ending.ended } }
      : { status: 'failed', error: ending.error },
    now,
  );
}

/**
 * The sweeper's step for agent sessions (docs/AGENTS.md#died): a session whose agent process the liveness
 * check finds gone, with no SessionEnd, is recorded as died — the run fails with that reason and its open
 * questions are closed. Up to `limit` sessions, in the caller's transaction; returns how many.
 */
/** Open sessions whose agent process is verifiably gone, up to `limit`: a read, for the sweeper to look first. */
export function goneAgentSessions(ctx: ReadableDB, limit: number): Array<SessionRow & { agent: AgentName }> {
  const rows = ctx
    .prep(
      // From the sessions outward (CROSS JOIN keeps that order): there are few, while a big store holds
      // thousands of owned leases the planner would otherwise walk on every idle tick.
      `SELECT a.agent, a.run_id, a.generation, a.claim_token FROM agent_sessions a
         CROSS JOIN runs r ON r.id = a.run_id
         CROSS JOIN leases l ON l.run_id = a.run_id
       WHERE r.status IN ('queued', 'running', 'waiting') AND l.owner_type = 'runner' AND l.generation = a.generation
       LIMIT ?`,
    )
    .all(limit) as Array<SessionRow & { agent: AgentName }>;
  return rows.filter(
    (row) => ctx.liveness.judge(toLease(loadLeaseRow(ctx, row.run_id))).supervisor === 'gone',
  );
}

export function endGoneAgentSessions(ctx: WritableDB, limit: number, now: number): number {
  const gone = goneAgentSessions(ctx, limit);
  for (const row of gone) {
    const lease = loadLeaseRow(ctx, row.run_id);
    endAsDied(ctx, row.agent, claimOf(row, lease.owner_id ?? '', lease.expires_at ?? now), now);
  }
  return gone.length;
}

/** The process an open session is recorded under (its run's lease owner), or null when none is open. */
export function agentSessionOwner(
  ctx: ReadableDB,
  agent: AgentName,
  sessionId: string,
): { pid: number; startId: string | null } | null {
  const row = ctx
    .prep(
      `SELECT l.owner_pid, l.owner_start_id FROM agent_sessions a
         CROSS JOIN runs r ON r.id = a.run_id
         CROSS JOIN leases l ON l.run_id = a.run_id
       WHERE a.agent = ? AND a.session_id = ? AND r.status IN ('queued', 'running', 'waiting')
         AND l.owner_type = 'runner' AND l.generation = a.generation`,
    )
    .get(agent, sessionId) as { owner_pid: number | null; owner_start_id: string | null } | undefined;
  if (row === undefined || row.owner_pid === null) return null;
  return { pid: row.owner_pid, startId: row.owner_start_id };
}

/** The pids the agent's open sessions are recorded under. */
export function openAgentSessionPids(ctx: ReadableDB, agent: AgentName): Set<number> {
  const rows = ctx
    .prep(
      `SELECT l.owner_pid FROM agent_sessions a
         CROSS JOIN runs r ON r.id = a.run_id
         CROSS JOIN leases l ON l.run_id = a.run_id
       WHERE a.agent = ? AND r.status IN ('queued', 'running', 'waiting') AND l.owner_type = 'runner'
         AND l.generation = a.generation AND l.owner_pid IS NOT NULL`,
    )
    .all(agent) as Array<{ owner_pid: number }>;
  return new Set(rows.map((row) => row.owner_pid));
}
