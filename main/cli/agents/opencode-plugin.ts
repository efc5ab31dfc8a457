/**
 * OpenCode has no command hooks: a plugin is its gate (docs/AGENTS.md#installing). Runwarden writes one plugin
 * file into OpenCode's plugin folder; it runs inside OpenCode's own process, passes the session's events to
 * `runwarden agents hook opencode` in the JSON shape Claude Code's hooks send, answers a `permission.asked`
 * through OpenCode's own API once a person answered in Runwarden, and withdraws the question when OpenCode says
 * it was answered elsewhere (`permission.replied`). The file is Runwarden's own, so uninstalling removes it.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookStatus, Scope } from './hook-settings';

export const OPENCODE_PLUGIN_FILE = 'runwarden.js';
export const OPENCODE_MARKER = '// Written by `runwarden agents install opencode`';

/** `$XDG_CONFIG_HOME/opencode/plugin/runwarden.js`, else `~/.config/opencode/plugin/…`; a project's `.opencode/plugin/…`. */
export function opencodePluginPath(
  scope: Scope,
  env: Record<string, string | undefined>,
  project: string,
  home: string,
): string {
  if (scope === 'project') return join(project, '.opencode', 'plugin', OPENCODE_PLUGIN_FILE);
  const config =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(home || homedir(), '.config');
  return join(config, 'opencode', 'plugin', OPENCODE_PLUGIN_FILE);
}

/**
 * How the plugin runs the hook: the launch's argv and variables, this OpenCode process named as the session's
 * (`RUNWARDEN_AGENT_PID`). A hook that cannot start or fails resolves null: OpenCode's own prompt stays, as
 * without Runwarden; what the hook says on stderr goes to OpenCode's log, not over its terminal.
 */
const CALL_SOURCE = `function call(client, payload, waiting) {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let child;
    try {
      child = spawn(RUNWARDEN[0], [...RUNWARDEN.slice(1), "agents", "hook", "opencode", ...HOOK_ARGS], {
        env: { ...process.env, ...RUNWARDEN_ENV, RUNWARDEN_AGENT_PID: String(process.pid) },
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      err = "Runwarden: cannot start " + RUNWARDEN[0] + " (" + (error?.message ?? error) + ")";
    }
    const done = (value) => {
      if (err.trim() !== "") log(client, err.trim());
      resolve(value);
    };
    if (child === undefined) return done(null);
    waiting?.(child);
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.stdin.on("error", () => {});
    child.on("error", (error) => {
      err += "Runwarden: cannot start " + RUNWARDEN[0] + " (" + (error?.message ?? error) + ")";
    });
    child.on("close", (code) => {
      if (code !== 0 || out.trim() === "") return done(null);
      try {
        done(JSON.parse(out));
      } catch {
        done(null);
      }
    });
    child.stdin.end(JSON.stringify(payload));
  });
}

function log(client, message) {
  client.app?.log?.({ body: { service: "runwarden", level: "warn", message } })?.catch?.(() => {});
}`;

/** The plugin's source: plain JavaScript (OpenCode loads it with Bun), no imports beyond Node's. */
export function opencodePluginSource(
  cliArgv: readonly string[],
  hookArgs: readonly string[],
  cliEnv: Readonly<Record<string, string>> = {},
): string {
  return `${OPENCODE_MARKER}; \`runwarden agents uninstall opencode\` removes it.
// Every OpenCode session shows in Runwarden as a run; what OpenCode asks permission for is a question there,
// answered through OpenCode's API; answering in OpenCode instead withdraws it.
import { spawn } from "node:child_process";

const RUNWARDEN = ${JSON.stringify(cliArgv)};
const RUNWARDEN_ENV = ${JSON.stringify(cliEnv)};
const HOOK_ARGS = ${JSON.stringify(hookArgs)};

${CALL_SOURCE}

/** OpenCode's permission request as Claude Code's PermissionRequest payload. */
function permissionPayload(base, asked) {
  const metadata = asked.metadata ?? {};
  const input = { ...metadata };
  if (asked.permission === "bash" && typeof input.command !== "string") input.command = (asked.patterns ?? []).join(" ");
  if (typeof metadata.filepath === "string") input.file_path = metadata.filepath;
  const always = Array.isArray(asked.always) ? asked.always : [];
  return {
    ...base,
    hook_event_name: "PermissionRequest",
    tool_name: asked.permission,
    tool_input: input,
    permission_suggestions: always.length === 0 ? [] : [
      { type: "addRules", behavior: "allow", destination: "session", rules: always.map((pattern) => ({ toolName: asked.permission, ruleContent: pattern })) },
    ],
  };
}

export const Runwarden = async ({ client, directory }) => {
  const waiting = new Map();
  const busy = new Set();
  const base = (sessionID, event) => ({ hook_event_name: event, session_id: sessionID, cwd: directory });
  async function ask(asked) {
    const reply = await call(client, permissionPayload(base(asked.sessionID, ""), asked), (child) => waiting.set(asked.id, child));
    waiting.delete(asked.id);
    const decision = reply?.hookSpecificOutput?.decision;
    if (decision?.behavior !== "allow" && decision?.behavior !== "deny") return;
    const response = decision.behavior === "deny" ? "reject" : decision.updatedPermissions ? "always" : "once";
    await client.postSessionIdPermissionsPermissionId({
      path: { id: asked.sessionID, permissionID: asked.id },
      body: { response },
    }).catch((error) => log(client, "Runwarden: OpenCode refused the answer (" + (error?.message ?? error) + ")"));
  }
  return {
    event: async ({ event }) => {
      const p = event.properties ?? {};
      switch (event.type) {
        case "session.created":
          await call(client, base(p.info?.id ?? p.sessionID, "SessionStart"));
          break;
        case "session.status":
          if (p.status?.type === "busy" && !busy.has(p.sessionID)) {
            busy.add(p.sessionID);
            await call(client, base(p.sessionID, "UserPromptSubmit"));
          } else if (p.status?.type === "idle" && busy.delete(p.sessionID)) {
            await call(client, base(p.sessionID, "Stop"));
          }
          break;
        case "permission.asked":
          void ask(p);
          break;
        case "permission.replied":
          // Answered in OpenCode (or by this plugin): a hook still waiting withdraws its question.
          waiting.get(p.requestID)?.kill("SIGTERM");
          break;
        case "session.deleted":
          await call(client, { ...base(p.info?.id ?? p.sessionID, "SessionEnd"), reason: "deleted" });
          break;
      }
    },
  };
};
`;
}

export function opencodeStatus(
  text: string | null,
  cliArgv: readonly string[],
  hookArgs: readonly string[],
  cliEnv: Readonly<Record<string, string>> = {},
): HookStatus {
  if (text === null || !text.startsWith(OPENCODE_MARKER))
    return { installed: false, problems: [], events: [] };
  const problems: string[] = [];
  if (text !== opencodePluginSource(cliArgv, hookArgs, cliEnv)) {
    problems.push('the plugin was written by another Runwarden or edited since (install again)');
  }
  return {
    installed: true,
    problems,
    events: [
      'session.created',
      'session.status',
      'permission.asked',
      'permission.replied',
      'session.deleted',
    ],
  };
}
