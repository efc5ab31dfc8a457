/**
 * Codex, for real and offline (docs/AGENTS.md#installing): `runwarden agents install codex --gate` writes its
 * hooks and the trust Codex needs to run them (an untrusted hook is skipped silently, so every test here
 * also proves the recorded trust is the one Codex computes); `codex exec` never asks on its own, so its
 * PreToolUse hook is the gate. The mock model asks for one shell call.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerFromTray,
  expectDiedWithQuestionWithdrawn,
  BIN,
  createWorld,
  runsOf,
  requireAgents,
  runwarden,
  skipAgents,
  start,
  trayQuestion,
  until,
  type World,
} from './harness';

describe.skipIf(skipAgents)('Codex', () => {
  let world: World;
  beforeEach(async () => {
    requireAgents();
    world = await createWorld();
    const codexHome = world.env.CODEX_HOME ?? join(world.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        '',
        '[model_providers.mock]',
        'name = "Mock"',
        `base_url = "${world.mock.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "MOCK_API_KEY"',
        '',
      ].join('\n'),
    );
  });
  afterEach(async () => {
    await world?.cleanup();
  });

  async function install(timeout = '60s'): Promise<void> {
    const installed = await runwarden(world, [
      'agents',
      'install',
      'codex',
      '--gate',
      '--store',
      world.storePath,
      '--question-timeout',
      timeout,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const status = await runwarden(world, [
      'agents',
      'status',
      'codex',
      '--store',
      world.storePath,
      '--json',
    ]);
    expect(status.code, status.stdout).toBe(0);
  }

  function codex() {
    return start(world, [
      BIN.codex,
      'exec',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      'Create the file, please.',
    ]);
  }

  it('asks in Runwarden, and runs the command once a person allows it', async () => {
    await install();
    const agent = codex();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    expect(question.title).toBe(`Codex wants to run: touch ${world.marker}`);
    expect(question.choices).toEqual(['allow', 'deny']);
    const [run] = runsOf(world, 'codex');
    expect(run?.title).toBe('Codex in project');
    expect(existsSync(world.marker)).toBe(false);
    await answerFromTray(world, question, 'allow');
    const ran = await agent.done;
    expect(ran.code, agent.output()).toBe(0);
    expect(existsSync(world.marker)).toBe(true);
    // Codex says nothing when a session ends: exiting while it waits for the next prompt ends it.
    const ended = await until(
      'the session to end',
      () => (world.store.getRun(run?.id ?? '').status === 'completed' ? true : null),
      world.host.settings.sweepIntervalMs + 3_000,
    );
    expect(ended).toBe(true);
  });

  it('does not run the command when a person denies it', async () => {
    await install();
    const agent = codex();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    await answerFromTray(world, question, 'deny');
    await agent.done;
    expect(existsSync(world.marker)).toBe(false);
    expect(world.store.getInteraction(question.id)).toMatchObject({ status: 'settled', response: 'deny' });
  });

  it('shows a killed agent as died, with its question withdrawn, within one sweep', async () => {
    await install();
    const agent = codex();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    const [run] = runsOf(world, 'codex');
    const owner = world.store.getSnapshot(run?.id ?? '').lease?.ownerPid;
    expect(owner).toBeGreaterThan(1);
    process.kill(owner ?? 0, 'SIGKILL');
    agent.child.kill('SIGKILL');
    await expectDiedWithQuestionWithdrawn(world, run?.id ?? '', question.id, /^Codex died/);
  });

  it("hands the decision back to Codex when nobody answers before the question's deadline", async () => {
    await install('2s');
    const agent = codex();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    await agent.done;
    expect(world.store.getInteraction(question.id)).toMatchObject({
      status: 'expired',
      provenance: 'expired_no_default',
    });
  });
});
