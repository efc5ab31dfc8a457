/** `runwarden exec`: run a command as a durable run (reserve, claim, heartbeat, settle). */
import { basename, delimiter, dirname } from 'node:path';
import { recordEnvironment } from '../../../shared/command-environment';
import { isTerminalRunStatus, type CommandSpec, type Run, type RunSnapshot } from '../../../shared/domain';
import { isRunwardenError, RunwardenError } from '../../../shared/errors';
import type { Claim, RunStore, StoreReader } from '../../store';
import { openRunLog } from '../../runner/run-log';
import { runnerEnv } from '../../runner/runner-env';
import { DEFAULT_LEASE_MS, RunSession } from '../../runner/run-session';
import { runnerActor, runnerOwner } from '../../runner/owner-info';
import {
  exitCodeOf,
  settleRunDurably,
  superviseCommand,
  type CommandOutcome,
  type Settlement,
} from '../../runner/supervise-command';
import { COMMON_HELP, storePathOf, UsageError, type CliContext } from '../command';
import { defineCommand, type CommandValues } from '../define-command';
import { runThisProcessIsInside } from '../enclosing-run';
import { writer } from '../open-cli-store';
import { EXIT } from '../exit-codes';
import { checkOptionalText, checkText, parseIntegerFlag, RANGES, rangeText, TEXT_CAPS } from '../limits';
import { parkedByCommand } from '../parked-by-command';
import { projectFolder } from '../project-path';
import { safeJson, sanitizeLine } from '../sanitize';
import { watchStoreFile } from '../store-file-watch';

const OPTIONS = {
  project: { type: 'string' },
  workflow: { type: 'string' },
  title: { type: 'string' },
  'lease-ms': { type: 'string' },
  key: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  'no-log': { type: 'boolean' },
} as const;

export const execCommand = defineCommand({
  name: 'exec',
  summary: 'run a command as a durable run (heartbeat, cancel, answers)',
  help: `Usage: runwarden exec [options] -- CMD [ARG...]

Reserves and claims a run, then runs CMD as its body: the run's lease is renewed while CMD runs,
and CMD (and anything it starts) is stopped if this process loses the lease (fenced), or when a
person requests a cancel (the run ends cancelled) or a pause (the run is parked, paused).
CMD's environment carries RUNWARDEN_STORE, RUNWARDEN_RUN_ID, RUNWARDEN_RUN_TOKEN and
RUNWARDEN_LEASE_GENERATION, and "runwarden" is on its PATH, so "runwarden ask" and
"runwarden notify" inside CMD act on this run. The run id is printed on stderr.
SIGINT/SIGTERM are forwarded to CMD; the run then ends cancelled. Ctrl-Z stops this process
between store writes, never inside one; past its lease the run stays live (docs/LIVENESS.md).
If the store file is removed or replaced while CMD runs, this says so once; CMD runs on unrecorded.
Reserving and claiming the run is one transaction: if the claim fails, no run is left behind.
CMD runs in its own process group that is torn down when it ends; on Linux it also dies with this
process (docs/LIVENESS.md). When stdin is a terminal CMD keeps the terminal's group (Ctrl-C, reading
the keyboard), and what it leaves running is found by the run's RUNWARDEN_RUN_ID in its environment
and stopped when it ends (Linux; elsewhere this says it could not look).
CMD's argv, folder and environment are recorded for a retry; the values of secret-named variables
(TOKEN, SECRET, PASSWORD, KEY, CREDENTIAL, AUTH, COOKIE, SESSION) are not, only their names. If the end of the run cannot be recorded
(disk full, read-only, busy), this process keeps its lease and tries again until it can.

Options:
  --project DIR    the project folder (default: the enclosing git repository's root, else the
                   current folder)
  --workflow NAME  workflow name (default: the command's base name)
  --title T        run title (default: the command line)
  --lease-ms N     lease length in ms (${rangeText(RANGES.leaseMs)}, default ${DEFAULT_LEASE_MS}); heartbeats every N/3
  --key K          idempotency key: the same key reuses the same run; once it has ended it is
                   not started again, and after "runwarden retry" the key runs the retry. A key
                   belongs to its project and to the command and folder it was first given with:
                   another command or folder under it is refused (exit 5), nothing run
  -q, --quiet      do not print the run id and the outcome on stderr
  --json           end with one JSON line on stdout:
                   {"ok":true,"value":{"runId","outcome","exitCode","message","unresolvedEffects"}}
                   (unresolvedEffects: [{id,key,summary}] of effects whose outcome is unknown)
  --no-log         give CMD this terminal itself and keep no log of its output (a full-screen
                   program); by default its stdout and stderr are logged beside the store
                   ("runwarden logs RUN") and shown here as they come
${COMMON_HELP}

Exit status: CMD's exit code (128+N when killed by signal N); 6 if the lease was lost;
130 if the run was cancelled or paused at a person's request; 127 if CMD could not be started;
75 if CMD parked its run (an effect with an unknown outcome, or "runwarden park"); 76 if the run
completed but an effect's outcome is still unknown: the last line names each such effect and
the "runwarden resolve" command that settles it (the run is completed, and needs you).`,
  options: OPTIONS,
  runsCommand: true,
  store: writer({ runner: true }),
  async run({ ctx, values, args, commandArgv, open }) {
    const request = execRequest(ctx, values, args, commandArgv ?? []);
    const started = startRun(ctx, request, open);
    const { settlement, outcome } = await superviseAndSettle(ctx, request, started);
    started.stopWatching();
    const { store, run, claim } = started;
    const parked = settlement.status === 'fenced' ? parkedByCommand(store, run.id, claim.generation) : null;
    const result = execResult(run.id, settlement, outcome, parked, unresolvedEffects(store, run.id));
    if (ctx.json) {
      ctx.stdout.write(`${safeJson({ ok: true, value: result })}\n`);
    } else if (
      !request.quiet ||
      result.exitCode === EXIT.unresolved ||
      (parked === null && (settlement.status === 'fenced' || settlement.status === 'error'))
    ) {
      ctx.stderr.write(`runwarden: ${sanitizeLine(result.message)}\n`);
    }
    return result.exitCode;
  },
});

