/**
 * The entry of `runwarden agents hook AGENT` (out/cli/agent-hook.cjs): what an agent runs on every event, so
 * it starts without the rest of the CLI (docs/CLI.md#start-up). The shims (bin/runwarden.js, the installed
 * app's cli/entry.js) run this file instead of the CLI's entry when their arguments begin `agents hook`,
 * and call `runAgentHook`. It is one CommonJS file, built on its own: no command registry, no chunk to
 * resolve, only the hook's code and the agent-session side of the store. Anything but a well-formed hook
 * call (--help, an unknown option or agent, a bad value) gets null, and the shim starts the whole CLI,
 * which answers it as it always does.
 */
import type { CliContext } from '../command';
import { guardedStream } from '../output';
import { stopBetweenStatements } from '../stop-between-statements';
import { fastHookOptions } from './hook-options';
import { runHook } from './run-hook';

/** Runs `agents hook` for these arguments; null when the whole CLI should answer them instead. */
export async function runAgentHook(argv: readonly string[]): Promise<number | null> {
  const options = fastHookOptions(argv);
  if (options === null) return null;
  stopBetweenStatements();
  const cleanups: Array<() => void> = [];
  // Nothing the hook prints drives the terminal, and none of it is coloured.
  const stderr = guardedStream({ write: (chunk) => process.stderr.write(chunk) }, false);
  const stdout = { write: (chunk: string) => process.stdout.write(chunk) };
  const ctx: CliContext = {
    stdout: guardedStream(stdout, false),
    stderr,
    rawStdout: stdout,
    env: process.env,
    cwd: process.cwd(),
    binPath: process.argv[1] ?? '',
    json: false,
    paint: (_style, text) => text,
    now: () => Date.now(),
    defer: (cleanup) => cleanups.push(cleanup),
    runCommandLine: () => Promise.reject(new Error('the hook runs no other command')),
  };
  try {
    return await runHook(ctx, options);
  } finally {
    for (const cleanup of cleanups.toReversed()) {
      try {
        cleanup();
      } catch {
        // Closing twice or after a failure must not hide the hook's own result.
      }
    }
  }
}
