/**
 * Which process is the agent a hook call belongs to (docs/AGENTS.md#died): the session's run is owned
 * by it, so the liveness check finds it gone when the agent dies without ending its session. Claude Code
 * names itself (`CLAUDE_PID`); the pi extension passes its own pid (`RUNWARDEN_AGENT_PID`); otherwise
 * (Codex) it is the nearest ancestor that is not a shell the hook command was run by.
 */
import type { OwnerInfo } from '../store';
import { runnerOwner } from '../runner/owner-info';
import type { AgentName } from '../store/agent-sessions';

const { readFileSync } = process.getBuiltinModule('node:fs');

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'busybox', 'env', 'node', 'timeout']);

/** The agent's pid, or null when none can be told (then the session is judged by its lease clock). */
export function agentPid(agent: AgentName, env: Record<string, string | undefined>): number | null {
  for (const name of ['RUNWARDEN_AGENT_PID', agent === 'claude-code' ? 'CLAUDE_PID' : '']) {
    const value = name === '' ? undefined : env[name];
    if (value !== undefined && /^[1-9]\d*$/.test(value)) return Number(value);
  }
  let pid = process.ppid;
  for (let depth = 0; depth < 8 && pid > 1; depth += 1) {
    const stat = readStat(pid);
    if (stat === null) return null;
    if (!SHELLS.has(stat.comm)) return pid;
    pid = stat.ppid;
  }
  return null;
}

function readStat(pid: number): { comm: string; ppid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { comm, ppid };
  } catch {
    return null;
  }
}

/** The session's owner: the agent process (pid + start identity + machine), or this hook process as a fallback. */
export function agentOwner(agent: AgentName, env: Record<string, string | undefined>): OwnerInfo {
  return runnerOwner(agent, agentPid(agent, env) ?? process.pid);
}
