/**
 * Terminal mode (docs/LIVENESS.md#terminal-mode): `runwarden exec` typed in a shell, on a real
 * pseudo-terminal (python3's pty module). The command shares the terminal's process group, yet an orphan
 * is found and stopped, and a finish or a cooperative cancel leaves nothing of the run behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendantsOf } from '../../../main/runner/process-tree';
import { markedProcesses } from '../../../main/store';
import { createLivenessCheck } from '../../../main/store/liveness';
import { killQuietly, runCli, runJson, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';
import { spawnRunwarden } from '../../reliability/liveness-kit';

let dir: TempDir;
const started: ChildProcess[] = [];
const runIds: string[] = [];
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => {
  for (const runId of runIds) for (const pid of markedProcesses(runId) ?? []) killQuietly(pid, 'SIGKILL');
  for (const child of started) if (child.pid !== undefined) killQuietly(child.pid, 'SIGKILL');
  dir.remove();
});

interface Terminal {
  child: ChildProcess;
  readonly output: string;
  done: Promise<number | null>;
}

/**
 * `runwarden ARGS` typed in a shell on a real pseudo-terminal: its stdin is a tty, and the shell (not
 * runwarden) leads the terminal's session. With `hold`, the shell then waits for a line, as a person's
 * shell would wait at its prompt: the terminal does not hang up when runwarden dies.
 */
function inTerminal(args: string[], cwd: string, hold = false): Terminal {
  const script = 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)';
  const shell = [
    'sh',
    '-c',
    `"$@"; code=$?; echo "exit code $code"; ${hold ? 'read line; ' : ''}exit $code`,
    'sh',
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, RUNWARDEN_STORE: dir.store, NO_COLOR: '1' };
  for (const name of ['RUNWARDEN_RUN_ID', 'RUNWARDEN_RUN_TOKEN', 'RUNWARDEN_LEASE_GENERATION'])
    delete env[name];
  const child = spawn('python3', ['-c', script, ...shell, process.execPath, testCliBin(), ...args], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    get output() {
      return output;
    },
    done,
  };
}

async function runIdOf(terminal: Terminal): Promise<string> {
  const runId = await waitFor('the run id', () => /run (run_[a-z0-9]+)/.exec(terminal.output)?.[1]);
  runIds.push(runId);
  return runId;
}