/** What `exec` was asked to run, every flag checked: nothing is written before this succeeds. */
interface ExecRequest {
  commandArgv: string[];
  leaseMs: number;
  title: string;
  workflow: string;
  requestKey: string | null;
  projectPath: string;
  storePath: string;
  quiet: boolean;
  noLog: boolean;
}

/** The flags and CMD, checked. */
function execRequest(
  ctx: CliContext,
  values: CommandValues<typeof OPTIONS>,
  positionals: string[],
  commandArgv: string[],
): ExecRequest {
  if (positionals.length > 0) {
    throw new UsageError(`put the command after "--": runwarden exec [options] -- ${positionals.join(' ')}`);
  }
  if (commandArgv.length === 0) throw new UsageError('missing the command to run after "--"');
  // Refused before anything is written (exit 2), not by the claim after the run was reserved.
  const leaseMs = parseIntegerFlag(values['lease-ms'], 'lease-ms', RANGES.leaseMs) ?? DEFAULT_LEASE_MS;
  const line = commandArgv.join(' ');
  const title = checkText(
    values.title ?? (line.length > TEXT_CAPS.title ? `${line.slice(0, TEXT_CAPS.title - 1)}…` : line),
    '--title',
    'title',
  );
  const workflow = checkText(values.workflow ?? basename(commandArgv[0] ?? 'command'), '--workflow', 'name');
  checkText(commandArgv.join(' '), 'the command line', 'command', true);
  const requestKey = checkOptionalText(values.key, '--key', 'key') ?? null;
  const projectPath = projectFolder(values.project, ctx.cwd);
  return {
    commandArgv,
    leaseMs,
    title,
    workflow,
    requestKey,
    projectPath,
    storePath: storePathOf(ctx, values.store),
    quiet: values.quiet === true,
    noLog: values['no-log'] === true,
  };
}

/** A run reserved, claimed and marked running, with its session and the watch on its store file. */
interface StartedRun {
  store: RunStore;
  run: Run;
  claim: Claim;
  command: CommandSpec;
  session: RunSession;
  stopWatching: () => void;
}

/** Reserves, claims and marks the run running; a start that fails after the claim ends the run failed. */
function startRun(ctx: CliContext, request: ExecRequest, open: () => RunStore): StartedRun {
  const { storePath, leaseMs } = request;
  const store = open();
  // Recorded so a retry runs the same work; secret-looking values are never stored (docs/CLI.md#what-exec-records).
  const command = { argv: request.commandArgv, cwd: ctx.cwd, env: recordEnvironment(process.env) };
  const owner = runnerOwner('exec');
  const actor = runnerActor(owner, 'cli');
  // Started inside a run (its environment, or its process ancestry, says so): a child of that run, whose
  // family shares idempotency keys (docs/LIVENESS.md#nested-runs).
  const enclosingRunId = runThisProcessIsInside(ctx, store);
  // One transaction: a claim that fails (a live owner of the same --key, a busy or full store) leaves
  // no queued run behind for a worker to start later.
  const { claim, run } = explainEndedKey(request.requestKey, () =>
    store.reserveAndClaim(
      {
        projectPath: request.projectPath,
        workflow: request.workflow,
        title: request.title,
        command,
        executionMode: process.stdin.isTTY ? 'interactive' : 'headless',
        requestKey: request.requestKey,
        enclosingRunId,
      },
      actor,
      // A key's queued retry claimed here joins this family too.
      { ...owner, leaseMs, surface: 'cli', enclosingRunId },
    ),
  );
  // The id first: whatever fails from here on, the person knows which run it was.
  if (!request.quiet) ctx.stderr.write(`runwarden: run ${run.id}\n`);
  const session = new RunSession(store, claim, leaseMs, 'cli');
  // Deleted or renamed over, the open file still takes every write: say once that nobody will see them.
  const stopWatching = watchStoreFile(storePath, () => {
    ctx.stderr.write(
      `runwarden: the store ${sanitizeLine(storePath)} was removed or replaced while run ${run.id} ran; CMD goes on, but nothing it does is recorded any more\n`,
    );
  });
  ctx.defer(stopWatching);
  session.on((event) => {
    if (event.kind === 'lapsed' && !request.quiet) {
      ctx.stderr.write(
        `runwarden: the lease on run ${run.id} had lapsed for ${Math.round(event.lapsedMs / 1000)} s (a suspend or a clock step?); nobody took over, so it was renewed\n`,
      );
    }
  });
  try {
    markRunningLate(session);
  } catch (error) {
    endFailedStart(session, error);
    throw error;
  }
  return { store, run, claim, command, session, stopWatching };
}

