/**
 * Claude Code's own terminal (its TUI, in tmux): while its PermissionRequest hook waits for Runwarden, the
 * terminal shows its own dialog. A person who answers there instead leaves the hook waiting (Claude Code does
 * not stop it); the next hook of the session (PostToolUse) withdraws the Runwarden question at once, so
 * nothing stays pending in the tray (docs/AGENTS.md#answered-in-the-terminal).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WAITING_LINE } from '../../main/cli/agents/hook-settings';
import {
  BIN,
  createWorld,
  requireAgents,
  runsOf,
  runwarden,
  skipAgents,
  trayQuestion,
  until,
  type World,
} from './harness';

const API_KEY = 'sk-mock-0123456789abcdefghij';

/** Text as a terminal may wrap it: every run of whitespace one space. */
const flat = (text: string): string => text.replace(/\s+/g, ' ');

describe.skipIf(skipAgents)('Claude Code in its terminal', () => {
  let world: World;
  let socket: string;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = (): string => tmux('capture-pane', '-p', '-t', 'claude');

  beforeEach(async () => {
    requireAgents();
    world = await createWorld();
    socket = `runwarden-agents-${process.pid}`;
    const config = world.env.CLAUDE_CONFIG_DIR ?? join(world.home, '.claude');
    mkdirSync(config, { recursive: true });
    // What Claude Code's first start asks once (onboarding, trusting the folder, the API key), already said.
    writeFileSync(
      join(config, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
        projects: { [world.project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      }),
    );
  });
  afterEach(async () => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
    await world?.cleanup();
  });

  /** Installs the hooks and starts Claude Code's terminal UI in tmux, at its prompt. */
  async function startClaude(): Promise<void> {
    const installed = await runwarden(world, [
      'agents',
      'install',
      'claude-code',
      '--store',
      world.storePath,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const env = Object.entries({ ...world.env, ANTHROPIC_API_KEY: API_KEY }).map(([k, v]) => `${k}=${v}`);
    tmux(
      'new-session',
      '-d',
      '-s',
      'claude',
      '-x',
      '160',
      '-y',
      '45',
      '-c',
      world.project,
      'env',
      ...env,
      BIN['claude-code'],
      '--permission-mode',
      'default',
    );
    await until('the prompt', () => screen().includes('❯'), 60_000, screen);
  }

  it('withdraws the Runwarden question when the person answers in the terminal', async () => {
    await startClaude();
    tmux('send-keys', '-t', 'claude', '-l', 'Create the file, please.');
    tmux('send-keys', '-t', 'claude', 'Enter');
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, screen);
    await until('the terminal dialog', () => screen().includes('Do you want to proceed?'), 30_000, screen);

    // The model's next answer waits: Claude Code stays in its turn, so no Stop can withdraw the question.
    world.mock.hold();
    // The dialog can be drawn before it reads keys: a key it missed is pressed again while it still shows.
    let pressedAt = 0;
    await until(
      'the file',
      () => {
        if (existsSync(world.marker)) return true;
        if (Date.now() - pressedAt > 2_000 && screen().includes('Do you want to proceed?')) {
          tmux('send-keys', '-t', 'claude', '1');
          pressedAt = Date.now();
        }
        return false;
      },
      30_000,
      screen,
    );
    const withdrawn = await until(
      'the question to be withdrawn',
      () => {
        const now = world.store.getInteraction(question.id);
        return now.status === 'cancelled' ? now : null;
      },
      30_000,
      screen,
    );
    expect(withdrawn.provenance).toBe('asker_interrupted');
    const [during] = runsOf(world, 'claude-code');
    expect(during?.statusDetail).toBe('Working');
    world.mock.release();
    await until('the tray to have no question', () => trayQuestion(world) === undefined, 10_000);
    await until('the turn to end', () => screen().includes('Done.'), 30_000, screen);
  });

  it("asks Claude Code's questions as one form; a multi-select answered from the CLI reaches Claude as its own", async () => {
    world.mock.setAskUserQuestion({ questions: QUESTIONS });
    await startClaude();
    tmux('send-keys', '-t', 'claude', '-l', 'Ask me which checks to run.');
    tmux('send-keys', '-t', 'claude', 'Enter');
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, screen);
    // Claude Code shows no dialog of its own meanwhile: the terminal says where the question waits.
    await until('the terminal line', () => flat(screen()).includes(flat(WAITING_LINE)), 10_000, screen);
    expect(question.kind).toBe('input');
    expect(question.title).toBe('Claude Code asks 2 questions: Which checks should run?');
    expect(question.prompt).toContain('About: Checks, Runner');
    expect(question.fields).toEqual([
      {
        name: 'q1',
        type: 'choice',
        label: 'Which checks should run?',
        required: true,
        options: QUESTIONS[0]?.options,
        multi: true,
        allowOther: true,
      },
      {
        name: 'q2',
        type: 'choice',
        label: 'Which runner?',
        required: true,
        options: QUESTIONS[1]?.options,
        allowOther: true,
      },
    ]);
    const answer = (json: string) =>
      runwarden(world, ['answer', question.id, '--store', world.storePath, '--json', json]);
    // Not an option with no own words left, two answers in one's own words, a list for a single choice,
    // too few answers: each refused (exit 2), the question untouched.
    for (const bad of [
      '[["Tests", "Docs", "Lint, but quick"], "Vitest"]',
      '[["Tests"], ["Vitest"]]',
      '[["Tests"]]',
      '{"q1": "Tests", "q2": "Vitest"}',
    ]) {
      const refused = await answer(bad);
      expect(refused.code, `${bad}: ${refused.stderr}`).toBe(2);
    }
    expect(world.store.getInteraction(question.id)).toMatchObject({
      status: 'pending',
      revision: question.revision,
    });
    const answered = await answer('[["Tests", "Types", "only the fast ones, please"], "Vitest"]');
    expect(answered.code, answered.stderr).toBe(0);
    const result = await until(
      "the answers in Claude Code's tool result",
      () => world.mock.toolResults().find((text) => text.includes('Which checks should run?')),
      30_000,
      screen,
    );
    // Claude Code's own dialog joins picks with ", " and quotes one that holds ", ": its model reads the same.
    expect(result).toContain('"Which checks should run?"="Tests, Types, "only the fast ones, please""');
    expect(result).toContain('"Which runner?"="Vitest"');
    expect(world.store.getInteraction(question.id)).toMatchObject({
      status: 'settled',
      provenance: 'human',
      response: { q1: ['Tests', 'Types', 'only the fast ones, please'], q2: 'Vitest' },
    });
  });
});

/** Two questions in one AskUserQuestion call: a multi-select and a single choice, with descriptions. */
const QUESTIONS = [
  {
    question: 'Which checks should run?',
    header: 'Checks',
    multiSelect: true,
    options: [
      { label: 'Tests', description: 'The unit tests' },
      { label: 'Lint', description: 'oxlint and prettier' },
      { label: 'Types', description: 'tsc and svelte-check' },
    ],
  },
  {
    question: 'Which runner?',
    header: 'Runner',
    multiSelect: false,
    options: [
      { label: 'Vitest', description: 'Fast, ESM first' },
      { label: 'Jest', description: 'The old default' },
    ],
  },
];
