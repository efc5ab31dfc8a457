/**
 * *Stop the command* (docs/LIVENESS.md#orphans): SIGTERM to the command's process group, a grace period,
 * SIGKILL, then verified gone. Only for a command the store's liveness check has already placed on this
 * host, boot and pid namespace (RunStore.beginStopCommand); the group's leader start identity is checked
 * again before every signal, so a reused number is never signalled. A command started from a terminal has
 * no group of its own: its processes are those carrying the run's environment marker
 * (docs/LIVENESS.md#terminal-mode), looked up again before every signal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { markedProcesses, SYSTEM_PROBE, type CommandIdentity } from '../store';
import { signalTree } from './process-tree';

export interface StopCommandOptions {
  /** SIGTERM → SIGKILL grace; default 5 s. */
  graceMs?: number;
  /** How long to wait for the group to vanish after SIGKILL; default 2 s. */
  killWaitMs?: number;
  pollMs?: number;
}

export interface StopCommandResult {
  /** Verified: no process of the command is left. */
  gone: boolean;
  signals: NodeJS.Signals[];
}

export function commandAlive(command: CommandIdentity): boolean {
  if (command.pgid !== null) {
    return SYSTEM_PROBE.groupAlive(command.pgid, command.pgid === command.pid ? command.startId : null);
  }
  if (SYSTEM_PROBE.processAlive(command.pid, command.startId)) return true;
  return (marked(command)?.length ?? 0) > 0;
}

function marked(command: CommandIdentity): number[] | null {
  return command.runId === undefined || command.runId === null ? null : markedProcesses(command.runId);
}

function signal(command: CommandIdentity, sig: NodeJS.Signals): void {
  if (command.pgid !== null) {
    try {
      process.kill(-command.pgid, sig);
    } catch {
      // The group ended meanwhile.
    }
    return;
  }
  if (SYSTEM_PROBE.processAlive(command.pid, command.startId)) signalTree(command.pid, sig, false);
  signalMarked(marked(command) ?? [], sig);
}

/** Signals each pid (looked up by its environment marker just before), ignoring those already gone. */
export function signalMarked(pids: readonly number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // Already gone.
    }
  }
}

async function waitGone(command: CommandIdentity, ms: number, pollMs: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!commandAlive(command)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
}

export async function stopCommandGroup(
  command: CommandIdentity,
  options: StopCommandOptions = {},
): Promise<StopCommandResult> {
  const pollMs = options.pollMs ?? 50;
  const signals: NodeJS.Signals[] = [];
  if (!commandAlive(command)) return { gone: true, signals };
  signal(command, 'SIGTERM');
  signals.push('SIGTERM');
  if (await waitGone(command, options.graceMs ?? 5_000, pollMs)) return { gone: true, signals };
  signal(command, 'SIGKILL');
  signals.push('SIGKILL');
  return { gone: await waitGone(command, options.killWaitMs ?? 2_000, pollMs), signals };
}
