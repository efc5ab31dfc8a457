/**
 * pi has no permission prompts and no command hooks: an extension is its gate (docs/AGENTS.md#installing). Runwarden
 * writes one extension file into pi's extensions folder; it passes each event to `runwarden agents hook pi`
 * in the same JSON shape Claude Code's hooks send, and a tool call waits for the person's answer there. The
 * file is Runwarden's own, so uninstalling removes it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookStatus, Scope } from './hook-settings';
import { WAITING_LINE } from './hook-settings';

export const PI_EXTENSION_FILE = 'runwarden.ts';
export const PI_MARKER = '// Written by `runwarden agents install pi`';

export function piExtensionPath(
  scope: Scope,
  env: Record<string, string | undefined>,
  project: string,
  home: string,
): string {
  if (scope === 'project') return join(project, '.pi', 'extensions', PI_EXTENSION_FILE);
  const agentDir =
    env.PI_CODING_AGENT_DIR !== undefined && env.PI_CODING_AGENT_DIR !== ''
      ? env.PI_CODING_AGENT_DIR
      : join(home || homedir(), '.pi', 'agent');
  return join(agentDir, 'extensions', PI_EXTENSION_FILE);
}

/**
 * How the extension runs the hook: the launch's argv and variables; a failure to start is said once. A hook
 * that cannot start, fails, or says Runwarden is unavailable (no store) resolves UNAVAILABLE: pi then goes on
 * as it would without Runwarden (docs/AGENTS.md#never-blocking-the-agent).
 */
const CALL_SOURCE = `const UNAVAILABLE = { runwarden: "unavailable" };
let reported = false;
function report(error) {
  if (reported) return;
  reported = true;
  process.stderr.write("Runwarden: cannot start " + RUNWARDEN[0] + " (" + (error?.message ?? error) + "); pi runs without Runwarden. Run \`runwarden agents install pi\` again.\\n");
}

function call(payload, signal) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(RUNWARDEN[0], [...RUNWARDEN.slice(1), "agents", "hook", "pi", ...HOOK_ARGS], {
        env: { ...process.env, ...RUNWARDEN_ENV, RUNWARDEN_AGENT_PID: String(process.pid) },
        stdio: ["pipe", "pipe", "inherit"],
      });
    } catch (error) {
      report(error);
      resolve(UNAVAILABLE);
      return;
    }
    const stop = () => child.kill("SIGTERM");
    signal?.addEventListener("abort", stop, { once: true });
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stdin.on("error", () => {});
    child.on("error", (error) => {
      report(error);
      resolve(UNAVAILABLE);
    });
    child.on("close", (code) => {
      signal?.removeEventListener("abort", stop);
      if (signal?.aborted) return resolve(null);
      if (code !== 0) return resolve(UNAVAILABLE);
      try {
        resolve(out.trim() === "" ? null : JSON.parse(out));
      } catch {
        resolve(UNAVAILABLE);
      }
    });
    child.stdin.end(JSON.stringify(payload));
  });
}`;

/** The extension's source: plain JavaScript inside a .ts file (pi loads it as TypeScript), no imports beyond Node. */
export function piExtensionSource(
  cliArgv: readonly string[],
  hookArgs: readonly string[],
  cliEnv: Readonly<Record<string, string>> = {},
): string {
  return `${PI_MARKER}; \`runwarden agents uninstall pi\` removes it.
// Every pi session shows in Runwarden as a run; the tools that change things (bash, write, edit) ask a
// person there first, and pi's own confirmation takes over when nobody answers in time.
import { spawn } from "node:child_process";

const RUNWARDEN = ${JSON.stringify(cliArgv)};
const RUNWARDEN_ENV = ${JSON.stringify(cliEnv)};
const HOOK_ARGS = ${JSON.stringify(hookArgs)};
const GATED = new Set(["bash", "write", "edit"]);
const WAITING_LINE = ${JSON.stringify(WAITING_LINE)};

${CALL_SOURCE}
export default function (pi) {
  const base = (ctx, event) => ({
    hook_event_name: event,
    session_id: ctx.sessionManager.getSessionId(),
    cwd: ctx.cwd,
  });
  pi.on("session_start", async (_event, ctx) => {
    await call(base(ctx, "SessionStart"));
  });
  pi.on("before_agent_start", async (_event, ctx) => {
    await call(base(ctx, "UserPromptSubmit"));
  });
  pi.on("tool_call", async (event, ctx) => {
    if (!GATED.has(event.toolName)) return undefined;
    // The terminal says where the question waits while it does (docs/AGENTS.md#the-terminal-line).
    if (ctx.hasUI) ctx.ui.setStatus("runwarden", WAITING_LINE);
    let reply;
    try {
      reply = await call(
        { ...base(ctx, "PreToolUse"), tool_name: event.toolName, tool_input: event.input },
        ctx.signal,
      );
    } finally {
      if (ctx.hasUI) ctx.ui.setStatus("runwarden", undefined);
    }
    if (reply?.runwarden === "unavailable") return undefined;
    const decision = reply?.hookSpecificOutput?.permissionDecision;
    if (decision === "allow") return undefined;
    if (decision === "deny") return { block: true, reason: reply.hookSpecificOutput.permissionDecisionReason ?? "Denied in Runwarden" };
    if (ctx.hasUI) {
      const ok = await ctx.ui.confirm("Allow " + event.toolName + "?", JSON.stringify(event.input));
      return ok ? undefined : { block: true, reason: "Denied" };
    }
    return { block: true, reason: "Nobody answered in Runwarden" };
  });
  pi.on("tool_result", async (event, ctx) => {
    if (GATED.has(event.toolName)) await call({ ...base(ctx, "PostToolUse"), tool_name: event.toolName, tool_input: event.input });
  });
  pi.on("agent_end", async (_event, ctx) => {
    await call(base(ctx, "Stop"));
  });
  pi.on("session_shutdown", async (event, ctx) => {
    await call({ ...base(ctx, "SessionEnd"), reason: event.reason ?? "quit" });
  });
}
`;
}

export function piStatus(
  text: string | null,
  cliArgv: readonly string[],
  hookArgs: readonly string[],
  cliEnv: Readonly<Record<string, string>> = {},
): HookStatus {
  if (text === null || !text.startsWith(PI_MARKER)) return { installed: false, problems: [], events: [] };
  const problems: string[] = [];
  if (text !== piExtensionSource(cliArgv, hookArgs, cliEnv)) {
    problems.push('the extension was written by another Runwarden or edited since (install again)');
  }
  return {
    installed: true,
    problems,
    events: ['session_start', 'tool_call', 'tool_result', 'agent_end', 'session_shutdown'],
  };
}
