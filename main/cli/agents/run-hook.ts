/**
 * `runwarden agents hook AGENT`: what an agent's hooks run (docs/AGENTS.md#sessions-as-runs). One call per hook
 * event: it keeps the session's run up to date and, for a permission request (or Claude Code's
 * AskUserQuestion), asks a person and prints the agent's decision. It never blocks the agent on a fault: a
 * store that cannot be opened, a payload it cannot read or any error prints nothing on stdout (the agent
 * asks as usual), says why on stderr and exits 0.
 */
import { basename, join } from 'node:path';
import type { Interaction, InteractionField } from '../../../shared/domain';
import { isRunwardenError } from '../../../shared/errors';
import { fitText } from '../../../shared/text-caps';
import { sanitizeLine } from '../../../shared/terminal-text';
import type { CliContext } from '../command';
import { storePathOf } from '../command';
import { projectFolder } from '../project-path';
import { isProcessAlive, thisProcessAsAsker } from '../../store/process-identity';
import {
  AGENT_LABELS,
  openAgentSessionStore,
  WAITING_FOR_PROMPT,
  type AgentName,
  type AgentSessionInput,
  type AgentSessionStore,
  type SessionStep,
} from '../../store/agent-session-store';
import type { OwnerInfo } from '../../store';
import { runnerOwner } from '../../runner/owner-info';
import { agentOwner, namedAgentPid } from './agent-process';
import { codexClientOf, isCodexDaemon, nearestAgentAncestor } from './codex-session';
import { inClaudeTerms, MAX_PAYLOAD_BYTES, parseHookPayload, type HookPayload } from './hook-payload';
import {
  agentAnswers,
  agentQuestionForm,
  agentQuestions,
  agentQuestionTitle,
  askUserQuestionDecision,
} from './agent-question';
import {
  permissionDecision,
  DENY,
  geminiDecision,
  permissionQuestion,
  preToolUseDecision,
} from './permission-question';

const { closeSync, openSync, readFileSync } = process.getBuiltinModule('node:fs');

export interface HookOptions {
  agent: AgentName;
  storeFlag: string | undefined;
  /** How long a question waits for a person before the agent's own prompt takes over. */
  questionTimeoutMs: number;
  /** Codex `exec` and pi never send PermissionRequest: their PreToolUse is the gate. */
  gatePreToolUse: boolean;
  pollMs: number;
}

/** What the session shows under its title while it works. */
export const WORKING = 'Working';

export async function runHook(ctx: CliContext, options: HookOptions, stdinText?: string): Promise<number> {
  let sessionId: string | null = null;
  const say = (message: string): void => {
    // The pi extension reads this as "go on as without Runwarden" (Claude Code and Codex read no output so).
    if (options.agent === 'pi') ctx.rawStdout.write(`${JSON.stringify({ runwarden: 'unavailable' })}\n`);
    if (!firstTimeSaid(options.agent, sessionId, message)) return;
    ctx.stderr.write(
      `runwarden: ${sanitizeLine(message)}; ${AGENT_LABELS[options.agent]} goes on as usual (said once per session)\n`,
    );
  };
  let text: string;
  try {
    text = stdinText ?? readStdin();
  } catch (error) {
    say(`could not read the hook's input (${messageOf(error)})`);
    return 0;
  }
  const parsed = parseHookPayload(text);
  const payload = parsed === null ? null : inClaudeTerms(options.agent, parsed);
  if (payload === null) {
    say('the hook input is not the JSON object an agent sends (hook_event_name, session_id)');
    return 0;
  }
  sessionId = payload.sessionId;
  let store: AgentSessionStore;
  try {
    store = openAgentSessionStore(storePathOf(ctx, options.storeFlag), { quickCheck: false });
  } catch (error) {
    say(`the store cannot be opened: ${messageOf(error)}`);
    return 0;
  }
  ctx.defer(() => store.close());
  try {
    const decision = await handleEvent(ctx, store, options, payload);
    if (decision !== null) ctx.rawStdout.write(`${JSON.stringify(decision)}\n`);
  } catch (error) {
    say(messageOf(error));
  }
  return 0;
}

/**
 * Whether this fault is new for the session (docs/AGENTS.md#never-blocking-the-agent): a store that cannot be
 * reached fails every hook call, and a few lines on every turn say nothing more than the first. A small file
 * in the temporary folder, named by a hash of the agent, the session (else the agent's process) and the
 * message, records that it was said.
 */
