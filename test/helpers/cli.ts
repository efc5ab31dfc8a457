/**
 * Spawning the real `runwarden` CLI (bin/runwarden.js → out/cli/runwarden.js, built by the globalSetup)
 * against a temp store passed through RUNWARDEN_STORE.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { testCliBin } from './paths';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  store: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

/** A live CLI process with its output collected as it comes. */
export interface CliProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  done: Promise<CliResult>;
}

function cliEnv(options: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, RUNWARDEN_STORE: options.store, NO_COLOR: '1' };
  for (const name of ['RUNWARDEN_RUN_ID', 'RUNWARDEN_RUN_TOKEN', 'RUNWARDEN_LEASE_GENERATION'])
    delete env[name];
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export function spawnCli(args: string[], options: CliOptions): CliProcess {
  const child = spawn(process.execPath, [testCliBin(), ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: cliEnv(options),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timeoutMs = options.timeoutMs ?? 30_000;
  const done = new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `runwarden ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // 'close' waits for the pipes, which an orphaned grandchild may keep open: give it a moment only.
    child.once('exit', (code, signal) => {
      const finish = (): void => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      };
      const grace = setTimeout(finish, 500);
      child.once('close', () => {
        clearTimeout(grace);
        finish();
      });
    });
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    done,
  };
}

export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return spawnCli(args, options).done;
}

/** Runs a read command with --json and returns the parsed envelope. */
export async function runJson<T = unknown>(
  args: string[],
  options: CliOptions,
): Promise<{
  code: number | null;
  body: { ok: true; value: T } | { ok: false; error: { code: string; message: string; recovery?: unknown } };
  stderr: string;
}> {
  const result = await runCli([...args, '--json'], options);
  let body;
  try {
    body = JSON.parse(result.stdout);
  } catch {
    throw new Error(
      `not JSON from runwarden ${args.join(' ')} (exit ${result.code}): ${result.stdout}\n${result.stderr}`,
    );
  }
  return { code: result.code, body, stderr: result.stderr };
}

export interface TempDir {
  path: string;
  store: string;
  remove(): void;
}

/** A fresh folder (realpath'd: project paths are canonical) holding a store path. */
export function tempDir(prefix = 'runwarden-test-'): TempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return {
    path,
    store: join(path, 'state.sqlite'),
    // A host's hygiene thread may still be closing its connection (its -wal/-shm) as the folder goes: retried.
    remove: () => rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  };
}

/** Polls `check` until it returns a value (not undefined/false) or the time runs out. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Kills a process (and its group when it leads one), ignoring "already gone". */
export function killQuietly(
  pid: number | undefined,
  signal: NodeJS.Signals = 'SIGKILL',
  group = false,
): void {
  if (pid === undefined) return;
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // Gone already.
  }
}
