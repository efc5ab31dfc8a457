/**
 * Runs a command as the body of a claimed run (`runwarden exec` and `runwarden worker`): heartbeat while
 * it runs; stop it when the runner is fenced or a person requests cancel or pause (SIGTERM, then SIGKILL
 * after a grace); forward SIGINT/SIGTERM; then settle the run from how the command ended. The command's
 * pid and process group are recorded on the run, it dies with this process where the platform allows
 * (launch-command.ts), and whatever is left of its group is torn down on every way out
 * (docs/LIVENESS.md#orphans). A command attached to a terminal keeps the terminal's group (job control):
 * what it left behind is found by the run's environment marker instead (docs/LIVENESS.md#terminal-mode).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandSpec } from '../../shared/domain';
import { isRunwardenError } from '../../shared/errors';
import { groupAlive, markedProcesses, processStartId } from '../store';
import { launchArgv } from './launch-command';
import { signalTree } from './process-tree';
import { signalMarked } from './stop-command';
import { withWriteRetry, type RetryTiming } from './durable-write';
import { containment } from './subreaper';
import type { RunSession } from './run-session';
import { teeOutput, type OutputSink } from './tee-output';

/** How long output may still arrive after the command exited (a background child may keep the pipes open). */
const DRAIN_MS = 1000;

export type StopReason = 'fenced' | 'cancelRequested' | 'pauseRequested' | 'interrupted';

export interface CommandOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stopReason: StopReason | null;
  /** The signal this process received and forwarded, for `interrupted`. */
  interruptSignal: NodeJS.Signals | null;
  spawnError: NodeJS.ErrnoException | null;
  /** The command's last stderr lines (with `output`), quoted in the failure reason. */
  lastStderr: string[];
  /**
   * After the teardown (docs/LIVENESS.md#terminal-mode): processes of the run still alive (not ours to
   * signal), or null when what the command left behind could not be looked for at all (no /proc).
   */
  leftBehind: number[] | null;
}

export interface SuperviseOptions {
  env: NodeJS.ProcessEnv;
  stdio: 'inherit' | 'ignore';
  /** Own process group: the stop signal reaches grandchildren. Keep false for a command attached to a terminal. */
  ownGroup: boolean;
  /** SIGTERM → SIGKILL grace; default 5 s. */
  graceMs?: number;
  /**
   * Where the command's output is logged (docs/RUN-OUTPUT.md#capture): stdout and stderr become pipes
   * teed to the sink and, with stdio 'inherit', to this process's own stdout and stderr.
   */
  output?: OutputSink | null;
  /** Called once, right after the child started. */
  onSpawn?: (pid: number) => void;
}

/**
 * Start → watch → wait → tear down, each a function below. The order between them is the point: the
 * signal relay exists before the spawn, and every way out runs the teardown.
 */
export async function superviseCommand(
  session: RunSession,
  command: CommandSpec,
  options: SuperviseOptions,
): Promise<CommandOutcome> {
  const outcome: CommandOutcome = {
    code: null,
    signal: null,
    stopReason: null,
    interruptSignal: null,
    spawnError: null,
    lastStderr: [],
    leftBehind: [],
  };
  const [file] = command.argv;
  if (file === undefined) {
    outcome.spawnError = Object.assign(new Error('empty command'), { code: 'ENOENT' });
    return outcome;
  }
  if (!mayStart(session, outcome)) return outcome;
  // Listening before the spawn: a SIGTERM that came between the spawn and the listener would take the
  // default action, ending this process at once and leaving the command's background jobs behind.
  const relay = relaySignals();
  const child = spawnCommand(file, command, options);
  const run: Supervised = {
    session,
    child,
    outcome,
    ownGroup: options.ownGroup,
    graceMs: options.graceMs ?? 5000,
    exited: false,
    killTimer: null,
    effectWatch: null,
  };
  // Whatever way this process leaves (an uncaught error, process.exit), the group goes with it.
  const onExit = (): void => killOnExit(run);
  process.once('exit', onExit);
  const tee =
    options.output === undefined
      ? null
      : teeOutput(
          child,
          options.output,
          options.stdio === 'inherit' ? { stdout: process.stdout, stderr: process.stderr } : null,
        );
  const unsubscribe = session.on((event) => {
    if (event.kind === 'fenced') stop(run, 'fenced');
    else if (event.kind === 'cancelRequested') stop(run, 'cancelRequested');
    else if (event.kind === 'pauseRequested') stop(run, 'pauseRequested');
  });
  relay.handle((signal) => forwardInterrupt(run, signal));
  try {
    await untilExit(run, options.onSpawn);
    if (tee !== null) {
      await tee.drained(DRAIN_MS);
      outcome.lastStderr = tee.recentStderr();
    }
  } finally {
    await tearDown(run);
    process.off('exit', onExit);
    relay.stop();
    unsubscribe();
    session.stopHeartbeat();
  }
  return outcome;
}

