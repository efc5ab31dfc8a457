/**
 * Claude Code, for real and offline (docs/AGENTS.md#installing): `runwarden agents install claude-code`
 * writes its hooks; `claude -p` against the mock model asks for one shell call; the permission request is a
 * question in the tray's attention read; the person's answer through the host's handler decides whether the
 * command runs; a killed agent is recorded as died; a question nobody answers hands back to Claude Code.
 */
import { existsSync } from 'node:fs';
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

describe.skipIf(skipAgents)('Claude Code', () => {
  let world: World;
  beforeEach(async () => {
    requireAgents();
    world = await createWorld();
  });
  afterEach(async () => {
    await world?.cleanup();
  });

  async function install(timeout = '60s'): Promise<void> {
    const installed = await runwarden(world, [
      'agents',
      'install',
      'claude-code',
      '--store',
      world.storePath,
      '--question-timeout',
      timeout,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
  }

  function claude() {
    return start(world, [BIN['claude-code'], '-p', 'Create the file, please.']);
  }

  it('asks in Runwarden, and runs the command once a person allows it', async () => {
    await install();
    const agent = claude();
    const question = await until(
      'the permission request in the tray',
      () => trayQuestion(world),
      60_000,
      agent.output,
    );
    expect(question.title).toBe(`Claude Code wants to run: touch ${world.marker}`);
    expect(question.prompt).toContain('Reason: Create the file the test checks for');
    expect(question.prompt).toContain(`Project: ${world.project}`);
    // Claude Code suggests a rule and a mode change: the mode is its own choice, said in words.
    expect(question.choices).toEqual(['allow', 'deny', 'allow-always', 'allow-and-switch-to-acceptEdits']);
    expect(question.prompt).toContain(`Command:\n\`\`\`\ntouch ${world.marker}\n\`\`\``);
    const always = question.prompt.slice(question.prompt.indexOf('allow-always also:')).split('\n\n')[0];
    expect(always).toMatch(/^allow-always also:\n- /);
    expect(always).not.toMatch(/setMode|acceptEdits/);
    expect(question.prompt).toContain(
      'allow-and-switch-to-acceptEdits: allow this call and switch the whole session to acceptEdits mode',
    );
    const [run] = runsOf(world, 'claude-code');
    expect(run?.title).toBe('Claude Code in project');
    expect(world.store.getRun(run?.id ?? '').status).toBe('waiting');
    expect(existsSync(world.marker)).toBe(false);

    await answerFromTray(world, question, 'allow');
    const ran = await agent.done;
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(world.marker)).toBe(true);
    // SessionEnd: the session's run ended.
    const ended = world.store.getRun(run?.id ?? '');
    expect(ended.status).toBe('completed');
    expect(world.store.getInteraction(question.id)).toMatchObject({ status: 'settled', provenance: 'human' });
  });

  it('does not run the command when a person denies it', async () => {
    await install();
    const agent = claude();
    const question = await until(
      'the permission request in the tray',
      () => trayQuestion(world),
      60_000,
      agent.output,
    );
    await answerFromTray(world, question, 'deny');
    const ran = await agent.done;
    expect(ran.code).toBe(0);
    expect(existsSync(world.marker)).toBe(false);
    expect(world.store.getInteraction(question.id)).toMatchObject({ status: 'settled', response: 'deny' });
  });

  it('shows a killed agent as died, with its question withdrawn, within one sweep', async () => {
    await install();
    const agent = claude();
    const question = await until(
      'the permission request in the tray',
      () => trayQuestion(world),
      60_000,
      agent.output,
    );
    const [run] = runsOf(world, 'claude-code');
    agent.child.kill('SIGKILL');
    await agent.done;
    await expectDiedWithQuestionWithdrawn(world, run?.id ?? '', question.id, /^Claude Code died/);
    expect(existsSync(world.marker)).toBe(false);
  });

  it("hands the decision back to Claude Code when nobody answers before the question's deadline", async () => {
    await install('2s');
    const agent = claude();
    const question = await until(
      'the permission request in the tray',
      () => trayQuestion(world),
      60_000,
      agent.output,
    );
    const ran = await agent.done;
    // `claude -p` has nobody to ask in its terminal: its own rule denies.
    expect(existsSync(world.marker)).toBe(false);
    expect(ran.code).toBe(0);
    expect(world.store.getInteraction(question.id)).toMatchObject({
      status: 'expired',
      provenance: 'expired_no_default',
    });
  });
});
