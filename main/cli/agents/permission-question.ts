/**
 * A permission request as a Runwarden question, and the person's answer as the agent's own JSON
 * (docs/AGENTS.md#permission-requests). The question shows the tool, the exact command or file, the agent's
 * stated reason and the project, sanitised and never run by Runwarden; the choices are allow and deny, and
 * allow-always where the agent offered a rule to remember.
 */
import { fitText } from '../../../shared/text-caps';
import { sanitizeLine, sanitizeText } from '../../../shared/terminal-text';
import type { AgentName } from '../../store/agent-sessions';
import { AGENT_LABELS } from '../../store/agent-sessions';
import type { HookPayload } from './hook-payload';

export const ALLOW = 'allow';
export const DENY = 'deny';
export const ALLOW_ALWAYS = 'allow-always';
const PERSON_DENIED = 'A person denied this in Runwarden.';

export interface PermissionQuestion {
  title: string;
  prompt: string;
  choices: string[];
}

/** The text of a tool input worth showing: the command, the file, or the input as JSON. */
function whatItDoes(payload: HookPayload): { label: string; text: string } {
  const input = payload.toolInput;
  if (typeof input.command === 'string') return { label: 'Command', text: input.command };
  if (Array.isArray(input.command)) return { label: 'Command', text: input.command.map(String).join(' ') };
  if (typeof input.cmd === 'string') return { label: 'Command', text: input.cmd };
  for (const key of ['file_path', 'path', 'notebook_path']) {
    const value = input[key];
    if (typeof value === 'string') return { label: 'File', text: value };
  }
  if (typeof input.url === 'string') return { label: 'URL', text: input.url };
  return { label: 'Input', text: JSON.stringify(input) };
}

export function permissionQuestion(
  agent: AgentName,
  payload: HookPayload,
  projectPath: string,
): PermissionQuestion {
  const tool = sanitizeLine(payload.toolName ?? 'a tool');
  const { label, text } = whatItDoes(payload);
  const isCommand = label === 'Command';
  const title = fitText(
    isCommand
      ? `${AGENT_LABELS[agent]} wants to run: ${sanitizeLine(text)}`
      : `${AGENT_LABELS[agent]} wants to use ${tool}${label === 'File' ? ` on ${sanitizeLine(text)}` : ''}`,
    'title',
  );
  const description = payload.toolInput.description ?? payload.toolInput.justification ?? payload.reason;
  // The command or file as code (a fenced block in the prompt's markdown), never as body text.
  const lines = [`Tool: ${tool}`, `${label}:`, codeBlock(sanitizeText(text))];
  if (typeof description === 'string' && description !== '')
    lines.push('', `Reason: ${sanitizeText(description)}`);
  lines.push('', `Project: ${sanitizeLine(projectPath)}`);
  const choices = [ALLOW, DENY];
  // Codex sends no suggestions and refuses updatedPermissions (docs/AGENTS.md#permission-requests).
  const always = agent === 'codex' ? [] : rememberedRules(payload);
  if (always.length > 0) {
    choices.push(ALLOW_ALWAYS);
    lines.push('', `${ALLOW_ALWAYS} also:`, ...always.map((rule) => `- ${describeRule(rule)}`));
  }
  // A mode change is its own choice, saying what it switches: never folded into allow-always.
  for (const change of agent === 'codex' ? [] : modeChanges(payload)) {
    choices.push(change.choice);
    lines.push('', `${change.choice}: ${change.words}`);
  }
  return { title, prompt: fitText(lines.join('\n'), 'prompt'), choices };
}

/** `text` as a fenced code block, its fence longer than any run of backticks inside it. */
function codeBlock(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}

/** What each mode Claude Code may suggest does to the session, in words. */
const MODE_WORDS: Record<string, string> = {
  acceptEdits: 'Claude Code then makes file edits without asking',
  bypassPermissions: 'Claude Code then asks about nothing at all',
  plan: 'Claude Code then only plans and changes nothing',
  default: 'Claude Code then asks as usual',
  dontAsk: 'Claude Code then refuses whatever it would have asked about',
};

export interface ModeChange {
  /** The choice that allows this call and switches the mode: `allow-and-switch-to-<mode>`. */
  choice: string;
  words: string;
  suggestion: Record<string, unknown>;
}

/**
 * The mode changes the agent suggested (Claude Code's `setMode`), each offered as its own explicit choice:
 * allow this call and switch the whole session to that mode, said in words before anyone picks it.
 */
