/**
 * A CLI call as a runner or an agent pays for it: the whole process, start to exit, against `node -e 0`
 * measured interleaved in the same run (`measureCliStartup`, `measureAgentHook`).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { timedMeasurement, type Measurement } from './report-model';

/** The CLI entry the app ships (`bin/runwarden.js`). */
export const CLI_BIN = fileURLToPath(new URL('../../bin/runwarden.js', import.meta.url));

export interface WholeProcessCall {
  id: string;
  label: string;
  env: NodeJS.ProcessEnv;
  /** Node's arguments for the i-th call (the CLI entry first). */
  args: (i: number) => string[];
  /** Its standard input, if it reads one; a call that writes to stderr fails the measurement. */
  input?: string;
}

/** `reps` calls of `call`, each after a `node -e 0`; judged ≤ 1.5× on the medians. */
export function measureWholeProcess(
  call: WholeProcessCall,
  reps: number,
  log: (line: string) => void,
): Measurement {
  const time = (args: string[], input: string | undefined): number => {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, {
      env: call.env,
      ...(input !== undefined && { input }),
      stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    });
    const ms = performance.now() - started;
    if (result.status !== 0 || (input !== undefined && String(result.stderr) !== '')) {
      throw new Error(`${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
    }
    return ms;
  };
  const app: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < reps; i += 1) {
    baseline.push(time(['-e', '0'], undefined));
    app.push(time(call.args(i), call.input));
  }
  const m = timedMeasurement(
    call.id,
    call.label,
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
