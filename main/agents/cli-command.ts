/**
 * The command line an agent's hook runs to reach Runwarden (docs/AGENTS.md#installing). Kept in this one
 * function so that where the CLI lives can change (the app shipping its own copy) without touching the
 * agents' installers: today it is this Node and this CLI's entry script, both absolute, so the hook works
 * whatever the agent's PATH is.
 */
import { shellCommand } from '../cli/shell-quote';

export interface CliLocation {
  node: string;
  script: string;
}

export function currentCli(binPath: string): CliLocation {
  return { node: process.execPath, script: binPath };
}

/** `runwarden agents hook AGENT [extra]` as one POSIX shell command line. */
export function hookCommandLine(cli: CliLocation, agent: string, extra: readonly string[]): string {
  return shellCommand([cli.node, cli.script, 'agents', 'hook', agent, ...extra]);
}

/** The marker every installed hook command carries, so the installers find their own entries again. */
export function isRunwardenHook(command: unknown, agent: string): boolean {
  return (
    typeof command === 'string' && command.includes(`agents hook ${agent}`) && command.includes('runwarden')
  );
}
