/**
 * Gemini CLI, for real and offline, against the mock model's Gemini generateContent (docs/AGENTS.md#installing):
 * `runwarden agents install gemini` writes its hooks into `~/.gemini/settings.json`; Gemini's `BeforeTool`
 * hook asks in Runwarden before the shell call. Its hooks can refuse a call but not allow one, so these run
 * `gemini -p --yolo`, where Gemini's own policy allows every call: a person's deny blocks it, allow lets it
 * run (and says that Gemini would ask again where its policy asks). A killed agent is recorded as died; with
 * the store unreachable Gemini goes on as without Runwarden; uninstall gives the file back byte for byte.
 */
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
  skipAgents,
  start,
  trayQuestion,
  until,
  type World,
} from './harness';

/** The person's own settings: Gemini's API-key sign-in, two-space indent, no newline at the end. */
const SETTINGS = JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2);

describe.skipIf(skipAgents)('Gemini CLI', () => {
  let world: World;
  let settings: string;
  beforeEach(async () => {
    requireAgents();
    world = await createWorld();
    const dir = join(world.home, '.gemini');
    settings = join(dir, 'settings.json');
    mkdirSync(dir, { recursive: true });
    writeFileSync(settings, SETTINGS);
    // The project is trusted, as a person's own is once they said so (else Gemini ignores --yolo).
    writeFileSync(join(dir, 'trustedFolders.json'), JSON.stringify({ [world.project]: 'TRUST_FOLDER' }));
  });
  afterEach(async () => {
    await world?.cleanup();
  });

  async function install(store = world.storePath): Promise<void> {
    const installed = await runwarden(world, [
      'agents',
      'install',
      'gemini',
      '--store',
      store,
      '--question-timeout',
      '60s',
    ]);
    expect(installed.code, installed.stderr).toBe(0);
  }

  function gemini() {
    return start(world, [BIN.gemini, '-p', 'Create the file, please.', '-m', 'mock-model', '--yolo'], {
      GEMINI_API_KEY: 'mock',
      GOOGLE_GEMINI_BASE_URL: world.mock.url,
    });
  }

  it('asks in Runwarden; allow lets the call run; status; uninstall restores the file', async () => {
    await install();
    const status = await runwarden(world, ['agents', 'status', 'gemini', '--store', world.storePath]);
    expect(status.stdout).toContain('Gemini CLI: connected');
    const agent = gemini();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    expect(question.title).toBe(`Gemini CLI wants to run: touch ${world.marker}`);
    expect(question.prompt).toContain('Tool: run_shell_command');
    const [run] = runsOf(world, 'gemini');
    expect(run?.title).toBe('Gemini CLI in project');
    expect(world.store.getRun(run?.id ?? '').status).toBe('waiting');
    expect(existsSync(world.marker)).toBe(false);

    await answerFromTray(world, question, 'allow');
    const ran = await agent.done;
    expect(ran.code, agent.output()).toBe(0);
    expect(existsSync(world.marker)).toBe(true);
    // Gemini shows the hook's line: it would ask again itself where its own policy asks.
    expect(ran.stderr).toContain("Gemini CLI's hooks can refuse a tool call but not allow one");
    // SessionEnd: the session's run ended.
    expect(world.store.getRun(run?.id ?? '').status).toBe('completed');

    const removed = await runwarden(world, ['agents', 'uninstall', 'gemini', '--store', world.storePath]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe(SETTINGS);
  });

  it('blocks the call when a person denies it', async () => {
    await install();
    const agent = gemini();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    await answerFromTray(world, question, 'deny');
    const ran = await agent.done;
    expect(ran.code, agent.output()).toBe(0);
    expect(existsSync(world.marker)).toBe(false);
    expect(world.store.getInteraction(question.id)).toMatchObject({ status: 'settled', response: 'deny' });
  });

  it('shows a killed agent as died, with its question withdrawn, within one sweep', async () => {
    await install();
    const agent = gemini();
    const question = await until('the question in the tray', () => trayQuestion(world), 60_000, agent.output);
    const [run] = runsOf(world, 'gemini');
    // Gemini starts itself again as a child with more memory; both go, as with Ctrl-C at a terminal.
    agent.child.kill('SIGKILL');
    const owner = world.store.db
      .prepare(`SELECT owner_pid FROM leases WHERE run_id = ?`)
      .pluck()
      .get(run?.id) as number;
    if (owner !== agent.child.pid) process.kill(owner, 'SIGKILL');
    await agent.done;
    await expectDiedWithQuestionWithdrawn(world, run?.id ?? '', question.id, /^Gemini CLI died/);
    expect(existsSync(world.marker)).toBe(false);
  });

  it('goes on as without Runwarden when the store cannot be reached, and says why once', async () => {
    const notAStore = join(world.dir, 'not-a-store.sqlite');
    writeFileSync(notAStore, 'these bytes are not SQLite\n');
    await install(notAStore);
    const ran = await gemini().done;
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(world.marker)).toBe(true);
    // One hook call said it (Gemini repeats that hook's stderr once as "Hook system message: …").
    const said = ran.stderr
      .split('\n')
      .filter((line) => line.startsWith('runwarden: the store cannot be opened'));
    expect(said, ran.stderr).toHaveLength(1);
    expect(said[0]).toContain('Gemini CLI goes on as usual (said once per session)');
  });
});
