/**
 * Codex's hooks in its config.toml (docs/AGENTS.md#installing): `[[hooks.Event]]` matcher groups with
 * `[[hooks.Event.hooks]]` command handlers. Codex runs a hook from the person's config only once it is
 * trusted: `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`, the hash of the
 * hook's normalised identity, as Codex's own `/hooks` records it. Runwarden writes its hooks and their trust
 * as one marked block at the end of the file, so uninstalling removes exactly that block.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { HookStatus, Scope } from './claude-code-config';
import { QUICK_HOOK_TIMEOUT_S, WAITING_HOOK_TIMEOUT_S } from './claude-code-config';

export const BLOCK_START = '# >>> runwarden agent hooks (remove with: runwarden agents uninstall codex)';
export const BLOCK_END = '# <<< runwarden agent hooks';

/** Codex's events Runwarden listens to; `gate`: PreToolUse asks a person (for `codex exec`, which never asks). */
export const CODEX_EVENTS: ReadonlyArray<{
  event: string;
  label: string;
  waits: boolean;
  gateOnly?: boolean;
}> = [
  { event: 'SessionStart', label: 'session_start', waits: false },
  { event: 'UserPromptSubmit', label: 'user_prompt_submit', waits: false },
  { event: 'PreToolUse', label: 'pre_tool_use', waits: true, gateOnly: true },
  { event: 'PermissionRequest', label: 'permission_request', waits: true },
  { event: 'PostToolUse', label: 'post_tool_use', waits: false },
  { event: 'Stop', label: 'stop', waits: false },
];

export function codexConfigPath(
  scope: Scope,
  env: Record<string, string | undefined>,
  project: string,
  home: string,
): string {
  if (scope === 'project') return join(project, '.codex', 'config.toml');
  const dir =
    env.CODEX_HOME !== undefined && env.CODEX_HOME !== ''
      ? env.CODEX_HOME
      : join(home || homedir(), '.codex');
  return join(resolve(dir), 'config.toml');
}

/** A TOML basic string (JSON's escapes are TOML's for the characters a path or command holds). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/**
 * The hash Codex trusts a command hook by: SHA-256 of the hook's identity — the event's label and its one
 * normalised handler (type, command, timeout, async; absent fields left out) — as JSON with sorted keys.
 */
export function codexHookHash(label: string, command: string, timeoutSec: number): string {
  const identity = {
    event_name: label,
    hooks: [{ async: false, command, timeout: timeoutSec, type: 'command' }],
  };
  return `sha256:${createHash('sha256').update(JSON.stringify(identity)).digest('hex')}`;
}

function withoutBlock(text: string): string {
  const start = text.indexOf(`\n${BLOCK_START}\n`);
  const at = text.startsWith(`${BLOCK_START}\n`) ? 0 : start === -1 ? -1 : start + 1;
  if (at === -1) return text;
  const end = text.indexOf(`${BLOCK_END}\n`, at);
  if (end === -1) return text;
  // The block was appended after one blank separator line, which goes with it.
  const before = text.slice(0, at);
  const trimmed = before.endsWith('\n\n') ? before.slice(0, -1) : before;
  return trimmed + text.slice(end + BLOCK_END.length + 1);
}

/** How many matcher groups the person already has for `event` (ours are appended after them). */
function existingGroups(text: string, event: string): number {
  const pattern = new RegExp(`^\\s*\\[\\[\\s*hooks\\s*\\.\\s*"?${event}"?\\s*\\]\\]`, 'gm');
  return [...text.matchAll(pattern)].length;
}

function inlineEventArray(text: string, event: string): boolean {
  return (
    new RegExp(`^\\s*"?${event}"?\\s*=\\s*\\[`, 'm').test(text) ||
    new RegExp(`^\\s*hooks\\.${event}\\s*=`, 'm').test(text)
  );
}

export interface CodexHook {
  event: string;
  label: string;
  group: number;
  command: string;
  timeout: number;
  key: string;
  hash: string;
}

