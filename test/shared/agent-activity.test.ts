/** What an agent session is doing now, and the DETAIL a list shows for any run (shared/agent-activity.ts). */
import { describe, expect, it } from 'vitest';
import {
  AGENT_IDLE_AFTER_MS,
  AGENT_WAITING_FOR_PROMPT,
  AGENT_WORKING,
  agentActivity,
  detailNow,
} from '../../shared/agent-activity';
import { AGENT_SESSION_ORIGIN } from '../../shared/display-status';
import type { Run } from '../../shared/domain';

const NOW = 1_800_000_000_000;
type RunPart = Pick<Run, 'originSession' | 'status' | 'statusDetail' | 'updatedAt'>;
const session = (over: Partial<RunPart> = {}): RunPart => ({
  originSession: `${AGENT_SESSION_ORIGIN}claude-code`,
  status: 'running',
  statusDetail: AGENT_WORKING,
  updatedAt: NOW - 1000,
  ...over,
});
const shown = { needsYou: false, status: 'running' as const, reason: '' };

describe('agentActivity', () => {
  it('is null for a run that is not an agent session', () => {
    expect(agentActivity(session({ originSession: null }), shown, NOW)).toBeNull();
  });

  it('reads working, waiting for a prompt, idle, needs you and ended', () => {
    expect(agentActivity(session(), shown, NOW)).toBe('working');
    expect(agentActivity(session({ statusDetail: 'Answered: allow' }), shown, NOW)).toBe('working');
    const waiting = session({ statusDetail: AGENT_WAITING_FOR_PROMPT });
    expect(agentActivity(waiting, shown, NOW)).toBe('waiting-for-prompt');
    const long = session({
      statusDetail: AGENT_WAITING_FOR_PROMPT,
      updatedAt: NOW - AGENT_IDLE_AFTER_MS - 1,
    });
    expect(agentActivity(long, shown, NOW)).toBe('idle');
    expect(agentActivity(session({ statusDetail: null }), shown, NOW)).toBe('idle');
    expect(agentActivity(session(), { ...shown, needsYou: true }, NOW)).toBe('needs-you');
    expect(agentActivity(session({ status: 'completed' }), shown, NOW)).toBe('ended');
    expect(agentActivity(session(), { ...shown, status: 'failed' }, NOW)).toBe('ended');
  });
});

describe('detailNow', () => {
  it('never shows an ended session as working: it shows why it ended', () => {
    const ended = session({ status: 'completed' });
    expect(detailNow(ended, { ...shown, status: 'completed', reason: 'Session ended' }, NOW)).toBe(
      'Session ended',
    );
  });

  it('says an interrupted turn is idle, not "Working"', () => {
    expect(detailNow(session({ statusDetail: null }), shown, NOW)).toBe(
      'Idle: its last turn was interrupted',
    );
  });

  it('keeps any other run its latest progress text, finished or not', () => {
    const exec = session({ originSession: null, status: 'completed', statusDetail: 'copied 40 of 120' });
    expect(detailNow(exec, { ...shown, status: 'completed', reason: 'Completed' }, NOW)).toBe(
      'copied 40 of 120',
    );
  });
});
