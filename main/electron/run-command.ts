/**
 * Runs a small helper command (dbus-send, gdbus, xdg-mime) with a timeout; injected where used, so tests can
 * replace it.
 */
import { execFile } from 'node:child_process';

/** Runs a command; resolves with its stdout, rejects when it cannot run or exits non-zero. */
export type RunCommand = (
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
) => Promise<string>;

const COMMAND_TIMEOUT_MS = 2_000;

export const runCommand: RunCommand = (command, args, env) =>
  new Promise((resolve, reject) => {
    execFile(command, [...args], { env, timeout: COMMAND_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => {
      if (error !== null) reject(error);
      else resolve(stdout);
    });
  });
