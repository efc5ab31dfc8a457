/**
 * A run's supervisor keeps every process of its run below it (docs/LIVENESS.md#only-a-person-outside-the-run-answers).
 * On Linux a child subreaper (prctl PR_SET_CHILD_SUBREAPER) receives every orphaned descendant instead of
 * init: a process that double-forks and calls `setsid` still has the supervisor among its ancestors, so
 * the self-answer check finds it however it forked. Node cannot call prctl, and nothing may need a
 * compiler at install: the supervisor re-executes itself (process.execve keeps its pid) through a helper
 * that sets the flag, which survives the exec back into Node: perl (its `syscall` reaches prctl; perl is
 * part of every Debian and most other Linux installs, and starts in a few milliseconds), else python3
 * (ctypes; tens of milliseconds more). Without either, without process.execve, or elsewhere than Linux,
 * the supervisor runs as it is and says so where it records its command.
 *
 * What it costs: an orphan that ends while the supervisor lives stays a zombie until the supervisor exits
 * (Node reaps only the children it started); every liveness check here counts a zombie as gone.
 */

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');

/** Set by the helper for the Node it executes: `<pid>:1` when the flag is set, `<pid>:0` when not. */
const MARK = 'RUNWARDEN_SUBREAPER';
/** The perl to use; empty: none. Default: found below. */
const PERL = 'RUNWARDEN_PERL';
const PERL_PATHS = ['/usr/bin/perl', '/bin/perl', '/usr/local/bin/perl'];
/** The python3 to use; empty: none (the supervisor runs without the flag). Default: found below. */
const PYTHON = 'RUNWARDEN_PYTHON';
const PYTHON_PATHS = ['/usr/bin/python3', '/usr/local/bin/python3', '/bin/python3'];

/** prctl's system call number, for the architectures Node runs on (Linux's syscall tables). */
const PRCTL: Partial<Record<string, number>> = {
  x64: 157,
  arm64: 167,
  riscv64: 167,
  loong64: 167,
  arm: 172,
  ia32: 172,
  s390x: 172,
  ppc64: 171,
};

/**
 * Sets the flag (36 = PR_SET_CHILD_SUBREAPER), checks it (37 = PR_GET_CHILD_SUBREAPER) and executes Node
 * again either way. Arguments: prctl's number, whether PERL_BADLANG was set only for this step, then Node's
 * argv. PERL_BADLANG=0 keeps a locale perl lacks from printing a warning on every start.
 */
const PERL_STEP = [
  'my ($nr, $badlang) = splice(@ARGV, 0, 2);',
  'my $ok = 0;',
  'if (syscall($nr, 36, 1, 0, 0, 0) == 0) {',
  "  my $v = pack('i', 0);",
  "  $ok = 1 if syscall($nr, 37, $v, 0, 0, 0) == 0 && unpack('i', $v) == 1;",
  '}',
  'delete $ENV{PERL_BADLANG} if $badlang;',
  `$ENV{${MARK}} = "$$:$ok";`,
  'exec { $ARGV[0] } @ARGV;',
  'exit 127;',
].join('\n');

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
  if (typeof process.execve !== 'function') {
    decided = { subreaper: false, why: `Node ${process.version} has no process.execve` };
    return;
  }
  const helper = helperStep(env);
  if (helper === null) {
    decided = { subreaper: false, why: 'no perl or python3 was found to set the child subreaper' };
    return;
  }
  try {
    process.execve(helper.file, helper.argv, {
      ...env,
      ...helper.env,
      ...nodeMode(),
      [MARK]: `${process.pid}:`,
    });
  } catch (error) {
    decided = {
      subreaper: false,
      why: `${helper.name} could not be started (${(error as Error).message})`,
    };
  }
}

/** The helper that sets the flag and executes Node again: perl when it is here (and knows prctl's number), else python3. */
function helperStep(
  env: NodeJS.ProcessEnv,
): { name: string; file: string; argv: string[]; env: NodeJS.ProcessEnv } | null {
  const node = [process.execPath, ...process.execArgv, ...sameCommand()];
  const prctl = PRCTL[process.arch];
  const perl = prctl === undefined ? null : findHelper(env, PERL, PERL_PATHS, 'perl');
  if (perl !== null) {
    const badlang = env.PERL_BADLANG === undefined;
    return {
      name: 'perl',
      file: perl,
      argv: [perl, '-e', PERL_STEP, '--', String(prctl), badlang ? '1' : '0', ...node],
      env: badlang ? { PERL_BADLANG: '0' } : {},
    };
  }
  const python = findHelper(env, PYTHON, PYTHON_PATHS, 'python3');
  if (python === null) return null;
  return { name: 'python3', file: python, argv: [python, '-I', '-S', '-c', PYTHON_STEP, ...node], env: {} };
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

/** The helper `variable` names (empty: none), else the first of `paths` and `name` on the PATH. */
function findHelper(
  env: NodeJS.ProcessEnv,
  variable: string,
  paths: readonly string[],
  name: string,
): string | null {
  const chosen = env[variable];
  if (chosen !== undefined) return chosen.trim() === '' || !executable(chosen) ? null : chosen;
  const onPath = (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir))
    .map((dir) => path.join(dir, name));
  return [...paths, ...onPath].find(executable) ?? null;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