/** Runs CMD under the session, then records how the run ended, retrying until the store takes it. */
async function superviseAndSettle(
  ctx: CliContext,
  request: ExecRequest,
  started: StartedRun,
): Promise<{ settlement: Settlement; outcome: CommandOutcome }> {
  const { store, claim, command, session, run } = started;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...runnerEnv(request.storePath, claim),
    RUNWARDEN_NODE: process.execPath,
    // How long a nested command renews the claim for when a crowded store made it lapse.
    RUNWARDEN_LEASE_MS: String(request.leaseMs),
    PATH: [dirname(ctx.binPath), process.env.PATH ?? ''].filter((part) => part !== '').join(delimiter),
  };
  // CMD's output is logged beside the store and still shown here (docs/RUN-OUTPUT.md#capture).
  const log = request.noLog
    ? undefined
    : openRunLog(store, claim, (message) => ctx.stderr.write(`runwarden: ${message}\n`));
  const outcome = await superviseCommand(session, command, {
    env,
    stdio: 'inherit',
    // Attached to a terminal, CMD stays in the foreground group (Ctrl-C, reading stdin);
    // otherwise its own group, so a stop reaches everything it started.
    ownGroup: !process.stdin.isTTY,
    output: log,
  });
  log?.finish();
  tellLeftBehind(ctx.stderr, run.id, outcome.leftBehind);
  let told = false;
  const settlement = await settleRunDurably(session, command, outcome, 'cancel', {
    onRetry: (failed) => {
      if (told) return;
      told = true;
      ctx.stderr.write(
        `runwarden: ${failed.message}; keeping the lease and trying again until it is recorded\n`,
      );
    },
  });
  return { settlement, outcome };
}

/**
 * Started from a terminal, CMD's leftovers were looked for by the run's marker and stopped; say so in
 * words when some could not be stopped, or not looked for at all (docs/LIVENESS.md#terminal-mode).
 */
export function tellLeftBehind(
  stderr: { write(text: string): unknown },
  runId: string,
  leftBehind: readonly number[] | null,
): void {
  if (leftBehind === null) {
    stderr.write(
      `runwarden: run ${runId}: could not look for processes the command left running (no /proc here); anything it started in the background may still run\n`,
    );
  } else if (leftBehind.length > 0) {
    stderr.write(
      `runwarden: run ${runId}: ${leftBehind.length} process(es) the command started could not be stopped (pid ${leftBehind.join(', ')}); they still run\n`,
    );
  }
}

/**
 * `markRunning`, renewing first when the claim lapsed meanwhile (a crowded store kept this process waiting
 * past its lease while nobody took over: docs/LIVENESS.md#suspend-safe-renewal).
 */
function markRunningLate(session: RunSession): void {
  try {
    session.markRunning();
  } catch (error) {
    if (!isRunwardenError(error) || error.code !== 'FENCED') throw error;
    if (session.heartbeat.renew() !== 'renewed') throw error;
    session.markRunning();
  }
}

/**
 * A start that fails after the claim (the store stayed busy past the wait, the disk is full) ends its run
 * failed with the reason, instead of leaving a claimed run that never started to turn stale. Best effort:
 * if even that cannot be written, the lease runs out and the run shows stale, as before.
 */
function endFailedStart(session: RunSession, error: unknown): void {
  if (session.fenced) return;
  const reason = error instanceof Error ? error.message : String(error);
  try {
    session.heartbeat.renew();
    session.fail(`The run could not start: ${reason}`);
  } catch {
    // Nothing more to do here: the error itself is reported by the caller.
  }
}