/** One supervised command and the timers its stop and its effect watch left running. */
interface Supervised {
  readonly session: RunSession;
  readonly child: ChildProcess;
  readonly outcome: CommandOutcome;
  readonly ownGroup: boolean;
  readonly graceMs: number;
  exited: boolean;
  killTimer: NodeJS.Timeout | null;
  effectWatch: NodeJS.Timeout | null;
}

/** False (the outcome says why) when a cancel was requested, or another owner took over, since the claim. */
function mayStart(session: RunSession, outcome: CommandOutcome): boolean {
  session.heartbeat.beat();
  if (session.fenced || session.cancelRequested) {
    outcome.stopReason = session.fenced ? 'fenced' : 'cancelRequested';
    return false;
  }
  return true;
}

/** SIGINT, SIGTERM and SIGHUP held from now on, passed to the handler set once the child exists. */
function relaySignals(): { handle(handler: (signal: NodeJS.Signals) => void): void; stop(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const relay = (signal: NodeJS.Signals): void => onSignal(signal);
  process.on('SIGINT', relay);
  process.on('SIGTERM', relay);
  process.on('SIGHUP', relay);
  return {
    handle(handler) {
      onSignal = handler;
    },
    stop() {
      process.off('SIGINT', relay);
      process.off('SIGTERM', relay);
      process.off('SIGHUP', relay);
    },
  };
}

function spawnCommand(file: string, command: CommandSpec, options: SuperviseOptions): ChildProcess {
  const [launchFile, ...launchArgs] = launchArgv(command.argv, command.cwd, options.env);
  return spawn(launchFile ?? file, launchArgs, {
    cwd: command.cwd,
    env: options.env,
    stdio: options.output === undefined ? options.stdio : ['inherit', 'pipe', 'pipe'],
    detached: options.ownGroup,
  });
}

function killOnExit(run: Supervised): void {
  const pid = run.child.pid;
  if (pid === undefined) return;
  if (run.ownGroup) signalTree(pid, 'SIGKILL', true);
  else signalMarked(markedProcesses(run.session.runId) ?? [], 'SIGKILL');
}

/** The stop signal to the command (SIGTERM unless given), then SIGKILL once the grace has passed. */
function stop(run: Supervised, reason: StopReason, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (run.exited) return;
  run.outcome.stopReason ??= reason;
  const { child, ownGroup } = run;
  if (child.pid !== undefined) signalTree(child.pid, signal, ownGroup);
  run.killTimer ??= setTimeout(() => {
    if (!run.exited && child.pid !== undefined) signalTree(child.pid, 'SIGKILL', ownGroup);
  }, run.graceMs);
}

/** A signal this process received: forwarded to the command; a second one kills it outright. */
function forwardInterrupt(run: Supervised, signal: NodeJS.Signals): void {
  if (run.outcome.interruptSignal !== null && run.child.pid !== undefined) {
    // Second interrupt: no more grace.
    signalTree(run.child.pid, 'SIGKILL', run.ownGroup);
    return;
  }
  run.outcome.interruptSignal = signal;
  stop(run, 'interrupted', signal);
}

/** Until the command exits (or fails to start); once started, it is recorded and heartbeats begin. */
function untilExit(run: Supervised, onSpawn: SuperviseOptions['onSpawn']): Promise<void> {
  const { child, session, outcome } = run;
  return new Promise<void>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      outcome.spawnError = error;
      resolve();
    });
    child.once('spawn', () => {
      if (child.pid !== undefined) {
        recordCommand(session, child.pid, run.ownGroup);
        onSpawn?.(child.pid);
      }
      session.startHeartbeat();
      run.effectWatch = watchEffects(session);
      // A request may already be waiting on the lease: act on it right away.
      session.heartbeat.beat();
    });
    child.once('exit', (code, signal) => {
      run.exited = true;
      outcome.code = code;
      outcome.signal = signal;
      resolve();
    });
  });
}

