/**
 * Codex's own terminal UI (in tmux), whose sessions run in a background `codex app-server` daemon shared by
 * every session and outliving them (docs/AGENTS.md#whose-life-is-the-session): the session's run belongs to
 * the terminal UI, not to the daemon. `/quit` ends the run; a killed terminal is recorded as died, its
 * question withdrawn at once and an answer to it refused; the daemon going away later changes nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe.skipIf(skipAgents)('Codex in its terminal', () => {
  let world: World;
  let socket: string;
  let codexHome: string;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  const screen = (): string => tmux('capture-pane', '-p', '-t', 'codex');

  /** The daemon and its updater, as Codex records them under CODEX_HOME (null before it started). */
  function daemonPids(): number[] {
    const pids: number[] = [];
    for (const file of ['daemon.pid', 'daemon-updater.pid']) {
      try {
        const { pid } = JSON.parse(readFileSync(join(codexHome, 'app-server-daemon', file), 'utf8')) as {
          pid: number;
        };
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(codexHome)) pids.push(pid);
      } catch {
        // Not started, or already gone.
      }
    }
    return pids;
  }

  beforeEach(async () => {
    requireAgents();
    world = await createWorld();
    socket = `runwarden-codex-${process.pid}`;
    codexHome = world.env.CODEX_HOME ?? join(world.home, '.codex');
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
        `[projects.${JSON.stringify(world.project)}]`,
        'trust_level = "trusted"',
        '',
      ].join('\n'),
    );
    const installed = await runwarden(world, ['agents', 'install', 'codex', '--store', world.storePath]);
    if (installed.code !== 0) throw new Error(`agents install codex failed: ${installed.stderr}`);
  });
  afterEach(async () => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
    for (const pid of daemonPids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await world?.cleanup();
  });

  /** Starts Codex's terminal UI; returns its pid (the pane's process: `env` execs Codex). */
  async function startCodex(approval: string): Promise<number> {
    const env = Object.entries(world.env).map(([key, value]) => `${key}=${value}`);
    tmux(
      'new-session',
      '-d',
      '-s',
      'codex',
      '-x',
      '160',
      '-y',
      '45',
      '-c',
      world.project,
      'env',
      ...env,
      BIN.codex,
      '-a',
      approval,
    );
    await until('the prompt', () => screen().includes('Ask Codex'), 60_000, screen);
    const pid = Number(tmux('display-message', '-p', '-t', 'codex', '#{pane_pid}').trim());
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain('app-server');
    return pid;
  }

  /** Types a line into the terminal UI and submits it (a key it missed is pressed again). */
  async function type(line: string, done: () => boolean): Promise<void> {
    tmux('send-keys', '-t', 'codex', '-l', line);
    let pressedAt = 0;
    await until(
      `"${line}" to take effect`,
      () => {
        if (done()) return true;
        if (Date.now() - pressedAt > 2_000) {
          tmux('send-keys', '-t', 'codex', 'Enter');
          pressedAt = Date.now();
        }
        return false;
      },
      60_000,
      screen,
    );
  }

  function sessionRun() {
    const [run] = runsOf(world, 'codex');
    return run === undefined ? null : run;
  }

  it('ends the session when the person quits, and the daemon going away later changes nothing', async () => {
    const tui = await startCodex('on-request');
    await type('Create the file, please.', () => existsSync(world.marker));
    const waiting = await until(
      'the turn to end',
      () => (sessionRun()?.statusDetail === 'Waiting for your next prompt' ? sessionRun() : null),
      30_000,
      screen,
    );
    // The run belongs to the terminal UI, not to the daemon that ran the hooks.
    expect(world.store.getSnapshot(waiting.id).lease?.ownerPid).toBe(tui);
    const daemons = daemonPids();
    expect(daemons.length).toBeGreaterThan(0);
    expect(daemons).not.toContain(tui);

    await type('/quit', () => !existsSync(`/proc/${tui}`));
    const ended = await until(
      'the session to end',
      () => (world.store.getRun(waiting.id).status === 'completed' ? world.store.getRun(waiting.id) : null),
      world.host.settings.sweepIntervalMs + 5_000,
    );
    expect(ended.error).toBeNull();
    // The daemon outlives the terminal; when it goes too, the ended session stays ended.
    expect(daemonPids()).toEqual(daemons);
    for (const pid of daemons) process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, world.host.settings.sweepIntervalMs * 2 + 500));
    expect(world.store.getRun(waiting.id)).toMatchObject({ status: 'completed' });
    expect(runsOf(world, 'codex').filter((run) => run.status === 'failed')).toEqual([]);

    // Codex rewrote its config at its first start, appending its own tables: uninstalling keeps them.
    const config = join(codexHome, 'config.toml');
    const written = readFileSync(config, 'utf8');
    expect(written).toMatch(/^\[tui\]$/m);
    const uninstalled = await runwarden(world, ['agents', 'uninstall', 'codex']);
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    const left = readFileSync(config, 'utf8');
    expect(left).not.toContain('agents hook codex');
    expect(left).not.toContain('hooks.state');
    expect(left).toContain('[model_providers.mock]');
    expect(left).toMatch(/^\[tui\]$/m);
  });

  it('records a killed terminal as died, withdraws its question at once and refuses an answer', async () => {
    world.mock.setEscalated(true);
    const tui = await startCodex('on-request');
    tmux('send-keys', '-t', 'codex', '-l', 'Create the file, please.');
    let pressedAt = 0;
    const question = await until(
      'the question in the tray',
      () => {
        const asked = trayQuestion(world);
        if (asked !== undefined) return asked;
        if (Date.now() - pressedAt > 2_000) {
          tmux('send-keys', '-t', 'codex', 'Enter');
          pressedAt = Date.now();
        }
        return undefined;
      },
      60_000,
      screen,
    );
    expect(question.title).toBe(`Codex wants to run: touch ${world.marker}`);
    const run = sessionRun();
    expect(world.store.getSnapshot(run?.id ?? '').lease?.ownerPid).toBe(tui);

    process.kill(tui, 'SIGKILL');
    await until('the terminal to be gone', () => !existsSync(`/proc/${tui}`), 5_000);
    // An answer given now is refused: nobody is in the session to act on it.
    const answered = await world.host.dispatch('interactions:answer', {
      interactionId: question.id,
      interactionRevision: question.revision,
      idempotencyKey: `tray-${question.id}`,
      payload: 'allow',
    });
    expect(answered.ok).toBe(false);
    expect(world.store.getInteraction(question.id)).toMatchObject({
      status: 'cancelled',
      provenance: 'asker_gone',
    });
    const died = await until(
      'the run to show died',
      () =>
        world.store.getRun(run?.id ?? '').status === 'failed' ? world.store.getRun(run?.id ?? '') : null,
      world.host.settings.sweepIntervalMs + 5_000,
    );
    expect(died.error).toMatch(/^Codex died/);
    expect(trayQuestion(world)).toBeUndefined();
    // The daemon carries on without the terminal, but the command is never run.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(existsSync(world.marker)).toBe(false);
  });
});
