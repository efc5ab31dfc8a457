/**
 * Shared by the liveness tests (docs/LIVENESS.md): the real CLI started through a wrapper (libfaketime,
 * unshare), an in-process sweeper using the real liveness check, polling helpers, and the count line each
 * test prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { initialSweeperState, sweep, type SweepReport } from '../../main/services/sweeper';
import { machineIdentity, openStore, processStartId, type RunStore } from '../../main/store';
import { DEFAULT_SETTINGS, type Settings } from '../../shared/views';
import { afterAll } from 'vitest';
import { tempDir, waitFor as pollFor, type TempDir } from '../helpers/cli';
import { testCliBin } from '../helpers/paths';

export interface Spawned {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `runwarden ARGS` behind an optional wrapper argv (e.g. `unshare --pid --fork --mount-proc`). */
export function spawnRunwarden(
  args: string[],
  opts: { store: string; cwd: string; env?: Record<string, string>; wrapper?: string[] },
): Spawned {
  const env: NodeJS.ProcessEnv = { ...process.env, RUNWARDEN_STORE: opts.store, NO_COLOR: '1', ...opts.env };
  for (const name of ['RUNWARDEN_RUN_ID', 'RUNWARDEN_RUN_TOKEN', 'RUNWARDEN_LEASE_GENERATION'])
    delete env[name];
  const argv = [...(opts.wrapper ?? []), process.execPath, testCliBin(), ...args];
  const [file, ...rest] = argv as [string, ...string[]];
  const child = spawn(file, rest, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) =>
    child.once('exit', (code, signal) => setTimeout(() => resolve({ code, signal, stdout, stderr }), 100)),
  );
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

/** A sweeper in this process over its own connection, judging liveness with the real check. */
export function inProcessSweeper(storePath: string, over: Partial<Settings> = {}) {
  const store: RunStore = openStore(storePath);
  const settings = { ...DEFAULT_SETTINGS, ...over };
  const host = {
    ownerId: `test-sweeper:${hostname()}:${process.pid}`,
    pid: process.pid,
    startId: processStartId(process.pid),
    bootId: machineIdentity().bootId,
    pidNs: machineIdentity().pidNs,
    hostname: hostname(),
  };
  const state = initialSweeperState(store);
  const reports: SweepReport[] = [];
  return {
    store,
    reports,
    tick(): SweepReport {
      const report = sweep({ store, settings: () => settings, host }, state);
      reports.push(report);
      for (const error of report.errors) throw error;
      return report;
    },
    close(): void {
      store.close();
    },
  };
}

/** The CLI helpers' poll, with a longer default: these tests wait on sweeps and process groups. */
export function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  return pollFor(what, check, timeoutMs, intervalMs);
}

/** The run id `runwarden exec` prints on stderr. */
export function runIdOf(exec: Spawned): Promise<string> {
  return waitFor('the run id', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
}

export function lineCount(file: string): number {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;
}

/** Is `pid` a live (non-zombie) process? */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** The count line every liveness test prints, so a CI log shows what was exercised. */
export function printCounts(test: string, counts: Record<string, unknown>): void {
  console.log(`[liveness] ${test}: ${JSON.stringify(counts)}`);
}

/** libfaketime's preload library (Debian package libfaketime), or null when it is not installed. */
export function faketimeLibrary(): string | null {
  for (const candidate of [
    '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
    '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
    '/usr/lib/faketime/libfaketime.so.1',
  ]) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** The state letter of `pid` in /proc (R, S, T for stopped, Z…), or null when it is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** A temp folder with a store path and a project folder in it, made now and removed after the file's tests. */
export function tempProject(prefix: string): { dir: TempDir; project: string } {
  const dir = tempDir(prefix);
  const project = join(dir.path, 'proj');
  mkdirSync(project);
  afterAll(() => dir.remove());
  return { dir, project };
}
