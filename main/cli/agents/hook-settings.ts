/**
 * Hooks in a JSON settings file of Claude Code's shape (docs/AGENTS.md#installing), shared by Claude Code,
 * Qwen Code and Gemini CLI: `"hooks": {Event: [{matcher, hooks: [{type: "command", command, timeout}]}]}`.
 * Runwarden adds one matcher group per event it listens to, after the person's own, and finds its groups
 * again by their command (`agents hook AGENT`). Each agent gives its events and the unit of its timeouts.
 */
import { notParsable } from './config-file';
import { isRunwardenHook } from './cli-command';

export type Scope = 'user' | 'project';

/**
 * What the terminal shows while a hook waits for a person in Runwarden, where the agent shows a hook's line
 * and no dialog of its own (docs/AGENTS.md#the-terminal-line): where the question is waiting.
 */
export const WAITING_LINE = 'Waiting for your answer in Runwarden (window, tray or runwarden answer)';

/** Seconds: how long a hook that waits for a person may run; the question's deadline is shorter. */
export const WAITING_HOOK_TIMEOUT_S = 600;
/** Seconds for the hooks that only record what happened. */
export const QUICK_HOOK_TIMEOUT_S = 30;

export interface HookEvent {
  event: string;
  matcher?: string;
  /** Whether the hook may wait for a person. */
  waits: boolean;
  /**
   * The line the agent shows while this hook runs (docs/AGENTS.md#the-terminal-line): where the question
   * waits and how to take it back to the terminal. Written as the agent's own field (`lineField`).
   */
  line?: string;
}

export interface HookSettingsSpec {
  /** The agent named in the hook command (`agents hook AGENT`). */
  agent: string;
  events: ReadonlyArray<HookEvent>;
  /** How the agent reads `timeout`: Claude Code and Qwen Code in seconds, Gemini CLI in milliseconds. */
  timeoutUnit: 's' | 'ms';
  /**
   * The hook's field whose text the agent shows while the hook runs: Claude Code's and Qwen Code's
   * `statusMessage` (the spinner's text), Gemini CLI's `name` ("Executing Hook: <name>").
   */
  lineField: 'statusMessage' | 'name';
  /** A setting of the file that keeps every hook from running, as a sentence, or null. */
  disabledBy(settings: Json, path: string): string | null;
}

export interface HookStatus {
  installed: boolean;
  /** What would keep a hook from running, one sentence each. */
  problems: string[];
  events: string[];
}

export type Json = Record<string, unknown>;

export function parseSettings(text: string | null, path: string): Json {
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

function isOurGroup(group: unknown, agent: string): boolean {
  if (group === null || typeof group !== 'object') return false;
  const hooks = (group as Json).hooks;
  return (
    Array.isArray(hooks) &&
    hooks.length > 0 &&
    hooks.every((hook) => isRunwardenHook((hook as Json | null)?.command, agent))
  );
}

/** The settings without Runwarden's groups (and without what only they needed). */
function withoutOurs(settings: Json, agent: string): Json {
  const hooks = settings.hooks;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) return settings;
  const kept: Json = {};
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const rest = groups.filter((group) => !isOurGroup(group, agent));
    if (rest.length > 0 || groups.length === 0) kept[event] = rest;
  }
  const next = { ...settings };
  if (Object.keys(kept).length === 0) delete next.hooks;
  else next.hooks = kept;
  return next;
}

export function installHookSettings(
  spec: HookSettingsSpec,
  text: string | null,
  path: string,
  command: (waits: boolean) => string,
): string {
  const settings = withoutOurs(parseSettings(text, path), spec.agent);
  const hooks: Json = { ...(settings.hooks as Json | undefined) };
  const scale = spec.timeoutUnit === 'ms' ? 1000 : 1;
  for (const { event, matcher, waits, line } of spec.events) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as unknown[])] : [];
    groups.push({
      ...(matcher === undefined ? {} : { matcher }),
      hooks: [
        {
          type: 'command',
          command: command(waits),
          timeout: (waits ? WAITING_HOOK_TIMEOUT_S : QUICK_HOOK_TIMEOUT_S) * scale,
          ...(line === undefined ? {} : { [spec.lineField]: line }),
        },
      ],
    });
    hooks[event] = groups;
  }
  return `${JSON.stringify({ ...settings, hooks }, null, indentOf(text))}\n`;
}

export function uninstallHookSettings(
  spec: HookSettingsSpec,
  text: string | null,
  path: string,
): string | null {
  if (text === null) return null;
  return `${JSON.stringify(withoutOurs(parseSettings(text, path), spec.agent), null, indentOf(text))}\n`;
}

export function hookSettingsStatus(spec: HookSettingsSpec, text: string | null, path: string): HookStatus {
  const settings = parseSettings(text, path);
  const hooks = (settings.hooks as Json | undefined) ?? {};
  const events = spec.events
    .filter(
      ({ event }) =>
        Array.isArray(hooks[event]) &&
        (hooks[event] as unknown[]).some((group) => isOurGroup(group, spec.agent)),
    )
    .map(({ event }) => event);
  const problems: string[] = [];
  const disabled = spec.disabledBy(settings, path);
  if (disabled !== null) problems.push(disabled);
  const missing = spec.events.filter(({ event }) => !events.includes(event)).map(({ event }) => event);
  if (events.length > 0 && missing.length > 0)
    problems.push(`hooks missing for ${missing.join(', ')}: install again`);
  return { installed: events.length > 0, problems, events };
}
