/**
 * Hooks in a JSON settings file of Claude Code's shape (docs/AGENTS.md#installing), shared by Claude Code,
 * Qwen Code and Gemini CLI: `"hooks": {Event: [{matcher, hooks: [{type: "command", command, timeout}]}]}`.
 * Runwarden adds one matcher group per event it listens to, after the person's own, and finds its groups
 * again by their command (`agents hook AGENT`). Each agent gives its events, the unit of its timeouts and
 * whether its file may hold comments (JSONC). The file is changed in place (jsonc-parser's `modify`): every
 * other byte — comments, key order, indentation, line ends — stays as it was.
 */
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parse,
  parseTree,
  printParseErrorCode,
  type Node,
  type ParseError,
} from 'jsonc-parser';
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
  /**
   * Whether the agent reads its settings as JSON with comments and trailing commas (Qwen Code, Gemini CLI).
   * Claude Code does not: it refuses such a file ("Invalid or malformed JSON") and runs none of its hooks,
   * so a comment there is refused here too.
   */
  comments: boolean;
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

export function parseSettings(text: string | null, path: string, comments = false): Json {
  if (text === null || text.trim() === '') return {};
  let value: unknown;
  if (comments) {
    const errors: ParseError[] = [];
    value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
    const [first] = errors;
    if (first !== undefined) {
      const { line, column } = lineAndColumn(text, first.offset);
      throw notParsable(
        path,
        'JSON',
        new Error(`${printParseErrorCode(first.error)} at line ${line} column ${column}`),
      );
    }
  } else {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw notParsable(path, 'JSON', error);
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${path} does not hold a JSON object; nothing was changed`);
  }
  return value as Json;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** The indentation the file uses (two spaces when it cannot be told). */
function indentOf(text: string | null): string | number {
  const match = text === null ? null : /\n([ \t]+)"/.exec(text);
  return match?.[1] ?? 2;
}

/** The file's line end and one level of its indentation. */
function layoutOf(text: string): { eol: string; unit: string } {
  const indent = indentOf(text);
  return {
    eol: text.includes('\r\n') ? '\r\n' : '\n',
    unit: typeof indent === 'number' ? ' '.repeat(indent) : indent,
  };
}

/** The leading white space of the line `offset` lies on. */
function lineIndent(text: string, offset: number): string {
  const start = Math.max(text.lastIndexOf('\n', offset - 1) + 1, 0);
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? '';
}

/** `value` as JSON laid out like the file, its first line at `indent`. */
function laidOut(value: unknown, indent: string, layout: { eol: string; unit: string }): string {
  return JSON.stringify(value, null, layout.unit).split('\n').join(`${layout.eol}${indent}`);
}

/**
 * Adds `value` at the end of the array, or as the object's last property `key`, at `path`: one insertion
 * after its last element in the file's own layout, so no other byte moves (jsonc-parser's formatter would
 * lay out the element before it again).
 */
function appended(text: string, path: Array<string | number>, value: unknown, key?: string): string {
  const layout = layoutOf(text);
  const node = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true }) as Node, path);
  if (node === undefined) throw new Error(`no ${path.join('.')} in the file`);
  const entry = (indent: string): string =>
    `${key === undefined ? '' : `${JSON.stringify(key)}: `}${laidOut(value, indent, layout)}`;
  const last = node.children?.at(-1);
  let offset: number;
  let content: string;
  if (last === undefined) {
    const outer = lineIndent(text, node.offset);
    offset = node.offset + 1;
    content = `${layout.eol}${outer}${layout.unit}${entry(outer + layout.unit)}${layout.eol}${outer}`;
  } else {
    const indent = lineIndent(text, last.offset);
    offset = last.offset + last.length;
    content = `,${layout.eol}${indent}${entry(indent)}`;
  }
  return applyEdits(text, [{ offset, length: 0, content }]);
}

/**
 * Removes what `path` names with the comma and space that joined it to its neighbour, and nothing else: the
 * undoing of `appended` (jsonc-parser's own removal also takes the white space before a closing bracket).
 */
function removed(text: string, path: Array<string | number>): string {
  const node = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true }) as Node, path);
  // A property is its key and value together; an element is itself.
  const target = typeof path.at(-1) === 'string' ? node?.parent : node;
  const siblings = target?.parent?.children;
  if (target === undefined || siblings === undefined) return text;
  const at = siblings.indexOf(target);
  const before = siblings[at - 1];
  const after = siblings[at + 1];
  const container = target.parent as Node;
  const [from, to] =
    after !== undefined
      ? [target.offset, after.offset]
      : before !== undefined
        ? [before.offset + before.length, target.offset + target.length]
        : [container.offset + 1, container.offset + container.length - 1];
  return text.slice(0, from) + text.slice(to);
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

/**
 * The file without Runwarden's groups, edited in place: an event whose groups were all Runwarden's goes, and
 * so does `hooks` once nothing is left in it.
 */
function withoutOursText(text: string, settings: Json, agent: string): string {
  const hooks = settings.hooks;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) return text;
  let next = text;
  let anyRemoved = false;
  const events = Object.entries(hooks as Json);
  let left = events.length;
  for (const [event, groups] of events) {
    if (!Array.isArray(groups)) continue;
    const ours = groups.flatMap((group, index) => (isOurGroup(group, agent) ? [index] : []));
    if (ours.length === 0) continue;
    anyRemoved = true;
    if (ours.length === groups.length) {
      next = removed(next, ['hooks', event]);
      left -= 1;
    } else {
      for (const index of ours.toReversed()) next = removed(next, ['hooks', event, index]);
    }
  }
  return anyRemoved && left === 0 ? removed(next, ['hooks']) : next;
}

function ourGroup(spec: HookSettingsSpec, event: HookEvent, command: (waits: boolean) => string): Json {
  const scale = spec.timeoutUnit === 'ms' ? 1000 : 1;
  return {
    ...(event.matcher === undefined ? {} : { matcher: event.matcher }),
    hooks: [
      {
        type: 'command',
        command: command(event.waits),
        timeout: (event.waits ? WAITING_HOOK_TIMEOUT_S : QUICK_HOOK_TIMEOUT_S) * scale,
        ...(event.line === undefined ? {} : { [spec.lineField]: event.line }),
      },
    ],
  };
}

export function installHookSettings(
  spec: HookSettingsSpec,
  text: string | null,
  path: string,
  command: (waits: boolean) => string,
): string {
  const settings = parseSettings(text, path, spec.comments);
  if (text === null || text.trim() === '') {
    const hooks = Object.fromEntries(
      spec.events.map((event) => [event.event, [ourGroup(spec, event, command)]]),
    );
    return `${JSON.stringify({ hooks }, null, 2)}\n`;
  }
  let next = withoutOursText(text, settings, spec.agent);
  const kept = parseSettings(next, path, spec.comments).hooks;
  const hooks = kept !== null && typeof kept === 'object' && !Array.isArray(kept) ? (kept as Json) : null;
  for (const event of spec.events) {
    const group = ourGroup(spec, event, command);
    if (hooks === null && event === spec.events[0]) {
      next = appended(next, [], { [event.event]: [group] }, 'hooks');
    } else if (Array.isArray(hooks?.[event.event])) {
      next = appended(next, ['hooks', event.event], group);
    } else if (hooks !== null && event.event in hooks) {
      // Not a list of groups: the agent could not read it either; ours replaces it.
      next = applyEdits(next, modify(next, ['hooks', event.event], [group], {}));
    } else {
      next = appended(next, ['hooks'], [group], event.event);
    }
  }
  return next;
}

export function uninstallHookSettings(
  spec: HookSettingsSpec,
  text: string | null,
  path: string,
): string | null {
  if (text === null) return null;
  return withoutOursText(text, parseSettings(text, path, spec.comments), spec.agent);
}

export function hookSettingsStatus(spec: HookSettingsSpec, text: string | null, path: string): HookStatus {
  const settings = parseSettings(text, path, spec.comments);
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