export function modeChanges(payload: HookPayload): ModeChange[] {
  const out: ModeChange[] = [];
  for (const rule of payload.suggestions) {
    if (rule === null || typeof rule !== 'object') continue;
    const { type, mode, destination } = rule as Record<string, unknown>;
    if (type !== 'setMode' || typeof mode !== 'string' || !/^[A-Za-z]{1,40}$/.test(mode)) continue;
    const choice = `allow-and-switch-to-${mode}`;
    if (out.some((change) => change.choice === choice)) continue;
    const where = typeof destination === 'string' ? ` (${sanitizeLine(destination)})` : '';
    const then = MODE_WORDS[mode] ?? `Claude Code then works in its ${mode} mode`;
    out.push({
      choice,
      words: `allow this call and switch the whole session to ${mode} mode${where}: ${then}.`,
      suggestion: rule as Record<string, unknown>,
    });
  }
  return out;
}

/**
 * The rules `allow-always` passes back (`updatedPermissions`): the agent's suggestions, except a change of
 * mode (Claude Code's `setMode`, e.g. acceptEdits), which would switch the whole session and is never a side
 * effect of allowing one call.
 */
export function rememberedRules(payload: HookPayload): Array<Record<string, unknown>> {
  return payload.suggestions.filter(
    (rule): rule is Record<string, unknown> =>
      rule !== null && typeof rule === 'object' && (rule as { type?: unknown }).type !== 'setMode',
  );
}

/** One remembered rule in words, as the question shows it before anyone picks allow-always. */
export function describeRule(rule: Record<string, unknown>): string {
  const where = typeof rule.destination === 'string' ? ` (${sanitizeLine(rule.destination)})` : '';
  const list = (value: unknown): string =>
    Array.isArray(value) ? value.map((item) => sanitizeLine(ruleText(item))).join(', ') : '';
  switch (rule.type) {
    case 'addRules':
    case 'replaceRules':
      return `${rule.behavior === 'deny' ? 'deny' : 'allow'} from now on: ${list(rule.rules)}${where}`;
    case 'addDirectories':
      return `add working directories: ${list(rule.directories)}${where}`;
    case 'removeDirectories':
      return `remove working directories: ${list(rule.directories)}${where}`;
    default:
      return `${sanitizeLine(JSON.stringify(rule))}`;
  }
}

function ruleText(item: unknown): string {
  if (typeof item === 'string') return item;
  if (item !== null && typeof item === 'object') {
    const { toolName, ruleContent } = item as { toolName?: unknown; ruleContent?: unknown };
    if (typeof toolName === 'string')
      return typeof ruleContent === 'string' ? `${toolName}(${ruleContent})` : toolName;
  }
  return JSON.stringify(item);
}

/** Claude Code's and Codex's PermissionRequest decision for an answer. */
export function permissionDecision(
  payload: HookPayload,
  answer: string,
  why = PERSON_DENIED,
): Record<string, unknown> {
  const decision: Record<string, unknown> =
    answer === DENY ? { behavior: 'deny', message: why } : { behavior: 'allow' };
  const always = rememberedRules(payload);
  if (answer === ALLOW_ALWAYS && always.length > 0) decision.updatedPermissions = always;
  // The person picked the mode change itself: that one suggestion, nothing else.
  const change = modeChanges(payload).find((c) => c.choice === answer);
  if (change !== undefined) decision.updatedPermissions = [change.suggestion];
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/** The same decision through PreToolUse (Codex's `exec`, pi): allow or deny with the person's reason. */
export function preToolUseDecision(answer: string, why = PERSON_DENIED): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: answer === DENY ? 'deny' : 'allow',
      permissionDecisionReason: answer === DENY ? why : 'A person allowed this in Runwarden.',
    },
  };
}

/**
 * Gemini CLI's `BeforeTool` answer: its hooks can refuse a call (`decision: "deny"`) but not allow one, since
 * Gemini's own policy decides that. An allow therefore says so, in a line Gemini shows: the call goes on to
 * Gemini's own confirmation, which asks again in its terminal unless its policy allows the call.
 */
export function geminiDecision(answer: string, why = PERSON_DENIED): Record<string, unknown> {
  if (answer === DENY) return { decision: 'deny', reason: why };
  return {
    systemMessage:
      "Allowed in Runwarden. Gemini CLI's hooks can refuse a tool call but not allow one: Gemini CLI asks again here unless its own settings allow the call.",
  };
}
