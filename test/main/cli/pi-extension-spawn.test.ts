/**
 * The pi extension's call to `runwarden agents hook pi`, run by a real Node as pi would load it (plain
 * JavaScript): the launch's variables reach the hook, and a CLI that cannot be started is said once on stderr
 * (not swallowed, not repeated per event), whether spawn fails later (a missing file) or at once (Windows'
 * EINVAL for a `.cmd`; here an argument Node refuses).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { piExtensionSource } from '../../../main/cli/agents/pi-extension';
import { tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
beforeEach(() => {
  dir = tempDir('runwarden-pi-extension-');
});
afterEach(() => dir.remove());

/** Loads the extension with a stand-in `pi`, fires `session_start` three times; prints what each call got. */
function runExtension(cliArgv: string[], cliEnv: Record<string, string>): { stdout: string; stderr: string } {
  const extension = join(dir.path, 'runwarden.mjs');
  writeFileSync(extension, piExtensionSource(cliArgv, [], cliEnv));
  const driver = join(dir.path, 'driver.mjs');
  writeFileSync(
    driver,
    `const handlers = {};
const { default: register } = await import(${JSON.stringify(extension)});
register({ on: (event, fn) => (handlers[event] = fn) });
const ctx = { sessionManager: { getSessionId: () => "s1" }, cwd: process.cwd(), hasUI: false };
for (let i = 0; i < 3; i++) await handlers.session_start({}, ctx);
const reply = await handlers.tool_call({ toolName: "bash", input: { command: "ls" } }, ctx);
console.log(reply === undefined ? "undefined" : JSON.stringify(reply));
`,
  );
  const run = spawnSync(process.execPath, [driver], { encoding: 'utf8', timeout: 30_000 });
  expect(run.status).toBe(0);
  return { stdout: run.stdout, stderr: run.stderr };
}

describe('the pi extension starting the CLI', () => {
  it("passes the launch's variables to the hook process (Windows: Node mode)", () => {
    const hook = join(dir.path, 'hook.mjs');
    writeFileSync(
      hook,
      `let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  if (JSON.parse(input).hook_event_name !== "PreToolUse") return;
  const ok = process.env.RW_MODE === "1" && process.argv.slice(2).join(" ") === "agents hook pi";
  console.log(JSON.stringify({ hookSpecificOutput: { permissionDecision: ok ? "deny" : "ask", permissionDecisionReason: "from the hook" } }));
});
`,
    );
    const { stdout, stderr } = runExtension([process.execPath, hook], { RW_MODE: '1' });
    expect(JSON.parse(stdout)).toEqual({ block: true, reason: 'from the hook' });
    expect(stderr).toBe('');
  });

  it('says once on stderr that a missing CLI cannot be started, and pi goes on', () => {
    const missing = join(dir.path, 'no-such-runwarden');
    const { stdout, stderr } = runExtension([missing], {});
    expect(stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(stderr).toContain(`Runwarden: cannot start ${missing}`);
    expect(stderr).toContain('ENOENT');
    // Runwarden unavailable: the gated call goes on, as pi does without Runwarden.
    expect(stdout).toBe('undefined\n');
  });

  it('says so once when spawn itself throws (as Windows does for a .cmd)', () => {
    const { stderr } = runExtension(['bad\u0000name'], {});
    expect(stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(stderr).toContain('Runwarden: cannot start bad');
  });
});
