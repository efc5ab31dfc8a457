/**
 * End-to-end harness: a temp store, `runwarden serve` on it as a real child process, real CLI runners,
 * and pages signed in with one-time URLs. Screenshots go to artifacts/screenshots/ (Playwright empties
 * test-results/ at the start of every run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

/** The repository and its CLI shim (bin/runwarden.js → out/cli/, built by `npm run build` before e2e runs). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_BIN = join(REPO_ROOT, 'bin/runwarden.js');

export const SCREENSHOT_DIR = join(REPO_ROOT, 'artifacts', 'screenshots');

export interface Served {
  /** The first one-time sign-in URL (opening it again works only in the browser that used it). */
  url: string;
  port: number;
  /** The API client credential (Authorization: Bearer), never part of a URL. */
  token: string;
  process: ChildProcess;
  stop(): Promise<void>;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** A fresh one-time sign-in URL, asked for with the token (for another browser context). */
  signInUrl(): Promise<string>;
}

export interface ServeOptions {
  /** Listen on this port (to restart serve where a page expects it). */
  port?: number;
  uiDir?: string;
}

export interface Workspace {
  dir: string;
  store: string;
  /** A project folder (canonical path) runs can be started in. */
  project: string;
  env: NodeJS.ProcessEnv;
  /** Ends every process still using the store (killWorkspaceProcesses), then removes the folder. */
  cleanup(): void;
}

/**
 * Set in every process an e2e run starts (global-setup.ts gives each run its own value), so the run's
 * teardown finds what its tests left running, and nothing of another run on the same machine.
 */
export const E2E_RUN_ENV = 'RUNWARDEN_E2E_RUN';

export function createWorkspace(name = 'proj'): Workspace {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'runwarden-e2e-')));
  const project = join(dir, name);
  mkdirSync(project);
  const store = join(dir, 'state.sqlite');
  const env: NodeJS.ProcessEnv = { ...process.env, RUNWARDEN_STORE: store, NO_COLOR: '1' };
  for (const key of ['RUNWARDEN_RUN_ID', 'RUNWARDEN_RUN_TOKEN', 'RUNWARDEN_LEASE_GENERATION'])
    delete env[key];
  const ws: Workspace = {
    dir,
    store,
    project,
    env,
    cleanup: () => {
      killWorkspaceProcesses(ws);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return ws;
}

/** Starts `runwarden serve --json` and waits for its URL line. */
export async function startServe(ws: Workspace, options: ServeOptions = {}): Promise<Served> {
  const args = [CLI_BIN, 'serve', '--json', '--store', ws.store];
  if (options.port !== undefined) args.push('--port', String(options.port));
  if (options.uiDir !== undefined) args.push('--ui-dir', options.uiDir);
  const child = spawn(process.execPath, args, {
    env: ws.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 15_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buffer.slice(0, nl));
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  const info = JSON.parse(line) as { url: string; port: number; token: string };
  const origin = `http://127.0.0.1:${info.port}`;
  return {
    ...info,
    origin,
    signInUrl: async () => {
      const res = await fetch(`${origin}/api/session/code`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${info.token}` },
      });
      return ((await res.json()) as { value: { url: string } }).value.url;
    },
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        // serve exits on SIGTERM; if it has not within 5 s, that is a bug worth seeing, not a hung suite.
        const timer = setTimeout(() => {
          console.error(`runwarden serve did not exit on SIGTERM within 5 s; killing it. stderr: ${stderr}`);
          child.kill('SIGKILL');
        }, 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export interface Cli {
  child: ChildProcess;
  /** Kills the CLI and everything it started (its process group). */
  killTree(signal?: NodeJS.Signals): void;
  output(): { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** Runs the real CLI in the workspace's project folder. */
export function runCli(ws: Workspace, args: string[], options: { cwd?: string } = {}): Cli {
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    cwd: options.cwd ?? ws.project,
    env: ws.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const killTree = (signal: NodeJS.Signals = 'SIGKILL') => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  return { child, killTree, output: () => ({ stdout, stderr }), exited };
}

/** The run id `runwarden exec` prints on stderr, once it has (10 s at most). */
export async function runIdOf(cli: Cli): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const match = /run (run_[a-z0-9]+)/.exec(cli.output().stderr);
    if (match?.[1]) return match[1];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no run id printed: ${cli.output().stderr}`);
}

/** Runs a CLI command to completion and parses its --json envelope. */
export async function cliJson<T>(ws: Workspace, args: string[]): Promise<T> {
  const cli = runCli(ws, [...args, '--json']);
  const code = await cli.exited;
  const { stdout, stderr } = cli.output();
  const envelope = JSON.parse(stdout) as { ok: boolean; value: T; error?: { message: string } };
  if (!envelope.ok)
    throw new Error(`runwarden ${args.join(' ')} → ${code}: ${envelope.error?.message} ${stderr}`);
  return envelope.value;
}

/**
 * Opens the served UI the way a person does: a one-time sign-in URL. Each call signs in with a fresh one
 * (tests share a serve across browser contexts, and the printed URL signs in only the first); the
 * printed URL itself is exercised by browser-session.e2e.ts.
 */
export async function openUi(page: Page, served: Served, hash = ''): Promise<void> {
  await page.goto(`${await served.signInUrl()}${hash}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/**
 * Kills every process still using this workspace's store (read from /proc: Linux only). A runner's command runs
 * in its own process group, and a command's children outlive it: killing the CLI's group leaves e.g. a blocked
 * `runwarden ask` behind, whose shell the kernel kills with the runner. Scans until one finds nothing, since a
 * shell killed during a scan may have started its next command just before.
 */
export function killWorkspaceProcesses(ws: Workspace): number {
  return killProcessesWithEnv(`RUNWARDEN_STORE=${ws.store}`);
}

/** Kills (SIGKILL) every other process whose environment has `entry` (`NAME=value`); answers how many. */
export function killProcessesWithEnv(entry: string): number {
  let killed = 0;
  for (let round = 0; round < 20; round++) {
    const found = processesWithEnv(entry);
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL');
        killed += 1;
      } catch {
        // Gone already.
      }
    }
    if (found.length === 0) break;
  }
  return killed;
}

/** Pids of the other live processes whose environment has `entry` (a zombie's environment reads empty). */
export function processesWithEnv(entry: string): number[] {
  let names: string[] = [];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const needle = `\0${entry}\0`;
  const pids: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${name}/environ`, 'utf8')}\0`.includes(needle)) pids.push(pid);
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return pids;
}
