/**
 * A run's supervisor keeps every process of its run below it (docs/LIVENESS.md#only-a-person-outside-the-run-answers).
 * On Linux a child subreaper (prctl PR_SET_CHILD_SUBREAPER) receives every orphaned descendant instead of
 * init: a process that double-forks and calls `setsid` still has the supervisor among its ancestors, so
 * the self-answer check finds it however it forked. Node cannot call prctl, and nothing may need a
 * compiler at install: the supervisor re-executes itself (process.execve keeps its pid) through python3,
 * whose ctypes sets the flag, which survives the exec back into Node. Without python3 or process.execve,
 * or elsewhere than Linux, the supervisor runs as it is and says so where it records its command.
 *
 * What it costs: an orphan that ends while the supervisor lives stays a zombie until the supervisor exits
 * (Node reaps only the children it started); every liveness check here counts a zombie as gone.
 */

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** Set by the python3 step for the Node it executes: `<pid>:1` when the flag is set, `<pid>:0` when not. */
const MARK = 'RUNWARDEN_SUBREAPER';
/** The python3 to use; empty: none (the supervisor runs without the flag). Default: found below. */
const PYTHON = 'RUNWARDEN_PYTHON';
const PYTHON_PATHS = ['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3'];

/** Sets the flag (36 = PR_SET_CHILD_SUBREAPER) and executes Node again, whether or not the flag was set. */
const PYTHON_STEP = [
  'import os, sys',
  "ok = '0'",
  'try:',
  '    import ctypes',
  '    if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0: ok = "1"',
  'except Exception:',
  '    pass',
  `os.environ['${MARK}'] = str(os.getpid()) + ':' + ok`,
  'os.execv(sys.argv[1], sys.argv[1:])',
].join('\n');

/** Whether this process is a child subreaper, and if not why; decided once by `becomeSubreaper`. */
export type Containment = { subreaper: true } | { subreaper: false; why: string };

let decided: Containment = { subreaper: false, why: 'the supervisor did not ask to keep its processes' };

/** This process's containment, as `becomeSubreaper` left it. */
export function containment(): Containment {
  return decided;
}

/**
 * Makes this process a child subreaper, re-executing it through python3 once (same pid, same argv). Returns
 * in the re-executed process (or at once when it cannot be done), with the outcome in `containment()`.
 */
export function becomeSubreaper(env: NodeJS.ProcessEnv = process.env): void {
  const mark = env[MARK];
  delete env[MARK];
  if (mark !== undefined && mark.startsWith(`${process.pid}:`)) {
    decided = mark.endsWith(':1')
      ? { subreaper: true }
      : { subreaper: false, why: 'prctl(PR_SET_CHILD_SUBREAPER) failed' };
    return;
  }
  if (process.platform !== 'linux') {
    decided = { subreaper: false, why: `${process.platform} has no child subreaper` };
    return;
  }
  const python = findPython(env);
  if (python === null) {
    decided = { subreaper: false, why: 'no python3 was found to set the child subreaper' };
    return;
  }
  if (typeof process.execve !== 'function') {
    decided = { subreaper: false, why: `Node ${process.version} has no process.execve` };
    return;
  }
  try {
    process.execve(
      python,
      [python, '-I', '-S', '-c', PYTHON_STEP, process.execPath, ...process.execArgv, ...sameCommand()],
      { ...env, ...nodeMode(), [MARK]: `${process.pid}:` },
    );
  } catch (error) {
    decided = { subreaper: false, why: `python3 could not be started (${(error as Error).message})` };
  }
}

/**
 * This command's script and arguments. An installed app's CLI names its launcher as its own path (argv[1]) for
 * the commands it starts; its entry script, which the app's executable runs in Node mode, says where it is.
 */
function sameCommand(): string[] {
  const entry = (globalThis as Record<symbol, unknown>)[Symbol.for('runwarden.entry')];
  const script = typeof entry === 'string' ? entry : process.argv[1];
  return script === undefined ? process.argv.slice(1) : [script, ...process.argv.slice(2)];
}

/** The app's executable runs the CLI only in Node mode, which its entry script took off this process's env. */
function nodeMode(): NodeJS.ProcessEnv {
  return process.versions.electron === undefined ? {} : { ELECTRON_RUN_AS_NODE: '1' };
}

function findPython(env: NodeJS.ProcessEnv): string | null {
  const chosen = env[PYTHON];
  if (chosen !== undefined) return chosen.trim() === '' || !executable(chosen) ? null : chosen;
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .map((dir) => path.join(dir, 'python3'));
  return [...PYTHON_PATHS, ...onPath].find(executable) ?? null;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
