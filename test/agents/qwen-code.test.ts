/**
 * Qwen Code, for real and offline, in its own terminal (tmux) against the mock model's OpenAI Chat
 * Completions (docs/AGENTS.md#installing). `qwen -p` never asks (it refuses the shell without a prompt), so the
 * terminal UI is what a person uses: `runwarden agents install qwen-code` writes Claude-compatible hooks into
 * `~/.qwen/settings.json`; the permission request is a question in the tray's attention read; allow runs the
 * command, deny does not; `/quit` ends the run; a killed session process shows died with its question
 * withdrawn; uninstall gives the settings back byte for byte.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerFromTray,
  BIN,
  createWorld,
  expectDiedWithQuestionWithdrawn,
  requireAgents,
  runsOf,
  runwarden,
  sessionOwnerPid,
  skipAgents,
  trayQuestion,
  until,
  type World,
} from './harness';

/**
 * The person's own settings: Qwen Code's OpenAI-compatible sign-in, four-space indent, no newline at the end,
 * already at Qwen Code's settings version (an older file is rewritten by Qwen Code itself at its start).
 */
const SETTINGS = JSON.stringify({ $version: 4, security: { auth: { selectedType: 'openai' } } }, null, 4);

describe.skipIf(skipAgents)('Qwen Code in its terminal', () => {
  let world: World;
  let socket: string;
  let settings: string;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = (): string => tmux('capture-pane', '-p', '-t', 'qwen');

  beforeEach(async () => {
    requireAgents();
    world = await createWorld();
    socket = `runwarden-qwen-${process.pid}`;
    settings = join(world.home, '.qwen', 'settings.json');
    mkdirSync(join(world.home, '.qwen'), { recursive: true });
    writeFileSync(settings, SETTINGS);
  });
  afterEach(async () => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
    await world?.cleanup();
  });

  /** Installs Runwarden's hooks, starts Qwen Code in tmux, waits for its session's run, sends the prompt. */
  async function startAndPrompt(): Promise<string> {
    const installed = await runwarden(world, [
      'agents',
      'install',
      'qwen-code',
      '--store',
      world.storePath,
      '--question-timeout',
      '60s',
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const status = await runwarden(world, ['agents', 'status', 'qwen-code', '--store', world.storePath]);
    expect(status.stdout).toContain('Qwen Code: connected');
    const env = {
      ...world.env,
      OPENAI_BASE_URL: `${world.mock.url}/v1`,
      OPENAI_API_KEY: 'sk-mock',
      OPENAI_MODEL: 'mock-model',
    };
    tmux(
      'new-session',
      '-d',
      '-s',
      'qwen',
      '-x',
      '160',
      '-y',
      '45',
      '-c',
      world.project,
      'env',
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      BIN['qwen-code'],
      '--approval-mode',
      'default',
    );
    // SessionStart: the session's run, waiting for the first prompt.
    const run = await until('the session run', () => runsOf(world, 'qwen-code')[0], 90_000, screen);
    expect(run.title).toBe('Qwen Code in project');
    await until('the prompt', () => screen().includes('Type your message'), 30_000, screen);
    tmux('send-keys', '-t', 'qwen', '-l', 'Create the file, please.');
    tmux('send-keys', '-t', 'qwen', 'Enter');
    return run.id;
  }

  it('asks in Runwarden; allow runs the command; /quit ends the run; uninstall restores the file', async () => {
    const runId = await startAndPrompt();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, screen);
    expect(question.title).toBe(`Qwen Code wants to run: touch ${world.marker}`);
    expect(question.prompt).toContain('Tool: run_shell_command');
    expect(question.prompt).toContain(`Project: ${world.project}`);
    expect(world.store.getRun(runId).status).toBe('waiting');
    expect(existsSync(world.marker)).toBe(false);

    await answerFromTray(world, question, 'allow');
    await until('the file', () => existsSync(world.marker), 30_000, screen);
    // Stop: the turn ended, the session waits for the next prompt.
    await until(
      'the turn to end',
      () => world.store.getRun(runId).statusDetail === 'Waiting for your next prompt',
      30_000,
      screen,
    );
    tmux('send-keys', '-t', 'qwen', '-l', '/quit');
    tmux('send-keys', '-t', 'qwen', 'Enter');
    // SessionEnd: the run completed.
    await until(
      'the run to complete',
      () => world.store.getRun(runId).status === 'completed',
      30_000,
      screen,
    );

    const removed = await runwarden(world, ['agents', 'uninstall', 'qwen-code', '--store', world.storePath]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(SETTINGS);
  });

  it('does not run the command when a person denies it', async () => {
    const runId = await startAndPrompt();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, screen);
    await answerFromTray(world, question, 'deny');
    await until(
      'the turn to end',
      () => world.store.getRun(runId).statusDetail === 'Waiting for your next prompt',
      30_000,
      screen,
    );
    expect(existsSync(world.marker)).toBe(false);
    expect(world.store.getInteraction(question.id)).toMatchObject({ status: 'settled', response: 'deny' });
  });

  it('shows a killed session as died, with its question withdrawn, within one sweep', async () => {
    const runId = await startAndPrompt();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, screen);
    // The process whose life is the session: Qwen Code's own, the hook's nearest non-shell ancestor.
    const pid = sessionOwnerPid(world, runId);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('qwen-code');
    process.kill(pid, 'SIGKILL');
    await expectDiedWithQuestionWithdrawn(world, runId, question.id, /^Qwen Code died/);
    expect(existsSync(world.marker)).toBe(false);
  });
});
