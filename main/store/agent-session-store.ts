/**
 * The store as an agent's hook call sees it (docs/AGENTS.md#sessions-as-runs): the runner's side
 * (`RunnerStore`, the lean path of docs/CLI.md#start-up) plus the agent-session transitions, each one write
 * transaction that first takes the session's claim (`touchAgentSession`) and then acts under it.
 */
import type { Actor, Interaction } from '../../shared/domain';
import * as sessions from './agent-sessions';
import { expireDueInteractions } from './interaction-deadlines';
import { openConnection, type OpenStoreOptions } from './open-connection';
import { RunnerStore } from './runner-store';
import type { Withdrawal } from './question-askers';
import { readTx, renewalTx } from './store-context';
import type { Claim, RequestInteractionInput } from './store-types';

export type { AgentName, AgentSessionClaim, AgentSessionInput } from './agent-sessions';
export { AGENT_LABELS, AGENT_NAMES, WAITING_FOR_PROMPT } from './agent-sessions';

export function openAgentSessionStore(storePath: string, opts: OpenStoreOptions = {}): AgentSessionStore {
  const { ctx, state } = openConnection(storePath, opts);
  return new AgentSessionStore(ctx, state);
}

/** What a hook call does once it holds the session's claim, in the same transaction. */
export type SessionStep =
  | { kind: 'touch' }
  | {
      kind: 'activity';
      detail: string;
      withdraw?: Withdrawal;
      /** Withdraw only the questions with this title (worked out only when a question is open). */
      onlyTitle?: string | (() => string);
    }
  | { kind: 'end'; reason: string };

export class AgentSessionStore extends RunnerStore {
  /** Takes the session's claim and applies `step`, in one transaction. */
  agentSession(
    input: sessions.AgentSessionInput,
    step: SessionStep,
  ): sessions.AgentSessionClaim & { withdrawn: string[] } {
    // Most calls (every tool call's) change nothing, or nothing but the lease: nothing is written, or a
    // renewal, committed as one.
    if (step.kind !== 'end') {
      const detail = step.kind === 'activity' ? step.detail : null;
      const unchanged = readTx(this.ctx, () =>
        sessions.unchangedAgentSession(this.ctx, input, detail, this.ctx.clock()),
      );
      if (unchanged !== null) return { ...unchanged, withdrawn: [] };
      const renewed = renewalTx(this.ctx, (now) =>
        sessions.renewAgentSessionOnTime(this.ctx, input, detail, now),
      );
      if (renewed !== null) return { ...renewed, withdrawn: [] };
    }
    return this.write((ctx, now) => {
      const held = sessions.touchAgentSession(ctx, input, now);
      let withdrawn: string[] = [];
      switch (step.kind) {
        case 'touch':
          break;
        case 'activity':
          if (step.withdraw !== undefined)
            withdrawn = sessions.withdrawAgentQuestions(
              ctx,
              held.claim,
              step.withdraw,
              now,
              typeof step.onlyTitle === 'function' ? step.onlyTitle() : step.onlyTitle,
            );
          sessions.setAgentActivity(ctx, held.claim, step.detail, now);
          break;
        case 'end':
          sessions.endAgentSession(ctx, held.claim, step.reason, now);
          break;
      }
      return { ...held, withdrawn };
    });
  }

  /** Takes the session's claim and asks the question under it, in one transaction. */
  askAgentQuestion(
    input: sessions.AgentSessionInput,
    question: RequestInteractionInput,
  ): { claim: Claim; interaction: Interaction } {
    return this.write((ctx, now) => {
      const { claim } = sessions.touchAgentSession(ctx, input, now);
      return { claim, interaction: sessions.askAgentQuestion(ctx, claim, question, now) };
    });
  }

  /** After the question was settled or expired: the session works again (fenced by its claim). */
  resumeAgentSession(claim: Claim): void {
    this.write((ctx, now) => sessions.resumeAgentSession(ctx, claim, now));
  }

  /** The hook stops waiting (its deadline, a signal): the question is closed as the store's deadline rule says. */
  expireAgentQuestionIfDue(interactionId: string, actor: Actor): boolean {
    return this.write((ctx, now) => expireDueInteractions(ctx, [interactionId], actor, now)) > 0;
  }

  /** The process an open session is recorded under, or null (docs/AGENTS.md#whose-life-is-the-session). */
  agentSessionOwner(
    agent: sessions.AgentName,
    sessionId: string,
  ): { pid: number; startId: string | null } | null {
    return this.read((ctx) => sessions.agentSessionOwner(ctx, agent, sessionId));
  }

  /** The pids the agent's open sessions are recorded under. */
  openAgentSessionPids(agent: sessions.AgentName): Set<number> {
    return this.read((ctx) => sessions.openAgentSessionPids(ctx, agent));
  }

  /** The hook was interrupted, or the agent is gone, while it waited: its question is withdrawn. */
  withdrawAgentQuestions(claim: Claim, withdrawal: Withdrawal): string[] {
    return this.write((ctx, now) => sessions.withdrawAgentQuestions(ctx, claim, withdrawal, now));
  }
}
