/**
 * The command line an agent's hook runs to reach Runwarden (docs/AGENTS.md#installing): the CLI's stable
 * launch (`stableCliLaunch`: the installed app's `runwarden` or its launcher, on Windows its executable in Node
 * mode, or in a checkout this Node and `bin/runwarden.js`, all absolute), so the hook works whatever the
 * agent's PATH is and survives an update.
 */
import {
  launchCommandLine,
  runningCliLaunch,
  stableCliLaunch,
  type CliLaunch,
} from '../../platform/stable-cli-path';

/** How the CLI is started: argv prefix and variables. */
export type CliLocation = CliLaunch;

export function currentCli(binPath: string): CliLocation {
  const stable = stableCliLaunch();
  // Neither an installed app nor a checkout (a build elsewhere): this Node and this CLI's own entry.
  if (stable.argv.length === 1 && stable.argv[0] === 'runwarden') return runningCliLaunch(binPath);
  return stable;
}

/** `runwarden agents hook AGENT [extra]` as one POSIX shell command line (agents run hooks with sh or Git Bash). */
export function hookCommandLine(cli: CliLocation, agent: string, extra: readonly string[]): string {
  return launchCommandLine(cli, ['agents', 'hook', agent, ...extra]);
}

/** The marker every installed hook command carries, so the installers find their own entries again. */
export function isRunwardenHook(command: unknown, agent: string): boolean {
  return (
    typeof command === 'string' &&
    command.includes(`agents hook ${agent}`) &&
    // Windows' hook names `…\Runwarden.exe`.
    command.toLowerCase().includes('runwarden')
  );
}