/** Pids whose command line holds `word` (the processes a test's command started). */
function processesWith(word: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (cmdline.includes(word) && !state.slice(state.lastIndexOf(')') + 2).startsWith('Z'))
        found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

async function statusOf(runId: string): Promise<string | undefined> {
  const { body } = await runJson<{ display: { status: string } }>(['show', runId], { store: dir.store });
  return body.ok ? body.value.display.status : undefined;
}

describe('a command started from a terminal', () => {
  it('whose supervisor is SIGKILLed is shown orphaned, and --stop-command stops all of it', async () => {
    const project = join(dir.path, 'make');
    mkdirSync(project);
    // Four recipes at once, each appending a line every tenth of a second.
    writeFileSync(
      join(project, 'Makefile'),
      'all: a b c d\na b c d:\n\tfor i in $$(seq 1 3000); do echo $@ $$i >> out.txt; sleep 0.1; done\n',
    );
    const terminal = inTerminal(['exec', '--', 'make', '-j4', '-s'], project, true);
    const runId = await runIdOf(terminal);
    // make and its four recipe shells.
    await waitFor('four recipes running', () => (markedProcesses(runId)?.length ?? 0) >= 5);
    const execPid = descendantsOf(terminal.child.pid as number).find((pid) => {
      const [file, , verb] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return file === process.execPath && verb === 'exec';
    });
    expect(execPid).toBeDefined();
    killQuietly(execPid as number, 'SIGKILL');

    await waitFor('the run to show orphaned', async () => (await statusOf(runId)) === 'orphaned');
    const stopped = await runCli(['cancel', '--stop-command', runId, '--reason', 'terminal test'], {
      store: dir.store,
    });
    expect(stopped.code).toBe(0);
    expect(markedProcesses(runId)).toEqual([]);
    const lines = readFileSync(join(project, 'out.txt'), 'utf8').split('\n').length;
    // Nothing of the run lives, so nothing can append: checked again once the sweeper-free CLI read it.
    expect(await statusOf(runId)).toBe('cancelled');
    expect(readFileSync(join(project, 'out.txt'), 'utf8').split('\n').length).toBe(lines);
    terminal.child.stdin?.write('\n');
    await terminal.done;
  });

  it('leaves no background job behind after a normal finish', async () => {
    const terminal = inTerminal(['exec', '--', 'sh', '-c', '( sleep 1704 & ); echo started'], dir.path, true);
    const runId = await runIdOf(terminal);
    // The shell is still at its prompt: nothing hangs the job up.
    await waitFor('exec to end', () => terminal.output.includes('exit code 0'));
    expect(await statusOf(runId)).toBe('completed');
    expect(processesWith('1704')).toEqual([]);
    expect(markedProcesses(runId)).toEqual([]);
    terminal.child.stdin?.write('\n');
    expect(await terminal.done).toBe(0);
  });

  it('leaves no background job behind after cancel --request', async () => {
    const terminal = inTerminal(['exec', '--', 'sh', '-c', '( sleep 1705 & ); sleep 1706'], dir.path, true);
    const runId = await runIdOf(terminal);
    await waitFor('the background job', () => processesWith('1705').length > 0);
    const requested = await runCli(['cancel', '--request', runId], { store: dir.store });
    expect(requested.code).toBe(0);
    await waitFor('exec to end', () => terminal.output.includes('exit code 130'));
    expect(await statusOf(runId)).toBe('cancelled');
    expect(processesWith('1705')).toEqual([]);
    expect(processesWith('1706')).toEqual([]);
    terminal.child.stdin?.write('\n');
    expect(await terminal.done).toBe(130);
  });
});

describe('a cancel that could not check the run’s processes', () => {
  it('says so instead of "nothing else affected" alone', async () => {
    // A runner in another pid namespace: its pids mean nothing here (docs/LIVENESS.md).
    const exec = spawnRunwarden(['exec', '--lease-ms', '3000', '--', 'sleep', '60'], {
      store: dir.store,
      cwd: dir.path,
      wrapper: ['unshare', '--pid', '--fork', '--mount-proc'],
    });
    const runId = await waitFor('the run id', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    const [first] = await waitFor('the namespace', () => {
      const found = descendantsOf(exec.child.pid as number);
      return found.length > 1 ? found : undefined;
    });
    killQuietly(first as number, 'SIGKILL');
    await exec.done;
    await waitFor('the run to show stale', async () => (await statusOf(runId)) === 'stale', 20_000, 200);
    const cancelled = await runCli(['cancel', runId, '--reason', 'gone'], { store: dir.store });
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain('nothing else affected');
    expect(cancelled.stdout).toContain('could not be checked from here');
  });
});

describe('the liveness check of a command without a group of its own', () => {
  const here = { hostname: 'h', bootId: 'b', pidNs: 'pid:[1]' };
  const lease = {
    runId: 'run_a',
    ownerType: 'runner' as const,
    ownerPid: 10,
    ownerHostname: 'h',
    ownerStartId: '5',
    ownerBootId: 'b',
    ownerPidNs: 'pid:[1]',
    commandPid: 20,
    commandPgid: null,
    commandStartId: '9',
  };
  const judge = (marked: boolean | null) =>
    createLivenessCheck(here, {
      processAlive: () => false,
      groupAlive: () => false,
      markedAlive: (runId) => (runId === 'run_a' ? marked : false),
    }).judge(lease).command;

  it('counts a process carrying the run marker as the command, and says unknown when it cannot look', () => {
    expect(judge(true)).toBe('alive');
    expect(judge(false)).toBe('gone');
    expect(judge(null)).toBe('unknown');
  });
});