function firstTimeSaid(agent: AgentName, sessionId: string | null, message: string): boolean {
  // Loaded only here: a hook that meets no fault never pays for them.
  const { createHash } = process.getBuiltinModule('node:crypto');
  const { tmpdir } = process.getBuiltinModule('node:os');
  const key = createHash('sha256')
    .update(`${agent}\0${sessionId ?? `ppid:${process.ppid}`}\0${message}`)
    .digest('hex')
    .slice(0, 32);
  try {
    closeSync(openSync(join(tmpdir(), `runwarden-said-${key}`), 'wx', 0o600));
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}

function readStdin(): string {
  const buffer = readFileSync(0);
  if (buffer.length > MAX_PAYLOAD_BYTES) throw new Error(`more than ${MAX_PAYLOAD_BYTES} bytes`);
  return buffer.toString('utf8');
}

function messageOf(error: unknown): string {
  if (isRunwardenError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function sessionInput(
  ctx: CliContext,
  agent: AgentName,
  payload: HookPayload,
  owner: OwnerInfo,
): AgentSessionInput {
  const projectPath = projectFolder(undefined, payload.cwd ?? ctx.cwd);
  return {
    agent,
    sessionId: payload.sessionId,
    projectPath,
    title: fitText(`${AGENT_LABELS[agent]} in ${basename(projectPath) || projectPath}`, 'title'),
    owner,
  };
}

/**
 * The process whose life is the session (docs/AGENTS.md#whose-life-is-the-session), and whether it is gone.
 * A hook run by Codex's shared daemon belongs to the terminal UI the session was first found under; a session
 * whose terminal UI is gone stays gone (the daemon may carry on without it, but nobody is there).
 */
function sessionOwner(
  ctx: CliContext,
  store: AgentSessionStore,
  agent: AgentName,
  payload: HookPayload,
): { owner: OwnerInfo; gone: boolean } {
  if (agent !== 'codex' || namedAgentPid(agent, ctx.env) !== null)
    return { owner: agentOwner(agent, ctx.env), gone: false };
  const near = nearestAgentAncestor();
  if (near === null || !isCodexDaemon(near.pid)) return { owner: agentOwner(agent, ctx.env), gone: false };
  const recorded = store.agentSessionOwner(agent, payload.sessionId);
  if (recorded !== null && recorded.pid !== near.pid) {
    const owner = { ...runnerOwner(agent, recorded.pid), startId: recorded.startId };
    return { owner, gone: !isProcessAlive(recorded.pid, recorded.startId) };
  }
  const client = codexClientOf(near.pid, payload.cwd, store.openAgentSessionPids(agent));
  return { owner: runnerOwner(agent, client ?? near.pid), gone: false };
}

/** A session whose agent process is gone: nobody can answer, so nothing it asks may go ahead. */
function goneDecision(options: HookOptions, payload: HookPayload): Record<string, unknown> | null {
  if (payload.event === 'PermissionRequest') return permissionDecision(payload, DENY, SESSION_GONE);
  if (payload.event === 'PreToolUse' && options.gatePreToolUse)
    return gateDecision(options.agent, DENY, SESSION_GONE);
  return null;
}

/**
 * A gate's (PreToolUse) answer in the agent's terms. Codex refuses a PreToolUse "allow" (its hook then counts
 * as failed): no decision lets the call go on. Gemini CLI's hooks cannot allow: its own prompt asks again.
 */
function gateDecision(agent: AgentName, answer: string | null, why?: string): Record<string, unknown> | null {
  if (answer === null || (answer !== DENY && agent === 'codex')) return null;
  if (agent === 'gemini') return geminiDecision(answer, why);
  return preToolUseDecision(answer, why);
}

const SESSION_GONE = 'The terminal this session was started from is gone, so nobody can answer.';

async function handleEvent(
  ctx: CliContext,
  store: AgentSessionStore,
  options: HookOptions,
  payload: HookPayload,
): Promise<Record<string, unknown> | null> {
  const { owner, gone } = sessionOwner(ctx, store, options.agent, payload);
  if (gone) return goneDecision(options, payload);
  const input = sessionInput(ctx, options.agent, payload, owner);
  const step = (s: SessionStep): null => {
    store.agentSession(input, s);
    return null;
  };
  switch (payload.event) {
    case 'SessionStart':
      // A session starts waiting for its first prompt (UserPromptSubmit says when it works).
      return step({ kind: 'activity', detail: WAITING_FOR_PROMPT });
    case 'UserPromptSubmit':
      return step({ kind: 'activity', detail: WORKING, withdraw: 'asker_interrupted' });
    case 'PostToolUse':
    case 'PostToolUseFailure':
      // The call ran (or failed) after the person answered in the terminal: its question only, since
      // the agent may be asking about other calls at the same time.
      return step({
        kind: 'activity',
        detail: WORKING,
        withdraw: 'asker_interrupted',
        onlyTitle: () =>
          payload.toolName === 'AskUserQuestion'
            ? agentQuestionTitle(options.agent, agentQuestions(payload))
            : permissionQuestion(options.agent, payload, input.projectPath).title,
      });
    case 'Stop':
      return step({ kind: 'activity', detail: WAITING_FOR_PROMPT, withdraw: 'asker_interrupted' });
    case 'SessionEnd':
      return step({ kind: 'end', reason: payload.reason ?? 'ended' });
    case 'PermissionRequest': {
      const answer = await askPermission(ctx, store, options, input, payload);
      // An answer that came as the session's agent went away is never acted on.
      if (!ownerAlive(input)) return goneDecision(options, payload);
      return answer === null ? null : permissionDecision(payload, answer);
    }
    case 'PreToolUse':
      if (payload.toolName === 'AskUserQuestion') return askUserQuestion(ctx, store, options, input, payload);
      if (options.gatePreToolUse) {
        const answer = await askPermission(ctx, store, options, input, payload);
        if (!ownerAlive(input)) return goneDecision(options, payload);
        return gateDecision(options.agent, answer);
      }
      return step({ kind: 'activity', detail: WORKING });
    default:
      return step({ kind: 'touch' });
  }
}

function ownerAlive(input: AgentSessionInput): boolean {
  return isProcessAlive(input.owner.pid, input.owner.startId ?? null);
}

async function askPermission(
  ctx: CliContext,
  store: AgentSessionStore,
  options: HookOptions,
  input: AgentSessionInput,
  payload: HookPayload,
): Promise<string | null> {
  const question = permissionQuestion(options.agent, payload, input.projectPath);
  const answer = await ask(ctx, store, options, input, { kind: 'decision', ...question });
  return answer !== null && typeof answer.response === 'string' ? answer.response : null;
}

/** Claude Code's AskUserQuestion: all of the call's questions as one form, answered at once. */
async function askUserQuestion(
  ctx: CliContext,
  store: AgentSessionStore,
  options: HookOptions,
  input: AgentSessionInput,
  payload: HookPayload,
): Promise<Record<string, unknown> | null> {
  const questions = agentQuestions(payload);
  if (questions.length === 0) return null;
  const form = agentQuestionForm(options.agent, questions, input.projectPath);
  const answer = await ask(ctx, store, options, input, {
    kind: 'input',
    title: form.title,
    prompt: form.prompt,
    fields: form.fields.map(({ field }) => field),
  });
  if (answer === null || !ownerAlive(input)) return null;
  const answers = agentAnswers(form, answer.response);
  return answers === null ? null : askUserQuestionDecision(payload, answers);
}

type HookQuestion =
  | { kind: 'decision'; title: string; prompt: string; choices: string[] }
  | { kind: 'input'; title: string; prompt: string; fields: InteractionField[] };

/**
 * Asks one question under the session's claim and waits: the answer, or null when it expired (the deadline
 * hands back to the agent's own prompt), was withdrawn (answered in the terminal), the hook was stopped
 * (the agent's hook timeout, Ctrl-C) or the agent process is gone.
 */
async function ask(
  ctx: CliContext,
  store: AgentSessionStore,
  options: HookOptions,
  input: AgentSessionInput,
  question: HookQuestion,
): Promise<{ response: unknown } | null> {
  const deadlineAt = ctx.now() + options.questionTimeoutMs;
  // This hook process waits for the answer: once it is gone, the sweeper withdraws the question too.
  const { claim, interaction } = store.askAgentQuestion(input, {
    ...question,
    deadlineAt,
    hasDefault: false,
    asker: thisProcessAsAsker(),
  });
  const actor = { type: 'runner' as const, id: input.owner.ownerId, surface: 'cli' as const };
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  try {
    for (;;) {
      if (controller.signal.aborted) {
        store.withdrawAgentQuestions(claim, 'asker_interrupted');
        return null;
      }
      let current: Interaction = store.getInteraction(interaction.id);
      if (current.status === 'pending' || current.status === 'presenting') {
        if (store.now() >= deadlineAt) {
          store.expireAgentQuestionIfDue(interaction.id, actor);
          current = store.getInteraction(interaction.id);
        } else if (!ownerAlive(input)) {
          store.withdrawAgentQuestions(claim, 'asker_gone');
          return null;
        }
      }
      switch (current.status) {
        case 'settled':
          store.resumeAgentSession(claim);
          return { response: current.response };
        case 'expired':
          store.resumeAgentSession(claim);
          ctx.stderr.write(
            `runwarden: nobody answered "${sanitizeLine(question.title)}" in Runwarden in time; ${AGENT_LABELS[options.agent]} asks you itself\n`,
          );
          return null;
        case 'cancelled':
          return null;
        case 'pending':
        case 'presenting':
          break;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        controller.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}