/** An effect of the run whose outcome is unknown (ambiguous) when the run ended. */
export interface UnresolvedEffect {
  id: number;
  key: string;
  summary: string;
}

export interface ExecResult {
  runId: string;
  /** How the run ended here: completed, failed, cancelled, parked, fenced (lost the lease) or error. */
  outcome: Settlement['status'];
  exitCode: number;
  message: string;
  /** Its effects whose outcome is unknown: a person must say whether each happened. */
  unresolvedEffects: UnresolvedEffect[];
}

/** The run's effects of unknown outcome, read after it ended; none when the store cannot be read. */
export function unresolvedEffects(store: StoreReader, runId: string): UnresolvedEffect[] {
  try {
    return store
      .getSnapshot(runId)
      .effects.filter((effect) => effect.status === 'ambiguous')
      .map((effect) => ({ id: effect.id, key: effect.idempotencyKey, summary: effect.summary }));
  } catch {
    return [];
  }
}

/**
 * A run that completed with an effect of unknown outcome is no success: a script, `make` or CI must not go on
 * as if it were (exit 76). The line names each effect and the command that settles it (docs/CLI.md#exit-codes).
 */
function completedUnresolved(runId: string, unresolved: readonly UnresolvedEffect[]): string {
  const named = unresolved.map((effect) => `effect ${effect.id} (${sanitizeLine(effect.summary)})`);
  const commands = unresolved.map(
    (effect) => `runwarden resolve ${effect.id} --happened|--not-happened --note 'how you know'`,
  );
  return `run ${runId} completed, but whether ${named.join(', ')} happened is unknown: it needs you. Say so with: ${commands.join('; ')}`;
}

/** The outcome line of `exec` and of each run a `worker` executes, and the exit code it maps to. */
export function execResult(
  runId: string,
  settlement: Settlement,
  outcome: CommandOutcome,
  parked: ReturnType<typeof parkedByCommand>,
  unresolved: UnresolvedEffect[] = [],
): ExecResult {
  if (parked !== null) {
    return {
      runId,
      outcome: 'parked',
      exitCode: EXIT.parked,
      message: `run ${runId} parked by its command (${parked.code}${parked.detail === null ? '' : `: ${parked.detail}`}); see: runwarden show ${runId}`,
      unresolvedEffects: unresolved,
    };
  }
  const base = {
    runId,
    outcome: settlement.status,
    message: settlement.message,
    unresolvedEffects: unresolved,
  };
  if (settlement.status === 'completed' && unresolved.length > 0) {
    return { ...base, exitCode: EXIT.unresolved, message: completedUnresolved(runId, unresolved) };
  }
  switch (settlement.status) {
    case 'fenced':
      return { ...base, exitCode: EXIT.lostLease };
    case 'error':
      return { ...base, exitCode: EXIT.failure };
    case 'cancelled':
    case 'parked':
      return {
        ...base,
        exitCode:
          outcome.stopReason === 'interrupted' ? exitCodeOf(outcome) || EXIT.cancelled : EXIT.cancelled,
      };
    case 'completed':
    case 'failed':
      return { ...base, exitCode: exitCodeOf(outcome) };
  }
}

/**
 * `--key` reuses its run, so a run of that key that has ended is not started again (CONFLICT). Said so,
 * with the way to run it again: retry it, then run the same command again — `--key` then claims the retry
 * (run-reservation.ts, `currentRunOfKey`), which skips the effects that already happened, as `make` or a
 * script run a second time would not know to.
 */
function explainEndedKey<T>(key: string | null, claim: () => T): T {
  try {
    return claim();
  } catch (error) {
    const run =
      isRunwardenError(error) && error.code === 'CONFLICT'
        ? (error.fresh as RunSnapshot | undefined)?.run
        : undefined;
    if (key === null || run === undefined || !isTerminalRunStatus(run.status)) throw error;
    // A retry is refused until a person says whether each effect of unknown outcome happened: say so first.
    const unknown = ((error as RunwardenError).fresh as RunSnapshot).effects.filter(
      (effect) => effect.status === 'ambiguous',
    );
    const resolveFirst =
      unknown.length === 0
        ? ''
        : ` First say whether ${unknown.map((effect) => `effect ${effect.id} (${sanitizeLine(effect.summary)})`).join(', ')} happened: "runwarden resolve ${unknown.length === 1 ? String(unknown[0]?.id) : 'EFFECT'} --happened|--not-happened --note TEXT".`;
    throw new RunwardenError(
      'CONFLICT',
      `The run of --key ${key}, ${run.id}, has ended ${run.status}; --key reuses that run, so it is not started again.${resolveFirst} To run it again, retry it ("runwarden retry ${run.id}") and run this command again: --key then runs the retry here, and effects that already happened are not done again. Or use another --key.`,
      { fresh: (error as RunwardenError).fresh },
    );
  }
}