export function codexHooks(
  text: string,
  path: string,
  command: (waits: boolean) => string,
  gate: boolean,
): CodexHook[] {
  return CODEX_EVENTS.filter((entry) => gate || entry.gateOnly !== true).map(({ event, label, waits }) => {
    const timeout = waits ? WAITING_HOOK_TIMEOUT_S : QUICK_HOOK_TIMEOUT_S;
    const line = command(waits);
    const group = existingGroups(text, event);
    return {
      event,
      label,
      group,
      command: line,
      timeout,
      key: `${path}:${label}:${group}:0`,
      hash: codexHookHash(label, line, timeout),
    };
  });
}

export function installCodex(
  text: string | null,
  path: string,
  command: (waits: boolean) => string,
  gate = false,
): string {
  const base = withoutBlock(text ?? '');
  for (const { event } of CODEX_EVENTS) {
    if (inlineEventArray(base, event)) {
      throw new Error(
        `${path} defines hooks.${event} inline (${event} = [...]); Runwarden appends [[hooks.${event}]] tables, which TOML cannot mix with an inline array. Move yours to [[hooks.${event}]] tables first; nothing was changed`,
      );
    }
  }
  const hooks = codexHooks(base, path, command, gate);
  const lines = [BLOCK_START];
  for (const hook of hooks) {
    lines.push(
      `[[hooks.${hook.event}]]`,
      `[[hooks.${hook.event}.hooks]]`,
      'type = "command"',
      `command = ${tomlString(hook.command)}`,
      `timeout = ${hook.timeout}`,
      '',
    );
  }
  for (const hook of hooks) {
    lines.push(`[hooks.state.${tomlString(hook.key)}]`, `trusted_hash = ${tomlString(hook.hash)}`, '');
  }
  lines.pop();
  lines.push(BLOCK_END);
  const separator = base === '' ? '' : base.endsWith('\n') ? '\n' : '\n\n';
  return `${base}${separator}${lines.join('\n')}\n`;
}

export function uninstallCodex(text: string | null, _path: string): string | null {
  if (text === null) return null;
  return withoutBlock(text);
}

/**
 * Installed or not, and what Codex would skip: a Runwarden hook whose recorded trust does not match the hash
 * of the hook as it stands (the file was edited, or moved, so Codex now sees another key or hash).
 */
export function codexStatus(
  text: string | null,
  path: string,
  command: (waits: boolean) => string,
): HookStatus {
  if (text === null || !text.includes(BLOCK_START)) return { installed: false, problems: [], events: [] };
  const start = text.indexOf(BLOCK_START);
  const block = text.slice(start, text.indexOf(BLOCK_END, start));
  const base = withoutBlock(text);
  const gate = block.includes('[[hooks.PreToolUse]]');
  const problems: string[] = [];
  const events: string[] = [];
  for (const hook of codexHooks(base, path, command, gate)) {
    if (!block.includes(`[[hooks.${hook.event}]]`)) continue;
    events.push(hook.event);
    const trust = new RegExp(
      `\\[hooks\\.state\\.${escapeRegExp(tomlString(hook.key))}\\]\\s*\\ntrusted_hash = "([^"]*)"`,
    ).exec(block);
    const commandLine = new RegExp(
      `\\[\\[hooks\\.${hook.event}\\.hooks\\]\\][^[]*?command = ("(?:[^"\\\\]|\\\\.)*")`,
    ).exec(block);
    const written = commandLine?.[1] === undefined ? null : (JSON.parse(commandLine[1]) as string);
    if (trust === null) {
      problems.push(
        `Codex skips the ${hook.event} hook: no trust is recorded for ${hook.key} (install again)`,
      );
    } else if (written !== null && trust[1] !== codexHookHash(hook.label, written, hook.timeout)) {
      problems.push(`Codex skips the ${hook.event} hook: it changed since it was trusted (install again)`);
    }
  }
  return { installed: events.length > 0, problems, events };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
