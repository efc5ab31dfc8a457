/**
 * A coding agent runs `runwarden agents hook` on every event; the ones that need no person (PostToolUse after
 * each tool call) must cost about what a bare Node start does (docs/AGENTS.md#never-blocking-the-agent): the
 * whole process, start to exit, against `node -e 0` measured interleaved in the same run.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { timedMeasurement, type Measurement } from './report-model';

export function measureAgentHook(
  storePath: string,
  cwd: string,
  reps: number,
  log: (line: string) => void,
): Measurement {
  const bin = fileURLToPath(new URL('../../bin/runwarden.js', import.meta.url));
  // The session's agent is this process: alive for the whole measurement, as a real agent is.
  const env = { ...process.env, NO_COLOR: '1', CLAUDE_PID: String(process.pid) };
  const payload = JSON.stringify({
    session_id: 'bench-session',
    cwd,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'true' },
  });
  const time = (args: string[], input: string): number => {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { env, input, stdio: ['pipe', 'ignore', 'pipe'] });
    const ms = performance.now() - started;
    if (result.status !== 0 || String(result.stderr) !== '') {
      throw new Error(`${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
    }
    return ms;
  };
  const hook = [bin, 'agents', 'hook', 'claude-code', '--store', storePath];
  time(hook, payload); // the session's first call creates its run
  const app: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < reps; i += 1) {
    baseline.push(time(['-e', '0'], ''));
    app.push(time(hook, payload));
  }
  const m = timedMeasurement(
    'cli.agent-hook',
    'Agent hook needing no person: runwarden agents hook (PostToolUse), whole process',
    'concurrency',
    { app, baseline },
    null,
    'baseline: node -e 0',
  );
  m.target = '≤ 1.5× node -e 0';
  m.met = m.ratio !== null && m.ratio <= 1.5;
  log(`  ${m.label}: median ${m.median} ms vs node -e 0 ${m.baselineMedian} ms (${m.ratio}×)`);
  return m;
}
