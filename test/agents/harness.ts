/**
 * The coding-agent tests' world: the real agent CLIs from test/agents/node_modules (a test-only package,
 * `npm ci --prefix test/agents`), a temporary HOME and agent configuration, the mock model server, the real
 * `runwarden` CLI of this test run, and the app host (`createAppHost`, with its sweeper and the tray's
 * attention read) on a temporary store, answering as the window and the tray do.
 * Without the agents installed these tests are skipped, except under CI, where they fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Interaction, Run } from '../../shared/domain';
import { createAppHost } from '../../main/services/app-host';
import type { AppHost, ShellAttention } from '../../main/services/host-types';
import { openStore, type RunStore } from '../../main/store';
import { testCliBin } from '../helpers/paths';
import { startMockModel, type MockModel } from './mock-model';

export const AGENTS_DIR = dirname(fileURLToPath(import.meta.url));
export const BIN = {
  'claude-code': join(AGENTS_DIR, 'node_modules/.bin/claude'),
  codex: join(AGENTS_DIR, 'node_modules/.bin/codex'),
  pi: join(AGENTS_DIR, 'node_modules/.bin/pi'),
  'qwen-code': join(AGENTS_DIR, 'node_modules/.bin/qwen'),
  gemini: join(AGENTS_DIR, 'node_modules/.bin/gemini'),
  opencode: join(AGENTS_DIR, 'node_modules/.bin/opencode'),
} as const;

export const agentsInstalled = Object.values(BIN).every((bin) => existsSync(bin));

/**
 * Tests that drive the real agents are skipped when they are not installed — except under CI, where they
 * run and `requireAgents` fails them: a missing install is a failure there, never a silent skip.
 */
export const skipAgents = !agentsInstalled && process.env.CI !== 'true';

export function requireAgents(): void {
  if (!agentsInstalled) {
    throw new Error('test/agents/node_modules is missing the agent CLIs: run npm ci --prefix test/agents');
  }
}

export interface World {
  dir: string;
  home: string;
  project: string;
  storePath: string;
  /** The file the mock model's shell call creates. */
  marker: string;
  mock: MockModel;
  host: AppHost;
  /** The latest attention the host handed the tray. */
  attention(): ShellAttention | null;
  store: RunStore;
  env: Record<string, string>;
  children: ChildProcess[];
  cleanup(): Promise<void>;
}

export async function createWorld(): Promise<World> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'runwarden-agents-')));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(join(project, '.git'), { recursive: true });
  const storePath = join(dir, 'store.sqlite');
  const marker = join(project, 'created-by-agent');
  const mock = await startMockModel(`touch ${marker}`);
  let latest: ShellAttention | null = null;
  const host = createAppHost({
    storePath,
    surface: 'app',
    actorId: 'person',
    notifier: { show: () => {} },
    push: () => {},
    attention: { items: 20, onAttention: (attention) => (latest = attention) },
  });
  host.start();
  const store = openStore(storePath);
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    NO_COLOR: '1',
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: mock.url,
    ANTHROPIC_API_KEY: 'sk-mock',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CODEX_HOME: join(home, '.codex'),
    MOCK_API_KEY: 'sk-mock',
    PI_CODING_AGENT_DIR: join(home, '.pi', 'agent'),
    PI_OFFLINE: '1',
  };
  const children: ChildProcess[] = [];
  return {
    dir,
    home,
    project,
    storePath,
    marker,
    mock,
    host,
    attention: () => latest,
    store,
    env,
    children,
    async cleanup() {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      store.close();
      host.dispose();
      await mock.close();
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    },
  };
}

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  output(): string;
  done: Promise<Ran>;
}

