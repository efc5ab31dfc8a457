/**
 * Gives this e2e run an id that every process its tests start carries (harness.ts, E2E_RUN_ENV), and at the
 * end ends and names whatever is still running with it: each test ends what it started, so anything found
 * here is a leak to fix, not to leave running on a shared machine. Processes of another run (another
 * checkout, the same machine) carry another id and are left alone.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { E2E_RUN_ENV, killProcessesWithEnv, processesWithEnv } from './harness';

export default function globalSetup(): () => void {
  const id = randomBytes(8).toString('hex');
  // Workers inherit the runner's environment, and createWorkspace passes it on to every process.
  process.env[E2E_RUN_ENV] = id;
  return () => {
    const entry = `${E2E_RUN_ENV}=${id}`;
    const left = processesWithEnv(entry);
    if (left.length === 0) return;
    const described = left.map((pid) => `  ${pid} ${commandLine(pid)}`).join('\n');
    console.error(
      `e2e: ${left.length} process(es) started by the tests were still running; ending them:\n${described}`,
    );
    killProcessesWithEnv(entry);
  };
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 200);
  } catch {
    return '(gone)';
  }
}
