/**
 * pi, for real and offline (docs/AGENTS.md#installing): pi has no permission prompts, so `runwarden agents install
 * pi` writes an extension whose `tool_call` handler is the gate; `pi -p` against the mock model asks for one
 * bash call.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerFromTray,
  expectDiedWithQuestionWithdrawn,
  BIN,
  createWorld,
  requireAgents,
  runsOf,
  runwarden,
  skipAgents,
  start,
  trayQuestion,
  until,
  type World,
} from './harness';

describe.skipIf(skipAgents)('pi', () => {
  let world: World;
  beforeEach(async () => {
    requireAgents();
    world = await createWorld();
    const agentDir = world.env.PI_CODING_AGENT_DIR ?? join(world.home, '.pi', 'agent');
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(
      join(agentDir, 'models.json'),
      JSON.stringify({
        providers: {
          mock: {
            baseUrl: world.mock.url,
            api: 'anthropic-messages',
            apiKey: 'sk-mock',
            models: [{ id: 'mock-model' }],
          },
        },
      }),
    );
  });
  afterEach(async () => {
    await world?.cleanup();
  });

  async function install(timeout = '60s'): Promise<void> {
    const installed = await runwarden(world, [
      'agents',
      'install',
      'pi',
      '--store',
      world.storePath,
      '--question-timeout',
      timeout,
    ]);
    expect(installed.code, installed.stderr).toBe(0);
  }

  function pi() {
    return start(world, [BIN.pi, '--model', 'mock/mock-model', '-p', 'Create the file, please.']);
  }

  it('asks in Runwarden, runs the command once a person allows it, and ends with the session', async () => {
    await install();
    const agent = pi();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    expect(question.title).toBe(`pi wants to run: touch ${world.marker}`);
    const [run] = runsOf(world, 'pi');
    expect(run?.title).toBe('pi in project');
    expect(existsSync(world.marker)).toBe(false);
    await answerFromTray(world, question, 'allow');
    const ran = await agent.done;
    expect(ran.code, agent.output()).toBe(0);
    expect(existsSync(world.marker)).toBe(true);
    // session_shutdown: the session's run ended.
    expect(world.store.getRun(run?.id ?? '').status).toBe('completed');
  });

  it('does not run the command when a person denies it', async () => {
    await install();
    const agent = pi();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    await answerFromTray(world, question, 'deny');
    await agent.done;
    expect(existsSync(world.marker)).toBe(false);
  });

  it('shows a killed agent as died, with its question withdrawn, within one sweep', async () => {
    await install();
    const agent = pi();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    const [run] = runsOf(world, 'pi');
    const owner = world.store.getSnapshot(run?.id ?? '').lease?.ownerPid;
    expect(owner).toBe(agent.child.pid);
    agent.child.kill('SIGKILL');
    await expectDiedWithQuestionWithdrawn(world, run?.id ?? '', question.id, /^pi died/);
  });

  it("blocks the call when nobody answers before the question's deadline (pi -p has no prompt of its own)", async () => {
    await install('2s');
    const agent = pi();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    await agent.done;
    expect(existsSync(world.marker)).toBe(false);
    expect(world.store.getInteraction(question.id)).toMatchObject({
      status: 'expired',
      provenance: 'expired_no_default',
    });
  });

  it('goes on as without Runwarden when the store cannot be reached, and says why once', async () => {
    // A store that cannot be created (its folder would sit under a file): every hook call fails to open it.
    const blocker = join(world.dir, 'not-a-folder');
    writeFileSync(blocker, 'a file\n');
    const installed = await runwarden(world, [
      'agents',
      'install',
      'pi',
      '--store',
      join(blocker, 'inside', 'store.sqlite'),
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const agent = pi();
    const ran = await agent.done;
    expect(ran.code, agent.output()).toBe(0);
    expect(existsSync(world.marker), agent.output()).toBe(true);
    expect(ran.stdout).not.toContain('Nobody answered');
    // Six hook calls (start, prompt, tool call, result, end of turn, shutdown) fail; the reason is said once.
    expect(ran.stderr.match(/the store cannot be opened/g) ?? [], ran.stderr).toHaveLength(1);
    expect(ran.stderr).toContain('pi goes on as usual');
  });
});
