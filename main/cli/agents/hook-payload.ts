/**
 * What an agent's hook call brings on stdin, read leniently (docs/AGENTS.md#sessions-as-runs): Claude Code and
 * Codex send one JSON object with `hook_event_name`, `session_id`, `cwd` and the event's own fields; the pi
 * extension sends the same shape. Anything unreadable is `null`: the hook then does nothing.
 */
export interface HookPayload {
  event: string;
  sessionId: string;
  cwd: string | null;
  toolName: string | null;
  toolInput: Record<string, unknown>;
  /** Claude Code's rule suggestions for "always allow"; Codex may send them too. */
  suggestions: unknown[];
  reason: string | null;
  raw: Record<string, unknown>;
}

/** The largest payload read: a tool input (a whole file to write) can be big, but not unbounded. */
export const MAX_PAYLOAD_BYTES = 8 * 1024 * 1024;

/**
 * Gemini CLI's events under the names the hook handles: Claude Code's. Its `BeforeTool` is the gate (a
 * `PreToolUse` that asks), `BeforeAgent` a prompt, `AfterTool` a finished call, `AfterAgent` a finished turn.
 */
const GEMINI_EVENTS: Readonly<Record<string, string>> = {
  BeforeAgent: 'UserPromptSubmit',
  BeforeTool: 'PreToolUse',
  AfterTool: 'PostToolUse',
  AfterAgent: 'Stop',
};

/** The payload with the agent's event named as Claude Code names it. */
export function inClaudeTerms(agent: string, payload: HookPayload): HookPayload {
  if (agent !== 'gemini') return payload;
  return { ...payload, event: GEMINI_EVENTS[payload.event] ?? payload.event };
}

export function parseHookPayload(text: string): HookPayload | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const raw = value as Record<string, unknown>;
  const event = str(raw.hook_event_name);
  const sessionId = str(raw.session_id);
  if (event === null || sessionId === null || sessionId === '' || sessionId.length > 300) return null;
  const toolInput = raw.tool_input;
  return {
    event,
    sessionId,
    cwd: str(raw.cwd),
    toolName: str(raw.tool_name),
    toolInput:
      toolInput !== null && typeof toolInput === 'object' && !Array.isArray(toolInput)
        ? (toolInput as Record<string, unknown>)
        : {},
    suggestions: Array.isArray(raw.permission_suggestions) ? raw.permission_suggestions : [],
    reason: str(raw.reason),
    raw,
  };
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
