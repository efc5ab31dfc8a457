/**
 * *Stop the command* of a run whose runner is gone (docs/LIVENESS.md#orphans), for the window
 * (`runs:stopCommand`) and `runwarden cancel --stop-command`: checked and recorded at once, the group
 * signalled, and what the signals achieved recorded as the same person's action.
 */
import type { Actor } from '../../shared/domain';
import type { CommandIdentity, StoreWriter } from '../store';
import { stopCommandGroup, type StopCommandResult } from '../runner/stop-command';

/** SIGTERM → SIGKILL grace of *Stop the command*, unless the caller gives one. */
export const STOP_COMMAND_GRACE_MS = 5_000;

export type SignalCommand = (command: CommandIdentity, graceMs: number) => Promise<StopCommandResult>;

export interface StopRunCommandRequest {
  expectedRevision?: number;
  reason: string;
  actor: Actor;
  graceMs?: number;
  /** Signals the group (default: SIGTERM, the grace, SIGKILL, verified gone). */
  signal?: SignalCommand;
}

export interface StoppingCommand {
  command: CommandIdentity;
  graceMs: number;
  /** Settles when the signals are spent and their outcome is recorded (skipped once the store is closed). */
  finished: Promise<StopCommandResult>;
}

/** Records the stop (refused as the store refuses it), then signals the group; SIGTERM is on its way on return. */
export function stopRunCommand(
  store: StoreWriter,
  runId: string,
  request: StopRunCommandRequest,
): StoppingCommand {
  const { reason, actor } = request;
  const graceMs = request.graceMs ?? STOP_COMMAND_GRACE_MS;
  const started = store.beginStopCommand(runId, {
    expectedRevision: request.expectedRevision,
    reason,
    actor,
  });
  const signal = request.signal ?? ((command, grace) => stopCommandGroup(command, { graceMs: grace }));
  const finished = signal(started.command, graceMs).then((result) => {
    if (store.isOpen) store.finishStopCommand(runId, started.generation, { ...result, reason, actor });
    return result;
  });
  return { command: started.command, graceMs, finished };
}
