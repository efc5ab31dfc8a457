/**
 * Which process is the agent a hook call belongs to (docs/AGENTS.md#whose-life-is-the-session): the session's
 * run is owned by it, so the liveness check finds it gone when the agent dies without ending its session.
 * Claude Code names itself (`CLAUDE_PID`); the pi extension passes its own pid (`RUNWARDEN_AGENT_PID`);
 * otherwise (Codex, Qwen Code, Gemini CLI) it is the nearest ancestor that is not a shell the hook command
 * was run by — unless that is Codex's shared session daemon, when the session is its terminal UI
 * (codex-session.ts).
 */
import type { OwnerInfo } from '../../store';
import { runnerOwner } from '../../runner/owner-info';
import type { AgentName } from '../../store/agent-sessions';
import { nearestAgentAncestor } from './codex-session';

/** The pid the agent names for itself, if it does. */
export function namedAgentPid(agent: AgentName, env: Record<string, string | undefined>): number | null {
  for (const name of ['RUNWARDEN_AGENT_PID', agent === 'claude-code' ? 'CLAUDE_PID' : '']) {
    const value = name === '' ? undefined : env[name];
    if (value !== undefined && /^[1-9]\d*$/.test(value)) return Number(value);
  }
  return null;
}

/**
 * Agents that are Node programs running their session in their own `node` process, which runs the hooks: Qwen
 * Code and Gemini CLI (each first starts itself again as a child with more memory; the child is the session).
 */
const NODE_AGENTS: ReadonlySet<AgentName> = new Set(['qwen-code', 'gemini']);

/** The agent's pid, or null when none can be told (then the session is judged by its lease clock). */
export function agentPid(agent: AgentName, env: Record<string, string | undefined>): number | null {
  return namedAgentPid(agent, env) ?? nearestAgentAncestor(NODE_AGENTS.has(agent))?.pid ?? null;
}

/** The session's owner: the agent process (pid + start identity + machine), or this hook process as a fallback. */
export function agentOwner(agent: AgentName, env: Record<string, string | undefined>): OwnerInfo {
  return runnerOwner(agent, agentPid(agent, env) ?? process.pid);
}
