/**
 * Qwen Code's hooks (docs/AGENTS.md#installing): Claude Code's shape and events in Qwen Code's own
 * settings.json, timeouts in seconds. Qwen Code sends Claude Code's `PermissionRequest` before its own
 * dialog and reads the same decision, so the hook treats it as Claude Code's (hook-settings.ts).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookSettingsSpec, Scope } from './hook-settings';

export const QWEN: HookSettingsSpec = {
  agent: 'qwen-code',
  events: [
    { event: 'SessionStart', waits: false },
    { event: 'UserPromptSubmit', waits: false },
    // Qwen Code 0.24.4 documents a hook's statusMessage but does not draw it while this hook waits.
    { event: 'PermissionRequest', matcher: '*', waits: true },
    { event: 'PostToolUse', matcher: '*', waits: false },
    { event: 'Stop', waits: false },
    { event: 'SessionEnd', waits: false },
  ],
  timeoutUnit: 's',
  lineField: 'statusMessage',
  comments: true,
  disabledBy: (settings, path) =>
    settings.disableAllHooks === true ? `${path} sets "disableAllHooks": Qwen Code runs no hook` : null,
};

/** `$QWEN_HOME/settings.json`, else `~/.qwen/settings.json`; a project's `.qwen/settings.json`. */
export function qwenSettingsPath(
  scope: Scope,
  env: Record<string, string | undefined>,
  project: string,
): string {
  if (scope === 'project') return join(project, '.qwen', 'settings.json');
  const dir =
    env.QWEN_HOME !== undefined && env.QWEN_HOME !== ''
      ? env.QWEN_HOME
      : join(env.HOME ?? homedir(), '.qwen');
  return join(dir, 'settings.json');
}
