/**
 * Claude Code's hooks in its settings.json (docs/AGENTS.md#installing): `"hooks": {Event: [{matcher,
 * hooks: [{type: "command", command, timeout}]}]}`. Runwarden adds one matcher group per event it listens
 * to, after the person's own, and finds its groups again by their command (`agents hook claude-code`).
 */
import { homedir } from 'node:os';
import { notParsable } from './config-file';
import { join } from 'node:path';
import { isRunwardenHook } from './cli-command';

export type Scope = 'user' | 'project';

/** The events Runwarden listens to, with their matcher and whether the hook may wait for a person. */
export const CLAUDE_EVENTS: ReadonlyArray<{ event: string; matcher?: string; waits: boolean }> = [
  { event: 'SessionStart', waits: false },
  { event: 'UserPromptSubmit', waits: false },
  { event: 'PreToolUse', matcher: 'AskUserQuestion', waits: true },
  { event: 'PermissionRequest', matcher: '*', waits: true },
  { event: 'PostToolUse', matcher: '*', waits: false },
  { event: 'Stop', waits: false },
  { event: 'SessionEnd', waits: false },
];

/** Seconds: how long Claude Code lets a hook that waits for a person run; the question's deadline is shorter. */
export const WAITING_HOOK_TIMEOUT_S = 600;
/** Seconds for the hooks that only record what happened. */
export const QUICK_HOOK_TIMEOUT_S = 30;

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

type Json = Record<string, unknown>;

function parseSettings(text: string | null, path: string): Json {
  if (text === null || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw notParsable(path, 'JSON', error);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${path} does not hold a JSON object; nothing was changed`);
  }
  return value as Json;
}

/** The indentation the file uses (two spaces when it cannot be told). */
function indentOf(text: string | null): string | number {
  const match = text === null ? null : /\n([ \t]+)"/.exec(text);
  return match?.[1] ?? 2;
}

function isOurGroup(group: unknown): boolean {
  if (group === null || typeof group !== 'object') return false;
  const hooks = (group as Json).hooks;
  return (
    Array.isArray(hooks) &&
    hooks.length > 0 &&
    hooks.every((hook) => isRunwardenHook((hook as Json | null)?.command, 'claude-code'))
  );
}

/** The settings without Runwarden's groups (and without what only they needed). */
function withoutOurs(settings: Json): Json {
  const hooks = settings.hooks;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) return settings;
  const kept: Json = {};
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const rest = groups.filter((group) => !isOurGroup(group));
    if (rest.length > 0 || groups.length === 0) kept[event] = rest;
  }
  const next = { ...settings };
  if (Object.keys(kept).length === 0) delete next.hooks;
  else next.hooks = kept;
  return next;
}

export function installClaude(
  text: string | null,
  path: string,
  command: (waits: boolean) => string,
): string {
  const settings = withoutOurs(parseSettings(text, path));
  const hooks: Json = { ...(settings.hooks as Json | undefined) };
  for (const { event, matcher, waits } of CLAUDE_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as unknown[])] : [];
    groups.push({
      ...(matcher === undefined ? {} : { matcher }),
      hooks: [
        {
          type: 'command',
          command: command(waits),
          timeout: waits ? WAITING_HOOK_TIMEOUT_S : QUICK_HOOK_TIMEOUT_S,
        },
      ],
    });
    hooks[event] = groups;
  }
  return `${JSON.stringify({ ...settings, hooks }, null, indentOf(text))}\n`;
}

export function uninstallClaude(text: string | null, path: string): string | null {
  if (text === null) return null;
  return `${JSON.stringify(withoutOurs(parseSettings(text, path)), null, indentOf(text))}\n`;
}

export interface HookStatus {
  installed: boolean;
  /** What would keep a hook from running, one sentence each. */
  problems: string[];
  events: string[];
}

export function claudeStatus(text: string | null, path: string): HookStatus {
  const settings = parseSettings(text, path);
  const hooks = (settings.hooks as Json | undefined) ?? {};
  const events = CLAUDE_EVENTS.filter(
    ({ event }) => Array.isArray(hooks[event]) && (hooks[event] as unknown[]).some(isOurGroup),
  ).map(({ event }) => event);
  const problems: string[] = [];
  if (settings.disableAllHooks === true)
    problems.push(`${path} sets "disableAllHooks": Claude Code runs no hook`);
  const missing = CLAUDE_EVENTS.filter(({ event }) => !events.includes(event)).map(({ event }) => event);
  if (events.length > 0 && missing.length > 0)
    problems.push(`hooks missing for ${missing.join(', ')}: install again`);
  return { installed: events.length > 0, problems, events };
}
