/**
 * The coding agents Runwarden connects (docs/AGENTS.md), their names in titles and messages, and how a
 * session ends when its agent's process is gone without a word (docs/AGENTS.md#died): one rule for the
 * sweeper that records it and for every read that sees the process gone before the sweeper does.
 */
import type { Run } from './domain';

/** How a coding agent's session run is marked (`Run.originSession`, docs/AGENTS.md#sessions-as-runs). */
export const AGENT_SESSION_ORIGIN = 'agent:';

export const AGENT_NAMES = ['claude-code', 'codex', 'pi', 'qwen-code', 'gemini', 'opencode'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/** How each agent is named in titles and messages. */
export const AGENT_LABELS: Record<AgentName, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  pi: 'pi',
  'qwen-code': 'Qwen Code',
  gemini: 'Gemini CLI',
  opencode: 'OpenCode',
};

/** What a session shows after its agent's turn ended (Stop): it waits for the person's next prompt. */
export const WAITING_FOR_PROMPT = 'Waiting for your next prompt';

/** Agents that tell Runwarden when a session ends (SessionEnd, pi's session_shutdown); Codex and OpenCode do not. */
export const SAYS_WHEN_IT_ENDS: ReadonlySet<AgentName> = new Set([
  'claude-code',
  'pi',
  'qwen-code',
  'gemini',
]);

/** The agent of a session's run (`origin_session` `agent:<agent>`), or null for any other run. */
export function agentOfRun(run: Pick<Run, 'originSession'>): AgentName | null {
  const origin = run.originSession ?? '';
  if (!origin.startsWith(AGENT_SESSION_ORIGIN)) return null;
  const name = origin.slice(AGENT_SESSION_ORIGIN.length);
  return (AGENT_NAMES as readonly string[]).includes(name) ? (name as AgentName) : null;
}

/** How a session whose agent process is gone ends: completed, or failed with the error said. */
export type GoneSessionEnding = { status: 'completed'; ended: string } | { status: 'failed'; error: string };

/**
 * A session whose agent process is gone without ending it died, except where the agent never says a
 * session ended (Codex, OpenCode): gone while waiting for the next prompt, it completed.
 */
export function goneSessionEnding(
  agent: AgentName,
  run: Pick<Run, 'status' | 'statusDetail'>,
): GoneSessionEnding {
  if (!SAYS_WHEN_IT_ENDS.has(agent) && run.status === 'running' && run.statusDetail === WAITING_FOR_PROMPT)
    return { status: 'completed', ended: 'the agent exited' };
  return {
    status: 'failed',
    error: `${AGENT_LABELS[agent]} died: its process is gone and the session never ended.`,
  };
}
