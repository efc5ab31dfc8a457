/** `runwarden worker`: claim queued runs that carry a command and execute them, one at a time. */
import { delimiter, dirname } from 'node:path';
import { environmentForRetry } from '../../../shared/command-environment';
import type { CommandSpec } from '../../../shared/domain';
import { setTimeout as sleep } from 'node:timers/promises';
import { openRunLog } from '../../runner/run-log';
import { runnerEnv } from '../../runner/runner-env';
import { claimNextRun, DEFAULT_LEASE_MS, type RunSession } from '../../runner/run-session';
import { runnerOwner } from '../../runner/owner-info';
import {
  exitCodeOf,
  settleRunDurably,
  superviseCommand,
  type CommandOutcome,
  type Settlement,
} from '../../runner/supervise-command';
import type { RunStore } from '../../store';
import { COMMON_HELP, storePathOf, type CliContext } from '../command';
import { defineCommand } from '../define-command';
import { runThisProcessIsInside } from '../enclosing-run';
import { writer } from '../open-cli-store';
import { EXIT } from '../exit-codes';
import { parseIntegerFlag, RANGES, rangeText } from '../limits';
import { parkedByCommand } from '../parked-by-command';
import { projectFolder } from '../project-path';
import { safeJson, sanitizeLine } from '../sanitize';
import { shellCommand } from '../../platform/shell-quote';
import { execResult, unresolvedEffects } from './exec';

/**
 * The environment a run's command starts with (docs/CLI.md#what-exec-records): the one `exec` recorded,
 * with the values of its secret-looking names taken from this worker (said in the log, with any this
 * worker lacks); this worker's own environment for a run recorded without one.
 */
function commandEnvironment(command: CommandSpec, log: (message: string) => void): NodeJS.ProcessEnv {
  if (command.env === undefined) {
    log('no environment was recorded for this run: it runs with this worker’s environment');
    return { ...process.env };
  }
  const retry = environmentForRetry(command.env, process.env);
  if (retry.fromHere.length > 0)
    log(`secret-named variables taken from this worker’s environment: ${retry.fromHere.join(', ')}`);
  if (retry.missing.length > 0)
    log(`secret-named variables not set in this worker’s environment, so unset: ${retry.missing.join(', ')}`);
  return retry.env;
}