/** Timers cleared, and whatever the command left running stopped: its group, or the run's marked processes. */
async function tearDown(run: Supervised): Promise<void> {
  const { child, outcome } = run;
  if (run.effectWatch !== null) clearInterval(run.effectWatch);
  if (run.killTimer !== null) clearTimeout(run.killTimer);
  // The leader is gone; anything it left running in its group (a background job) goes too.
  if (run.ownGroup && child.pid !== undefined && outcome.spawnError === null) {
    await tearDownGroup(child.pid, run.graceMs);
  }
  // Sharing the terminal's group, a background job it left is found by the run's marker instead.
  if (!run.ownGroup && outcome.spawnError === null) {
    outcome.leftBehind = await tearDownMarked(run.session.runId, run.graceMs);
  }
}

/** Records the command on the run (best effort: a failure here must not stop the run; the lease still covers it). */
function recordCommand(session: RunSession, pid: number, ownGroup: boolean): void {
  try {
    session.store.recordCommand(session.claim, {
      pid,
      pgid: ownGroup ? pid : null,
      startId: processStartId(pid),
      containment: containment(),
    });
  } catch {
    // Busy or full: the sweeper then only knows the supervisor, as before.
  }
}

/** How often the supervisor looks for an effect whose process died mid-command. */
const EFFECT_WATCH_MS = 1000;

/**
 * An effect whose performer died while applying (killed by a timeout, `kill -9`, the process named by
 * `effect begin --performer-pid` exited without `effect end`) becomes ambiguous at once, not only when the run ends
 * (docs/LIVENESS.md#unknown-outcomes). A read each time; a write only when one is found. Best effort: a busy
 * store is looked at again next time, and the run's ending catches whatever is left.
 */
function watchEffects(session: RunSession): NodeJS.Timeout {
  const timer = setInterval(() => {
    if (session.fenced) return;
    try {
      session.store.noticeGoneEffects(session.claim);
      // A question whose asker was killed stops waiting now (docs/LIVENESS.md#questions-and-their-askers).
      session.store.noticeGoneAskers(session.claim);
    } catch {
      // Busy, full, or fenced meanwhile: the next look, or the ending, settles it.
    }
  }, EFFECT_WATCH_MS);
  timer.unref();
  return timer;
}

/** SIGTERM to what is left of the group, then SIGKILL after the grace if anything still lives. */
async function tearDownGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupExists(pgid)) return;
  signalTree(pgid, 'SIGTERM', true);
  const deadline = Date.now() + graceMs;
  while (groupExists(pgid) && Date.now() < deadline) await sleep(50);
  if (groupExists(pgid)) signalTree(pgid, 'SIGKILL', true);
}

/**
 * SIGTERM to every process carrying the run's marker, then SIGKILL after the grace; returns those still
 * alive (another user's, say), or null when /proc cannot be read.
 */
