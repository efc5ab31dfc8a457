/**
 * A coding agent runs `runwarden agents hook` on every event; the ones that need no person (after each tool
 * call, at each turn's end) must cost about what a bare Node start does (docs/AGENTS.md#never-blocking-the-agent):
 * the whole process, start to exit, against `node -e 0` measured interleaved in the same run, for every agent,
 * each finding its session's process the way it does for real (a named pid, or the walk up its ancestors).
 */
import { spawnSync } from 'node:child_process';
import type { Measurement } from './report-model';
import { CLI_BIN, measureWholeProcess } from './whole-process';

/** Each agent's commonest hook that needs no person, and how it names its session's process. */
const AGENT_HOOKS = [
  // Claude Code names itself (CLAUDE_PID); the pi extension and the OpenCode plugin pass RUNWARDEN_AGENT_PID.
  { agent: 'claude-code', event: 'PostToolUse', pidVar: 'CLAUDE_PID' },
  { agent: 'pi', event: 'PostToolUse', pidVar: 'RUNWARDEN_AGENT_PID' },
  { agent: 'opencode', event: 'Stop', pidVar: 'RUNWARDEN_AGENT_PID' },
  // Codex, Qwen Code and Gemini CLI name nothing: the hook walks up its ancestors (to this process).
  { agent: 'codex', event: 'PostToolUse', pidVar: null },
  { agent: 'qwen-code', event: 'PostToolUse', pidVar: null },
  { agent: 'gemini', event: 'AfterTool', pidVar: null },
] as const;

/** The hook's target: at most 1.4× a bare Node start. */
const HOOK_TARGET = 1.4;

export function measureAgentHook(
  storePath: string,
  cwd: string,
  reps: number,
  log: (line: string) => void,
  agents: readonly string[] = AGENT_HOOKS.map(({ agent }) => agent),
): Measurement[] {
  const out: Measurement[] = [];
  for (const { agent, event, pidVar } of AGENT_HOOKS.filter((hook) => agents.includes(hook.agent))) {
    // The session's agent is this process: alive for the whole measurement, as a real agent is.
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
    delete env.CLAUDE_PID;
    delete env.RUNWARDEN_AGENT_PID;
    if (pidVar !== null) env[pidVar] = String(process.pid);
    const payload = JSON.stringify({
      session_id: `bench-session-${agent}`,
      cwd,
      hook_event_name: event,
      tool_name: 'Bash',
      tool_input: { command: 'true' },
    });
    const hook = [CLI_BIN, 'agents', 'hook', agent, '--store', storePath];
    // The session's first call creates its run.
    const first = spawnSync(process.execPath, hook, {
      env,
      input: payload,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    if (first.status !== 0) throw new Error(`agents hook exited ${first.status}: ${String(first.stderr)}`);
    const m = measureWholeProcess(
      {
        id: agent === 'claude-code' ? 'cli.agent-hook' : `cli.agent-hook.${agent}`,
        label: `Agent hook needing no person: runwarden agents hook ${agent} (${event}), whole process`,
        env,
        args: () => hook,
        input: payload,
      },
      reps,
      log,
    );
    m.target = `≤ ${HOOK_TARGET}× node -e 0`;
    m.met = m.ratio !== null && m.ratio <= HOOK_TARGET;
    out.push(m);
  }
  return out;
}
