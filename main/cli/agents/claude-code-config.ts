/**
 * Claude Code's hooks in its settings.json (docs/AGENTS.md#installing): one matcher group per event
 * Runwarden listens to, after the person's own (hook-settings.ts, shared with Qwen Code and Gemini CLI).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { WAITING_LINE, type HookSettingsSpec, type Scope } from './hook-settings';

/** The events Runwarden listens to, with their matcher and whether the hook may wait for a person. */
export const CLAUDE_EVENTS: HookSettingsSpec['events'] = [
  { event: 'SessionStart', waits: false },
  { event: 'UserPromptSubmit', waits: false },
  { event: 'PreToolUse', matcher: 'AskUserQuestion', waits: true, line: WAITING_LINE },
  // Claude Code draws its own permission dialog while this hook runs, in place of a hook's line.
  { event: 'PermissionRequest', matcher: '*', waits: true },
  { event: 'PostToolUse', matcher: '*', waits: false },
  { event: 'Stop', waits: false },
  { event: 'SessionEnd', waits: false },
];

export const CLAUDE: HookSettingsSpec = {
  agent: 'claude-code',
  events: CLAUDE_EVENTS,
  timeoutUnit: 's',
  lineField: 'statusMessage',
  comments: false,
  disabledBy: (settings, path) =>
    settings.disableAllHooks === true ? `${path} sets "disableAllHooks": Claude Code runs no hook` : null,
};

export function claudeSettingsPath(
  scope: Scope,
  env: Record<string, string | undefined>,
  project: string,
): string {
  if (scope === 'project') return join(project, '.claude', 'settings.local.json');
  const dir =
    env.CLAUDE_CONFIG_DIR !== undefined && env.CLAUDE_CONFIG_DIR !== ''
      ? env.CLAUDE_CONFIG_DIR
      : join(env.HOME ?? homedir(), '.claude');
  return join(dir, 'settings.json');
}