export const workerCommand = defineCommand({
  name: 'worker',
  summary: 'claim queued runs that carry a command and run them',
  help: `Usage: runwarden worker [--project DIR]... [--once] [--lease-ms N]

Claims the oldest queued run that carries a command (runs started by "runwarden exec" and their
retries), runs the command like exec does — with the argv, folder and environment exec recorded;
secret-named variables (their values were never stored) come from this worker's environment (heartbeat, stop when fenced, cancel or pause
requests), records how it ended, and looks for the next one every second until interrupted.
Ctrl-C stops the worker: a command still running is stopped and its run parked (runnerExited).
Started inside a run, each run it claims becomes a child of that run: their effect keys are shared
with that run's family (docs/LIVENESS.md#nested-runs).

Options:
  --project DIR   only runs of this project (repeat for several)
  --once          run at most one run, then exit
  --lease-ms N    lease length in ms (${rangeText(RANGES.leaseMs)}, default ${DEFAULT_LEASE_MS})
  --poll-ms N     how often to look for work (${rangeText(RANGES.pollMs)}, default 1000)
  --json          one JSON line on stdout per run:
                  {"ok":true,"value":{"runId","outcome","exitCode","message","unresolvedEffects"}}
                  (exitCode 76: completed, but an effect's outcome is unknown, as exec says)
${COMMON_HELP}

Exit status: 0 after a clean stop (with --once: the run's command exit code, 76 if it completed with
an effect of unknown outcome, or 0 if none was queued).`,
  options: {
    project: { type: 'string', multiple: true },
    once: { type: 'boolean' },
    'lease-ms': { type: 'string' },
    'poll-ms': { type: 'string' },
  },
  positionals: [],
  store: writer({ runner: true }),
  async run({ ctx, values, open }) {
    const leaseMs = parseIntegerFlag(values['lease-ms'], 'lease-ms', RANGES.leaseMs) ?? DEFAULT_LEASE_MS;
    const pollMs = parseIntegerFlag(values['poll-ms'], 'poll-ms', RANGES.pollMs) ?? 1000;
    const projectPaths = (values.project ?? []).map((dir) => projectFolder(dir, ctx.cwd));
    const storePath = storePathOf(ctx, values.store);
    const store = open();
    const owner = runnerOwner('worker');
    // Started inside a run: every run it claims becomes that run's child, as a nested exec's run does
    // (docs/LIVENESS.md#nested-runs).
    const enclosingRunId = runThisProcessIsInside(ctx, store);
    const log = (message: string): void => {
      ctx.stderr.write(`runwarden worker: ${sanitizeLine(message)}\n`);
    };

    const stopper = new AbortController();
    const onSignal = (): void => stopper.abort();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    ctx.defer(() => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    });
    log(
      `waiting for runs${projectPaths.length > 0 ? ` in ${projectPaths.map(sanitizeLine).join(', ')}` : ''} (Ctrl-C to stop)`,
    );

    let lastCode: number = EXIT.ok;
    while (!stopper.signal.aborted) {
      const session = claimNextRun(
        store,
        { projectPaths: projectPaths.length > 0 ? projectPaths : undefined, requireCommand: true },
        { leaseMs, owner, surface: 'cli', enclosingRunId },
      );
      if (session === null) {
        if (values.once === true) return EXIT.ok;
        try {
          await sleep(pollMs, undefined, { signal: stopper.signal });
        } catch {
          break;
        }
        continue;
      }
      const executed = await executeRun(ctx, store, session, storePath, log);
      if (executed === null) continue;
      const { outcome, settlement, parked, exitCode } = executed;
      lastCode =
        exitCode === EXIT.unresolved ? exitCode : parked === null ? exitCodeOf(outcome) : EXIT.parked;
      if (outcome.stopReason === 'interrupted') stopper.abort();
      if (values.once === true) return settlement.status === 'error' ? EXIT.failure : lastCode;
    }
    log('stopped');
    return EXIT.ok;
  },
});

/**
 * Runs one claimed run's command like `exec` does and records how it ended; null (the claim released)
 * for a run without a command.
 */
async function executeRun(
  ctx: CliContext,
  store: RunStore,
  session: RunSession,
  storePath: string,
  log: (message: string) => void,
): Promise<{
  outcome: CommandOutcome;
  settlement: Settlement;
  parked: ReturnType<typeof parkedByCommand>;
  exitCode: number;
} | null> {
  const run = store.getRun(session.runId);
  const command = run.command;
  if (command === null) {
    session.release();
    return null;
  }
  session.markRunning();
  log(`run ${run.id}: ${sanitizeLine(shellCommand(command.argv))} (in ${sanitizeLine(command.cwd)})`);
  const base = commandEnvironment(command, log);
  const output = openRunLog(store, session.claim, log);
  const outcome = await superviseCommand(session, command, {
    env: {
      ...base,
      ...runnerEnv(storePath, session.claim),
      RUNWARDEN_NODE: process.execPath,
      PATH: [dirname(ctx.binPath), base.PATH ?? ''].filter((part) => part !== '').join(delimiter),
    },
    stdio: 'inherit',
    ownGroup: true,
    output,
  });
  output?.finish();
  const settlement = await settleRunDurably(session, command, outcome, 'park', {
    onRetry: (failed, tries) => {
      if (tries === 1) log(`${failed.message}; keeping the lease and trying again until it is recorded`);
    },
  });
  const parked =
    settlement.status === 'fenced' ? parkedByCommand(store, run.id, session.claim.generation) : null;
  const result = execResult(run.id, settlement, outcome, parked, unresolvedEffects(store, run.id));
  log(result.message);
  if (ctx.json) ctx.stdout.write(`${safeJson({ ok: true, value: result })}\n`);
  return { outcome, settlement, parked, exitCode: result.exitCode };
}
