/**
 * Runs the CMD of `runwarden step NAME -- CMD` / `runwarden effect ... -- CMD` in the foreground: same
 * stdio, same environment, same process group (so a stop `exec` sends its command reaches CMD too).
 * No signal is caught here: when the group is stopped this process dies with CMD, and what it left open
 * (an attempt running, an effect applying) is settled by the run's cancel cascade.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

export interface ChildOutcome {
  /** The shell's view of how CMD ended: its code, 128+N when killed by signal N, 127 when not found. */
  exitCode: number;
  signal: NodeJS.Signals | null;
  spawnError: string | null;
}

export function runChild(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<ChildOutcome> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    if (file === undefined) {
      resolve({ exitCode: 127, signal: null, spawnError: 'empty command' });
      return;
    }
    const child = spawn(file, args, { stdio: 'inherit', env, cwd });
    child.once('error', (error: NodeJS.ErrnoException) => {
      resolve({
        exitCode: error.code === 'ENOENT' ? 127 : 126,
        signal: null,
        spawnError: `could not start ${file}: ${error.message}`,
      });
    });
    child.once('exit', (code, signal) => {
      const signo = signal === null ? 0 : (constants.signals[signal] ?? 0);
      resolve({ exitCode: code ?? 128 + signo, signal, spawnError: null });
    });
  });
}
