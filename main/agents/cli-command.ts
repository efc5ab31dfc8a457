/**
 * The command line an agent's hook runs to reach Runwarden (docs/AGENTS.md#installing): the CLI's stable
 * command (`stableCliCommand`: the installed app's `runwarden` or its launcher, or in a checkout this Node and
 * `bin/runwarden.js`, all absolute), so the hook works whatever the agent's PATH is and survives an update.
 */
import { shellCommand } from '../cli/shell-quote';
import { stableCliCommand } from '../cli/stable-cli-path';

/** The argv prefix that runs the CLI. */
export type CliLocation = readonly string[];

export function currentCli(binPath: string): CliLocation {
  const stable = stableCliCommand();
  // Neither an installed app nor a checkout (a build elsewhere): this Node and this CLI's own entry.
  if (stable.length === 1 && stable[0] === 'runwarden') return [process.execPath, binPath];
  return stable;
}

/** `runwarden agents hook AGENT [extra]` as one POSIX shell command line. */
export function hookCommandLine(cli: CliLocation, agent: string, extra: readonly string[]): string {
  return shellCommand([...cli, 'agents', 'hook', agent, ...extra]);
}

/** The marker every installed hook command carries, so the installers find their own entries again. */
export function isRunwardenHook(command: unknown, agent: string): boolean {
  return (
    typeof command === 'string' && command.includes(`agents hook ${agent}`) && command.includes('runwarden')
  );
}
