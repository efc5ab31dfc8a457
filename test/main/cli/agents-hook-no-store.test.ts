/**
 * A hook never blocks its agent (docs/AGENTS.md): when the store cannot be opened, `runwarden agents hook`
 * prints nothing (the agent asks in its own terminal as usual), says why on stderr and exits 0, for a
 * permission request as for every other event. Needs no agent installed: the hook reads the agent's JSON on
 * stdin, as the agents send it.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';

const dir = tempDir('runwarden-hook-');
// Session ids no earlier run used: why a hook cannot reach the store is said once per session.
const STAMP = `${process.pid}-${Date.now()}`;
afterAll(() => dir.remove());

function hook(agent: string, store: string, event: Record<string, unknown>) {
  return spawnSync(process.execPath, [testCliBin(), 'agents', 'hook', agent, '--store', store], {
    input: JSON.stringify({ session_id: `no-store-${STAMP}`, cwd: dir.path, ...event }),
    env: { ...process.env, NO_COLOR: '1', CLAUDE_PID: String(process.pid) },
    encoding: 'utf8',
    // Far longer than a hook that gave up should take, far shorter than a question's wait.
    timeout: 30_000,
  });
}

const PERMISSION = {
  hook_event_name: 'PermissionRequest',
  tool_name: 'Bash',
  tool_input: { command: 'touch created-by-the-agent' },
};

describe('agents hook with a store it cannot open', () => {
  const notAStore = join(dir.path, 'not-a-store.sqlite');
  writeFileSync(notAStore, 'these bytes are not SQLite\n');
  const cases: Array<[string, string]> = [
    ['a folder that cannot be created (under a file)', join(notAStore, 'inside', 'state.sqlite')],
    ['a file that is not a store', notAStore],
  ];

  for (const [what, store] of cases) {
    for (const agent of ['claude-code', 'codex', 'qwen-code', 'gemini', 'opencode']) {
      it(`${agent}, ${what}: no decision, a reason on stderr, exit 0`, () => {
        // Gemini CLI asks through BeforeTool (its PreToolUse), the others through PermissionRequest.
        const event =
          agent === 'gemini'
            ? { ...PERMISSION, hook_event_name: 'BeforeTool', tool_name: 'run_shell_command' }
            : PERMISSION;
        const result = hook(agent, store, { ...event, session_id: `${agent}-${what}-${STAMP}` });
        expect(result.error, 'the hook must not block its agent').toBeUndefined();
        expect(result.status, result.stderr).toBe(0);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/the store cannot be opened: .+; .+ goes on as usual/);
      });
    }
  }

  it('tells the pi extension to go on as without Runwarden, and says why once per session', () => {
    const first = hook('pi', notAStore, {
      ...PERMISSION,
      hook_event_name: 'PreToolUse',
      session_id: `pi-${STAMP}`,
    });
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ runwarden: 'unavailable' });
    expect(first.stderr).toMatch(/the store cannot be opened: .+; pi goes on as usual/);
    const again = hook('pi', notAStore, { hook_event_name: 'Stop', session_id: `pi-${STAMP}` });
    expect(JSON.parse(again.stdout)).toEqual({ runwarden: 'unavailable' });
    expect(again.stderr).toBe('');
    const other = hook('pi', notAStore, { hook_event_name: 'Stop', session_id: `pi-other-${STAMP}` });
    expect(other.stderr).toMatch(/the store cannot be opened/);
  });

  for (const agent of ['qwen-code', 'gemini']) {
    it(`${agent}: says why once per session, not on every hook call`, () => {
      const session = `${agent}-once-${STAMP}`;
      const first = hook(agent, notAStore, { hook_event_name: 'SessionStart', session_id: session });
      expect(first.stderr).toMatch(
        /the store cannot be opened: .+; .+ goes on as usual \(said once per session\)/,
      );
      for (const event of ['UserPromptSubmit', 'BeforeAgent', 'Stop', 'SessionEnd']) {
        const again = hook(agent, notAStore, { hook_event_name: event, session_id: session });
        expect(again.status).toBe(0);
        expect(again.stdout).toBe('');
        expect(again.stderr).toBe('');
      }
    });
  }

  it('leaves a file that is not a store as it was', () => {
    hook('claude-code', notAStore, { hook_event_name: 'PostToolUse', tool_name: 'Bash' });
    expect(spawnSync('cat', [notAStore], { encoding: 'utf8' }).stdout).toBe('these bytes are not SQLite\n');
  });
});
