/**
 * End-to-end harness: a temp store, `runwarden serve` on it as a real child process, real CLI runners,
 * and a page logged in with the served token. Screenshots go to artifacts/screenshots/ (Playwright wipes
 * test-results/, STACK.md pitfall 9).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

/** The repository and its CLI shim (bin/runwarden.js → out/cli/, built by `npm run build` before e2e runs). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_BIN = join(REPO_ROOT, 'bin/runwarden.js');

export const SCREENSHOT_DIR = join(REPO_ROOT, 'artifacts', 'screenshots');

export interface Served {
  url: string;
  port: number;
  token: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface Workspace {
  dir: string;
  store: string;
  /** A project folder (canonical path) runs can be started in. */
  project: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function createWorkspace(name = 'proj'): Workspace {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'runwarden-e2e-')));
  const project = join(dir, name);
  mkdirSync(project);
  const store = join(dir, 'state.sqlite');
  const env: NodeJS.ProcessEnv = { ...process.env, RUNWARDEN_STORE: store, NO_COLOR: '1' };
  for (const key of ['RUNWARDEN_RUN_ID', 'RUNWARDEN_RUN_TOKEN', 'RUNWARDEN_LEASE_GENERATION'])
    delete env[key];
  return { dir, store, project, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `runwarden serve --json` and waits for its URL line. */
export async function startServe(ws: Workspace): Promise<Served> {
  const child = spawn(process.execPath, [CLI_BIN, 'serve', '--json', '--store', ws.store], {
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
  return {
    ...info,
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

/** Opens the served UI the way a person does: the printed URL with its token. */
export async function openUi(page: Page, served: Served, hash = ''): Promise<void> {
  await page.goto(`${served.url}${hash}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}
