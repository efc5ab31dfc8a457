/**
 * The options of `runwarden agents hook AGENT`, read the same way by the `agents` command and by the hook's
 * own entry (hook-entry.ts), which starts without the rest of the CLI (docs/CLI.md#start-up).
 */
import { AGENT_NAMES, type AgentName } from '../../store/agent-sessions';
import { parseIntegerFlag, RANGES } from '../limits';
import { parseDuration } from '../output';
import { sanitizeLine } from '../sanitize';
import { UsageError } from '../usage-error';
import type { HookOptions } from './run-hook';

export const AGENT_LIST = 'claude-code, codex, pi, qwen-code, gemini or opencode';

/** How long a question waits by default: shorter than the hook's own timeout (600 s), so the hook hands back in time. */
export const DEFAULT_QUESTION_TIMEOUT_MS = 570_000;

export function parseAgent(value: string): AgentName {
  if ((AGENT_NAMES as readonly string[]).includes(value)) return value as AgentName;
  throw new UsageError(`unknown agent "${sanitizeLine(value).slice(0, 40)}": ${AGENT_LIST}`);
}

/** The question's deadline: below the hook's 600 s timeout with room to hand back. */
export function questionTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_QUESTION_TIMEOUT_MS;
  const ms = parseDuration(value);
  if (ms === null || ms < 1000 || ms > 590_000) {
    throw new UsageError(
      `--question-timeout must be a duration from 1s to 590s, got "${sanitizeLine(value).slice(0, 40)}"`,
    );
  }
  return ms;
}

type HookValues = { store?: string; 'question-timeout'?: string; gate?: boolean; 'poll-ms'?: string };

/** What the hook runs with; a bad value is a UsageError. */
export function hookOptions(agent: AgentName, values: HookValues): HookOptions {
  return {
    agent,
    storeFlag: values.store,
    questionTimeoutMs: questionTimeout(values['question-timeout']),
    // Codex `exec` is gated only when installed with --gate; pi and Gemini CLI always are.
    gatePreToolUse: values.gate === true || agent === 'pi' || agent === 'gemini',
    pollMs: parseIntegerFlag(values['poll-ms'], 'poll-ms', RANGES.pollMs) ?? 200,
  };
}

const VALUED = new Set(['store', 'question-timeout', 'poll-ms']);

/**
 * The hook's options from `agents hook AGENT …` as the installers write it, or null when the whole CLI should
 * answer instead: anything else (--help, another option, an option twice, a value that starts with "-", a
 * bad value) is the CLI's, which parses strictly and words the error. Read by hand: node:util's parseArgs
 * costs a start-up more than the hook's whole argument list does.
 */
export function fastHookOptions(argv: readonly string[]): HookOptions | null {
  if (argv[0] !== 'agents' || argv[1] !== 'hook') return null;
  const values: HookValues = {};
  const positionals: string[] = [];
  for (let i = 2; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (!arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') ? arg.slice(2, eq === -1 ? undefined : eq) : '';
    if (name in values) return null;
    if (name === 'gate' && eq === -1) {
      values.gate = true;
      continue;
    }
    if (!VALUED.has(name)) return null;
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq === -1 && value.startsWith('-'))) return null;
    values[name as 'store' | 'question-timeout' | 'poll-ms'] = value;
  }
  const [agent, ...rest] = positionals;
  // An empty --store is a usage error the CLI words.
  if (agent === undefined || rest.length > 0 || values.store?.trim() === '') return null;
  try {
    return hookOptions(parseAgent(agent), values);
  } catch {
    return null;
  }
}