async function tearDownMarked(runId: string, graceMs: number): Promise<number[] | null> {
  let left = markedProcesses(runId);
  if (left === null || left.length === 0) return left;
  signalMarked(left, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(50);
    left = markedProcesses(runId) ?? [];
  }
  if (left.length === 0) return left;
  signalMarked(left, 'SIGKILL');
  for (let tries = 0; tries < 40 && left.length > 0; tries += 1) {
    await sleep(50);
    left = markedProcesses(runId) ?? [];
  }
  return left;
}

/** Some member of the group lives (zombies waiting to be reaped do not count). */
function groupExists(pgid: number): boolean {
  return groupAlive(pgid, null);
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
      return { status: 'fenced', message: fencedMessage(session, 'the command was stopped') };
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
    const quoted = outcome.lastStderr.length > 0 ? `; last stderr: ${outcome.lastStderr.join(' / ')}` : '';
    const message = `${name} ${how}${quoted}`;
    session.fail(message);
    return { status: 'failed', message: `run ${session.runId} failed: ${message}` };
  } catch (error) {
    if (isRunwardenError(error) && error.code === 'FENCED') {
      return { status: 'fenced', message: fencedMessage(session, 'before it could be finished') };
    }
    return {
      status: 'error',
      message: `could not record the end of run ${session.runId}: ${error instanceof Error ? error.message : String(error)}`,
      error,
    };
  }
}

/** Says what really happened to the lease: taken over by another owner, released, or lapsed. */
function fencedMessage(session: RunSession, what: string): string {
  switch (session.heartbeat.lost) {
    case 'released':
      return `lost the lease on run ${session.runId} (it was released: nobody holds it now); ${what}`;
    case 'takenOver':
      return `lost the lease on run ${session.runId} (another owner took it over); ${what}`;
    case 'lapsed':
    case null:
      return `lost the lease on run ${session.runId} (it lapsed and its runner was recorded as gone, so it cannot be renewed); ${what}`;
  }
}

export interface DurableSettleOptions extends RetryTiming {
  /** Told once per failed try (the first one is worth printing). */
  onRetry?: (settlement: Extract<Settlement, { status: 'error' }>, tries: number) => void;
}

/**
 * `settleRun` that never drops a finished command's outcome: tried again while the store cannot record it,
 * the lease kept, a signal honoured at once (docs/LIVENESS.md#outcomes-of-finished-commands). The waiting
 * is the one `effect` uses for an effect's outcome (durable-write.ts).
 */
export async function settleRunDurably(
  session: RunSession,
  command: CommandSpec,
  outcome: CommandOutcome,
  onInterrupt: 'cancel' | 'park',
  options: DurableSettleOptions = {},
): Promise<Settlement> {
  let refusedAfterRenewal = 0;
  return withWriteRetry(options, async (retry) => {
    for (let tries = 1; ; tries += 1) {
      const settlement = settleRun(session, command, outcome, onInterrupt);
      const writeFenced =
        settlement.status === 'fenced' && outcome.stopReason !== 'fenced' && !session.fenced;
      if (settlement.status !== 'error' && !writeFenced) return settlement;
      if (outcome.interruptSignal !== null || retry.interrupted) return settlement;
      // A write refused although a heartbeat had just renewed the lease: something else is wrong; stop.
      if (writeFenced && refusedAfterRenewal >= 3) return settlement;
      // Still ours? A heartbeat renews a lapsed lease, or tells us for sure that it is gone.
      const renewal = session.heartbeat.renew();
      if (renewal === 'fenced') return settleRun(session, command, outcome, onInterrupt);
      if (renewal === 'renewed' && writeFenced) refusedAfterRenewal += 1;
      if (settlement.status === 'error') options.onRetry?.(settlement, tries);
      if (renewal === 'renewed' && writeFenced) continue;
      await retry.pause();
    }
  });
}
