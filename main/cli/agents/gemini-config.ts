/**
 * Gemini CLI's hooks (docs/AGENTS.md#installing): Claude Code's shape under Gemini's own event names in
 * `~/.gemini/settings.json`, timeouts in milliseconds. Gemini's `BeforeTool` hook can refuse a call but not
 * allow one (its own policy decides that), so only the tools that change things are asked about there:
 * the shell, writing and editing files.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { WAITING_LINE, type HookSettingsSpec, type Json, type Scope } from './hook-settings';

/** The tools a person is asked about: Gemini's shell, write and edit tools. */
export const GEMINI_GATED_TOOLS = '^(run_shell_command|write_file|replace)$';

export const GEMINI: HookSettingsSpec = {
  agent: 'gemini',
  events: [
    { event: 'SessionStart', waits: false },
    { event: 'BeforeAgent', waits: false },
    { event: 'BeforeTool', matcher: GEMINI_GATED_TOOLS, waits: true, line: WAITING_LINE },
    { event: 'AfterTool', matcher: '*', waits: false },
    { event: 'AfterAgent', waits: false },
    { event: 'SessionEnd', waits: false },
  ],
  timeoutUnit: 'ms',
  lineField: 'name',
  comments: true,
  disabledBy: (settings, path) => {
    const config = settings.hooksConfig as Json | undefined;
    return config?.enabled === false
      ? `${path} sets "hooksConfig": {"enabled": false}: Gemini CLI runs no hook`
      : null;
  },
};

/** `$GEMINI_CLI_HOME/.gemini/settings.json`, else `~/.gemini/settings.json`; a project's `.gemini/settings.json`. */
export function geminiSettingsPath(
  scope: Scope,
  env: Record<string, string | undefined>,
  project: string,
): string {
  if (scope === 'project') return join(project, '.gemini', 'settings.json');
  const home =
    env.GEMINI_CLI_HOME !== undefined && env.GEMINI_CLI_HOME !== ''
      ? env.GEMINI_CLI_HOME
      : (env.HOME ?? homedir());
  return join(home, '.gemini', 'settings.json');
}
