/**
 * Runs a command as the body of a claimed run (`runwarden exec` and `runwarden worker`): heartbeat while
 * it runs; stop it when the runner is fenced or a person requests cancel or pause (SIGTERM, then SIGKILL
 * after a grace); forward SIGINT/SIGTERM; then settle the run from how the command ended.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { CommandSpec } from '../../shared/domain';
import { isRunwardenError } from '../../shared/errors';
import { signalTree } from './process-tree';
import type { RunSession } from './run-session';

export type StopReason = 'fenced' | 'cancelRequested' | 'pauseRequested' | 'interrupted';

export interface CommandOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stopReason: StopReason | null;
  /** The signal this process received and forwarded, for `interrupted`. */
  interruptSignal: NodeJS.Signals | null;
  spawnError: NodeJS.ErrnoException | null;
}

export interface SuperviseOptions {
  env: NodeJS.ProcessEnv;
  stdio: 'inherit' | 'ignore';
  /** Own process group: the stop signal reaches grandchildren. Keep false for a command attached to a terminal. */
  ownGroup: boolean;
  /** SIGTERM → SIGKILL grace; default 5 s. */
  graceMs?: number;
  /** Called once, right after the child started. */
  onSpawn?: (pid: number) => void;
}

export async function superviseCommand(
  session: RunSession,
  command: CommandSpec,
  options: SuperviseOptions,
): Promise<CommandOutcome> {
  const [file, ...args] = command.argv;
  const outcome: CommandOutcome = {
    code: null,
    signal: null,
    stopReason: null,
    interruptSignal: null,
    spawnError: null,
  };
  if (file === undefined) {
    outcome.spawnError = Object.assign(new Error('empty command'), { code: 'ENOENT' });
    return outcome;
  }
  const child = spawn(file, args, {
    cwd: command.cwd,
    env: options.env,
    stdio: options.stdio,
    detached: options.ownGroup,
  });
  const graceMs = options.graceMs ?? 5000;
  let killTimer: NodeJS.Timeout | null = null;
  let exited = false;

  const stop = (reason: StopReason, signal: NodeJS.Signals = 'SIGTERM'): void => {
    if (exited) return;
    outcome.stopReason ??= reason;
    if (child.pid !== undefined) signalTree(child.pid, signal, options.ownGroup);
    killTimer ??= setTimeout(() => {
      if (!exited && child.pid !== undefined) signalTree(child.pid, 'SIGKILL', options.ownGroup);
    }, graceMs);
  };

  const unsubscribe = session.on((event) => {
    if (event.kind === 'fenced') stop('fenced');
    else if (event.kind === 'cancelRequested') stop('cancelRequested');
    else if (event.kind === 'pauseRequested') stop('pauseRequested');
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (outcome.interruptSignal !== null && child.pid !== undefined) {
      // Second interrupt: no more grace.
      signalTree(child.pid, 'SIGKILL', options.ownGroup);
      return;
    }
    outcome.interruptSignal = signal;
    stop('interrupted', signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);

  try {
    await new Promise<void>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => {
        outcome.spawnError = error;
        resolve();
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) options.onSpawn?.(child.pid);
        session.startHeartbeat();
        // A request may already be waiting on the lease: act on it right away.
        session.heartbeat.beat();
      });
      child.once('exit', (code, signal) => {
        exited = true;
        outcome.code = code;
        outcome.signal = signal;
        resolve();
      });
    });
  } finally {
    if (killTimer !== null) clearTimeout(killTimer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
    unsubscribe();
    session.stopHeartbeat();
  }
  return outcome;
}

/** The conventional shell exit code for a command outcome (128 + signal number when killed). */
export function exitCodeOf(outcome: CommandOutcome): number {
  if (outcome.spawnError !== null) return outcome.spawnError.code === 'ENOENT' ? 127 : 126;
  if (outcome.code !== null) return outcome.code;
  const signo = outcome.signal === null ? 0 : (constants.signals[outcome.signal] ?? 0);
  return 128 + signo;
}

export type Settlement =
  | { status: 'completed' | 'failed' | 'cancelled' | 'parked'; message: string }
  | { status: 'fenced'; message: string }
  | { status: 'error'; message: string; error: unknown };

/**
 * Writes the run's end from the command's outcome. `onInterrupt` says what a forwarded Ctrl-C means:
 * exec cancels the run (the person stopped it); a worker parks it as runnerExited (the worker stopped).
 */
export function settleRun(
  session: RunSession,
  command: CommandSpec,
  outcome: CommandOutcome,
  onInterrupt: 'cancel' | 'park',
): Settlement {
  const name = command.argv[0] ?? '';
  try {
    if (outcome.stopReason === 'fenced' || session.fenced) {
      return {
        status: 'fenced',
        message: `lost the lease on run ${session.runId} (another owner took it over); the command was stopped`,
      };
    }
    if (outcome.spawnError !== null) {
      const message = `could not start ${name}: ${outcome.spawnError.message}`;
      session.fail(message);
      return { status: 'failed', message };
    }
    if (outcome.stopReason === 'cancelRequested') {
      session.cancelled('Cancelled at a person’s request; the command was stopped.');
      return { status: 'cancelled', message: `run ${session.runId} cancelled at a person's request` };
    }
    if (outcome.stopReason === 'pauseRequested') {
      session.park('paused', 'Paused at a person’s request; the command was stopped. Resume re-runs it.');
      return { status: 'parked', message: `run ${session.runId} paused at a person's request` };
    }
    if (outcome.stopReason === 'interrupted') {
      const signal = outcome.interruptSignal ?? 'SIGINT';
      if (onInterrupt === 'cancel') {
        session.cancelled(`Interrupted (${signal}).`);
        return { status: 'cancelled', message: `run ${session.runId} cancelled (${signal})` };
      }
      session.park('runnerExited', `The worker was stopped (${signal}) while the command ran.`);
      return { status: 'parked', message: `run ${session.runId} parked: the worker was stopped` };
    }
    if (outcome.code === 0) {
      session.complete({ exitCode: 0 });
      return { status: 'completed', message: `run ${session.runId} completed` };
    }
    const how =
      outcome.code !== null ? `exited with code ${outcome.code}` : `was killed by ${outcome.signal}`;
    const message = `${name} ${how}`;
    session.fail(message);
    return { status: 'failed', message: `run ${session.runId} failed: ${message}` };
  } catch (error) {
    if (isRunwardenError(error) && error.code === 'FENCED') {
      return {
        status: 'fenced',
        message: `lost the lease on run ${session.runId} before it could be finished`,
      };
    }
    return {
      status: 'error',
      message: `could not record the end of run ${session.runId}: ${error instanceof Error ? error.message : String(error)}`,
      error,
    };
  }
}
