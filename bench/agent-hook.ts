/**
 * A coding agent runs `runwarden agents hook` on every event; the ones that need no person (PostToolUse after
 * each tool call) must cost about what a bare Node start does (docs/AGENTS.md#never-blocking-the-agent): the
 * whole process, start to exit, against `node -e 0` measured interleaved in the same run.
 */
import { spawnSync } from 'node:child_process';
import type { Measurement } from './report-model';
import { CLI_BIN, measureWholeProcess } from './whole-process';

export function measureAgentHook(
  storePath: string,
  cwd: string,
  reps: number,
  log: (line: string) => void,
): Measurement {
  // The session's agent is this process: alive for the whole measurement, as a real agent is.
  const env = { ...process.env, NO_COLOR: '1', CLAUDE_PID: String(process.pid) };
  const payload = JSON.stringify({
    session_id: 'bench-session',
    cwd,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'true' },
  });
  const hook = [CLI_BIN, 'agents', 'hook', 'claude-code', '--store', storePath];
  // The session's first call creates its run.
  const first = spawnSync(process.execPath, hook, { env, input: payload, stdio: ['pipe', 'ignore', 'pipe'] });
  if (first.status !== 0) throw new Error(`agents hook exited ${first.status}: ${String(first.stderr)}`);
  return measureWholeProcess(
    {
      id: 'cli.agent-hook',
      label: 'Agent hook needing no person: runwarden agents hook (PostToolUse), whole process',
      env,
      args: () => hook,
      input: payload,
    },
    reps,
    log,
  );
}
