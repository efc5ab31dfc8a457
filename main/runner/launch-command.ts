/**
 * Makes a command die with its supervisor where the platform allows (docs/LIVENESS.md#orphans). On Linux,
 * util-linux's `setpriv --pdeathsig KILL` sets the parent-death signal and then execs the command, so the
 * command keeps its pid and the kernel kills it when the runner dies, even by SIGKILL. It covers the
 * command itself, not what it starts: a background job in its group is found and stopped through the
 * group, and a descendant that calls `setsid` leaves the group and is beyond both. Without setpriv (or
 * elsewhere) the command starts as it is.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

const SETPRIV_PATHS = ['/usr/bin/setpriv', '/bin/setpriv'];

let launcher: string | null | undefined;

/** The setpriv binary, if it exists and supports --pdeathsig (util-linux 2.33 and later); checked once. */
export function pdeathsigLauncher(platform: NodeJS.Platform = process.platform): string | null {
  if (launcher !== undefined) return launcher;
  launcher = null;
  if (platform !== 'linux') return launcher;
  for (const candidate of SETPRIV_PATHS) {
    if (!isExecutable(candidate)) continue;
    const probe = spawnSync(candidate, ['--pdeathsig', 'KILL', '--', 'true'], {
      stdio: 'ignore',
      timeout: 5_000,
    });
    if (probe.status === 0) {
      launcher = candidate;
      break;
    }
  }
  return launcher;
}

/**
 * The argv to spawn for `argv`: through the launcher when there is one and the command can be found (a
 * command that cannot be found is spawned as it is, so it fails as "could not start", not as the
 * launcher's exit code).
 */
export function launchArgv(
  argv: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  setpriv: string | null = pdeathsigLauncher(),
): string[] {
  const [file] = argv;
  if (setpriv === null || file === undefined || findExecutable(file, cwd, env) === null) return [...argv];
  return [setpriv, '--pdeathsig', 'KILL', '--', ...argv];
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where execvp would find `file`: a path (relative to cwd) as given, a bare name on PATH. */
export function findExecutable(file: string, cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (file.includes('/')) {
    const full = isAbsolute(file) ? file : resolve(cwd, file);
    return isExecutable(full) ? full : null;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const full = join(isAbsolute(dir) ? dir : resolve(cwd, dir), file);
    if (isExecutable(full)) return full;
  }
  return null;
}