export function start(world: World, argv: string[], extraEnv: Record<string, string> = {}): Started {
  const [command, ...args] = argv;
  const child = spawn(command ?? 'false', args, {
    cwd: world.project,
    env: { ...world.env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  world.children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<Ran>((resolve) => {
    child.once('exit', (code, signal) => {
      setTimeout(() => resolve({ code, signal, stdout, stderr }), 50);
    });
  });
  return { child, output: () => `stdout: ${stdout}\nstderr: ${stderr}`, done };
}

/** The real `runwarden` CLI of this test run, with the world's HOME and agent locations. */
export async function runwarden(world: World, args: string[]): Promise<Ran> {
  return start(world, [process.execPath, testCliBin(), ...args]).done;
}

/** The process a session's run is held by (the agent's own, as the hook found it). */
export function sessionOwnerPid(world: World, runId: string): number {
  const pid = world.store.db.prepare(`SELECT owner_pid FROM leases WHERE run_id = ?`).pluck().get(runId) as
    number | undefined;
  if (pid === undefined) throw new Error(`no lease for ${runId}`);
  return pid;
}

/** Polls `probe` until it returns a value (not undefined/null/false), or fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => T | null | undefined | false,
  timeoutMs = 30_000,
  detail: () => string = () => '',
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}\n${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The open question of the agent's session as the tray shows it (the host's attention read). */
export function trayQuestion(world: World): Interaction | undefined {
  return world.attention()?.questions[0];
}

export function runsOf(world: World, workflow: string): Run[] {
  return (
    world.store.db
      .prepare(`SELECT id FROM runs WHERE workflow = ? ORDER BY created_at`)
      .all(workflow) as Array<{
      id: string;
    }>
  ).map(({ id }) => world.store.getRun(id));
}

/** Answers a question through the host's handler, as the window and the tray's submenu do. */
export async function answerFromTray(world: World, question: Interaction, choice: string): Promise<void> {
  const result = await world.host.dispatch('interactions:answer', {
    interactionId: question.id,
    interactionRevision: question.revision,
    idempotencyKey: `tray-${question.id}`,
    payload: choice,
  });
  if (!result.ok) throw new Error(`the answer was refused: ${JSON.stringify(result.error)}`);
}

/**
 * After its agent was killed: within one sweep the run shows failed with an error matching `died`, and the
 * question the agent asked is withdrawn (asker_gone) and gone from the tray. Meanwhile the window's reads
 * (the run's detail and the All list, as it would fetch them) never show the session stale: from the kill
 * on they show it died, before the sweeper records it as well as after.
 */
export async function expectDiedWithQuestionWithdrawn(
  world: World,
  runId: string,
  questionId: string,
  died: RegExp,
): Promise<void> {
  // From the moment the session's process is gone (reaped: a zombie still has its pid) on.
  const owner = sessionOwnerPid(world, runId);
  await until('the killed process to be gone', () => !existsSync(`/proc/${owner}`), 10_000);
  const seen: string[] = [];
  const started = Date.now();
  const limit = world.host.settings.sweepIntervalMs + 3_000;
  for (;;) {
    seen.push(...(await windowShows(world, runId)));
    if (world.store.getRun(runId).status === 'failed') break;
    if (Date.now() - started > limit) throw new Error(`timed out waiting for the run to show died`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  seen.push(...(await windowShows(world, runId)));
  expect(world.store.getRun(runId).error).toMatch(died);
  // Straight to died: never "stale" (its process is gone) on the way, whatever the sweeper has done yet.
  expect(new Set(seen)).toEqual(new Set([`failed: Failed: ${world.store.getRun(runId).error ?? ''}`]));
  expect(world.store.getInteraction(questionId)).toMatchObject({
    status: 'cancelled',
    provenance: 'asker_gone',
  });
  expect(trayQuestion(world)).toBeUndefined();
}

/** "status: reason" of a run as the window's detail and its All list read it now. */
async function windowShows(world: World, runId: string): Promise<string[]> {
  const detail = await world.host.dispatch('runs:detail', { runId, eventsLimit: 1 });
  const list = await world.host.dispatch('runs:list', { view: 'all', limit: 50 });
  if (!detail.ok || !list.ok) throw new Error('the window could not read the run');
  const row = list.value.items.find((item) => item.run.id === runId);
  const shown = [`${detail.value.display.status}: ${detail.value.display.reason}`];
  if (row !== undefined) shown.push(`${row.display.status}: ${row.display.reason}`);
  return shown;
}
