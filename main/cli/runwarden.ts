/**
 * Entry point of the `runwarden` CLI bundle (out/cli/runwarden.js, started by bin/runwarden.js).
 */
import { fileURLToPath } from 'node:url';
import type { CliContext } from './command';
import { colourEnabled, guardedStream, lazyPainter, lazyStream } from './output';
import { runCli } from './run-cli';
import { stopBetweenStatements } from './stop-between-statements';
import { becomeSubreaper } from '../runner/subreaper';

// node:fs and node:tty as Node's own objects, not through `import`: their ESM wrappers read every export,
// which loads fs/promises, readline, net and the stream modules (docs/CLI.md#start-up).
const { existsSync } = process.getBuiltinModule('node:fs');
const isatty = (fd: number): boolean => process.getBuiltinModule('node:tty').isatty(fd);

function binPath(): string {
  // This file is out/cli/runwarden.js once built; the shim sits at bin/runwarden.js beside out/.
  const beside = fileURLToPath(new URL('../../bin/runwarden.js', import.meta.url));
  if (existsSync(beside)) return beside;
  return process.argv[1] ?? beside;
}

/** The commands that supervise a run keep its processes below them (docs/LIVENESS.md#only-a-person-outside-the-run-answers). */
const SUPERVISORS = new Set(['exec', 'worker']);

async function main(): Promise<void> {
  if (SUPERVISORS.has(process.argv[2] ?? '')) becomeSubreaper();
  stopBetweenStatements();
  const cleanups: Array<() => void> = [];
  const stdout = lazyStream(
    () => process.stdout,
    () => isatty(1),
  );
  const stderr = lazyStream(
    () => process.stderr,
    () => isatty(2),
  );
  let decided: boolean | undefined;
  const colour = (): boolean => (decided ??= colourEnabled(stdout, process.env));
  const ctx: CliContext = {
    stdout: guardedStream(stdout, colour),
    stderr: guardedStream(stderr, colour),
    rawStdout: stdout,
    env: process.env,
    cwd: process.cwd(),
    binPath: binPath(),
    json: false,
    paint: lazyPainter(colour),
    now: () => Date.now(),
    defer: (cleanup) => cleanups.push(cleanup),
    runCommandLine: runCli,
  };
  let code: number;
  try {
    code = await runCli(ctx, process.argv.slice(2));
  } finally {
    for (const cleanup of cleanups.toReversed()) {
      try {
        cleanup();
      } catch {
        // Closing twice or after a failure must not hide the command's own result.
      }
    }
  }
  process.exitCode = code;
}

await main();
