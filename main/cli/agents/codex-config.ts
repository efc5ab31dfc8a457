/**
 * Codex's hooks in its config.toml (docs/AGENTS.md#installing): `[[hooks.Event]]` matcher groups with
 * `[[hooks.Event.hooks]]` command handlers. Codex runs a hook from the person's config only once it is
 * trusted: `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:…"`, the hash of the
 * hook's normalised identity, as Codex's own `/hooks` records it. Runwarden writes its hooks and their trust
 * as one marked block at the end of the file, so uninstalling removes exactly that block.
 */
import { createHash } from 'node:crypto';
import { parse as parseToml } from 'smol-toml';
import { notParsable } from './config-file';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { HookStatus, Scope } from './hook-settings';
import { QUICK_HOOK_TIMEOUT_S, WAITING_HOOK_TIMEOUT_S } from './hook-settings';

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

const HEADER =
  /^\s*\[\[?\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*")(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"))*\s*\]\]?\s*(?:#.*)?$/;
/** What every Runwarden hook command holds, wherever Node or the CLI lives. */
const OUR_COMMAND = /^\s*command\s*=\s*".* agents hook codex(?:\s|")/;

/**
 * The file without Runwarden's entries, found by what they are, not by where they sit: Codex rewrites its
 * config and appends its own tables (`[tui]`) at the end, which can land inside the marked block, so only
 * Runwarden's own lines go — its `[[hooks.Event]]` groups (their command runs `agents hook codex`), their
 * `[hooks.state."…"]` trust, the two marker comments and the blank line before the first. Every other line stays.
 */
export function withoutOurs(text: string): string {
  return splitOurs(text).base;
}

/** The file split into the person's (and Codex's) lines and Runwarden's own. */
function splitOurs(text: string): { base: string; ours: string } {
  const endsWithNewline = text.endsWith('\n');
  const lines = (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  const ours = lines.map(() => false);
  const headers = lines.flatMap((line, at) => (HEADER.test(line) ? [at] : []));
  const chunkEnd = (k: number): number => headers[k + 1] ?? lines.length;
  const groups = new Map<string, number>();
  const ourGroups = new Set<string>();
  for (let k = 0; k < headers.length; k += 1) {
    const group = /^\s*\[\[\s*hooks\s*\.\s*"?(\w+)"?\s*\]\]/.exec(lines[headers[k] ?? 0] ?? '');
    if (group === null) continue;
    const event = group[1] ?? '';
    const index = groups.get(event) ?? 0;
    groups.set(event, index + 1);
    const next = headers[k + 1];
    if (next === undefined) continue;
    const handler = new RegExp(`^\\s*\\[\\[\\s*hooks\\s*\\.\\s*"?${event}"?\\s*\\.\\s*hooks\\s*\\]\\]`);
    if (!handler.test(lines[next] ?? '')) continue;
    if (!lines.slice(next, chunkEnd(k + 1)).some((line) => OUR_COMMAND.test(line))) continue;
    ours.fill(true, headers[k], chunkEnd(k + 1));
    const label = CODEX_EVENTS.find((entry) => entry.event === event)?.label ?? event;
    ourGroups.add(`${label}:${index}`);
  }
  for (let k = 0; k < headers.length; k += 1) {
    const state = /^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*")\s*\]/.exec(
      lines[headers[k] ?? 0] ?? '',
    );
    if (state === null) continue;
    const key = JSON.parse(state[1] ?? '""') as string;
    const parts = key.split(':');
    if (ourGroups.has(`${parts.at(-3)}:${parts.at(-2)}`)) ours.fill(true, headers[k], chunkEnd(k));
  }
  lines.forEach((line, at) => {
    if (line !== BLOCK_START && line !== BLOCK_END) return;
    ours[at] = true;
    // The block was appended after one blank separator line, which goes with it.
    if (line === BLOCK_START && at > 0 && lines[at - 1]?.trim() === '') ours[at - 1] = true;
  });
  const kept = lines.filter((_, at) => !ours[at]);
  if (kept.length === lines.length) return { base: text, ours: '' };
  const out = kept.join('\n');
  return {
    base: out === '' ? '' : endsWithNewline ? `${out}\n` : out,
    ours: lines.filter((_, at) => ours[at]).join('\n'),
  };
}

/** Refuses a config.toml that is not valid TOML, in the words every agent's installer uses. */
function checkToml(text: string | null, path: string): void {
  if (text === null || text.trim() === '') return;
  try {
    parseToml(text);
  } catch (error) {
    throw notParsable(path, 'TOML', error);
  }
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
  checkToml(text, path);
  const base = withoutOurs(text ?? '');
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
  return withoutOurs(text);
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
  if (text === null) return { installed: false, problems: [], events: [] };
  // Runwarden's lines, wherever Codex moved them to.
  const { base, ours: block } = splitOurs(text);
  if (block === '') return { installed: false, problems: [], events: [] };
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
