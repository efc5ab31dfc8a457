/**
 * Launching the built app in the real Electron for one test: a temp store (RUNWARDEN_STORE), a temp config
 * folder (so the userData folder and the single-instance lock are the test's own), and the test hooks of
 * main/electron/test-hooks.ts reachable with `evaluate`.
 */
import { _electron, type ElectronApplication, type Page } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, createWorkspace, type Workspace } from '../e2e/harness';
import { installedElectron } from './electron-binary.js';

export interface Desktop {
  ws: Workspace;
  app: ElectronApplication;
  window: Page;
  env: NodeJS.ProcessEnv;
  electron: string;
  /** Calls a test hook in the main process. */
  hook<T>(name: string, ...args: unknown[]): Promise<T>;
  close(): Promise<void>;
}

/** Chromium refuses to run as root with its sandbox; only then is it turned off, and only here, in tests. */
function sandboxArgs(): string[] {
  return process.getuid?.() === 0 ? ['--no-sandbox'] : [];
}

export function electronPath(): string {
  const electron = process.env.RUNWARDEN_ELECTRON ?? installedElectron(REPO_ROOT);
  if (electron === null || electron === undefined)
    throw new Error('no Electron binary (run through npm run test:electron)');
  return electron;
}

export async function launchDesktop(extraArgs: string[] = []): Promise<Desktop> {
  const ws = createWorkspace();
  const config = join(ws.dir, 'config');
  mkdirSync(config, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...ws.env,
    XDG_CONFIG_HOME: config,
    RUNWARDEN_TEST_HOOKS: '1',
  };
  delete env.ELECTRON_RUN_AS_NODE;
  const electron = electronPath();
  const app = await _electron.launch({
    executablePath: electron,
    args: [...sandboxArgs(), REPO_ROOT, ...extraArgs],
    env: env as Record<string, string>,
    cwd: ws.project,
  });
  const window = await app.firstWindow();
  return {
    ws,
    app,
    window,
    env,
    electron,
    hook: <T>(name: string, ...args: unknown[]) =>
      app.evaluate(
        (_electronModule, [hookName, hookArgs]) => {
          const hooks = (
            globalThis as unknown as { runwardenTestHooks: Record<string, (...a: unknown[]) => unknown> }
          ).runwardenTestHooks;
          return hooks[hookName as string]?.(...(hookArgs as unknown[]));
        },
        [name, args] as const,
      ) as Promise<T>,
    close: async () => {
      await app.close().catch(() => {});
      ws.cleanup();
    },
  };
}

/** Starts a second instance of the app with these arguments; resolves with its exit code. */
export function secondInstance(desktop: Desktop, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(desktop.electron, [...sandboxArgs(), REPO_ROOT, ...args], {
      env: desktop.env,
      stdio: 'ignore',
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

/** Polls until `read` gives what `done` accepts (or the deadline passes); returns the last value. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
