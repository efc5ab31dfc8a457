/**
 * What a coding agent's session is doing now (docs/AGENTS.md#what-a-session-shows), one reading for the
 * window, the tray and the CLI: working, waiting for the person's next prompt, needs you (a question, or
 * nobody can tell), idle (its turn was interrupted, or it has waited a long time), or ended. Agents do not
 * heartbeat between hook calls, so this, not a heartbeat age, is what a session row shows.
 */
import { isAgentSessionRun, type DisplayInfo } from './display-status';
import { isTerminalRunStatus, type Run } from './domain';

/** What a session shows while its agent works (main/cli/agents/run-hook.ts sets it). */
export const AGENT_WORKING = 'Working';
/** What a session shows after its agent's turn ended (main/store/agent-sessions.ts sets it). */
export const AGENT_WAITING_FOR_PROMPT = 'Waiting for your next prompt';
/** Waiting for a prompt longer than this reads as idle. */
export const AGENT_IDLE_AFTER_MS = 15 * 60_000;

export type AgentActivity = 'working' | 'waiting-for-prompt' | 'needs-you' | 'idle' | 'ended';

export const AGENT_ACTIVITY_WORDS: Record<AgentActivity, string> = {
  working: 'working',
  'waiting-for-prompt': 'waiting for a prompt',
  'needs-you': 'needs you',
  idle: 'idle',
  ended: 'ended',
};

/** The session's activity, or null for a run that is not an agent session. */
export function agentActivity(
  run: Pick<Run, 'originSession' | 'status' | 'statusDetail' | 'updatedAt'>,
  display: Pick<DisplayInfo, 'needsYou' | 'status'>,
  now: number,
): AgentActivity | null {
  if (!isAgentSessionRun(run)) return null;
  if (isTerminalRunStatus(run.status) || display.status === 'failed') return 'ended';
  if (display.needsYou) return 'needs-you';
  const detail = run.statusDetail ?? '';
  if (detail === AGENT_WORKING || detail.startsWith('Answered: ')) return 'working';
  if (detail === AGENT_WAITING_FOR_PROMPT) {
    return now - run.updatedAt > AGENT_IDLE_AFTER_MS ? 'idle' : 'waiting-for-prompt';
  }
  // No word since its question was withdrawn (a turn interrupted in the terminal): nothing runs.
  return 'idle';
}

/**
 * The DETAIL a list shows (the CLI's `ls`): what the run is doing now, never the past as the present. An
 * agent session shows its activity (one that ended, why it ended); any other run its latest progress text.
 */
export function detailNow(
  run: Pick<Run, 'originSession' | 'status' | 'statusDetail' | 'updatedAt'>,
  display: Pick<DisplayInfo, 'needsYou' | 'status' | 'reason'>,
  now: number,
): string | null {
  const activity = agentActivity(run, display, now);
  // Any other run keeps its last progress text: beside its status it reads as how far it got.
  if (activity === null || activity === 'needs-you') return run.statusDetail ?? null;
  if (activity === 'ended') return display.reason === '' ? null : display.reason;
  if (activity === 'idle' && run.statusDetail === AGENT_WAITING_FOR_PROMPT) return AGENT_WAITING_FOR_PROMPT;
  if (activity === 'idle') return 'Idle: its last turn was interrupted';
  return run.statusDetail;
}
