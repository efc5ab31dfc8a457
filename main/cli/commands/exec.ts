/** `runwarden exec`: run a command as a durable run (reserve, claim, heartbeat, settle). */
import { basename, delimiter, dirname } from 'node:path';
import { runnerEnv } from '../../runner/runner-env';
import { DEFAULT_LEASE_MS, RunSession } from '../../runner/run-session';
import { runnerActor, runnerOwner } from '../../runner/owner-info';
import { exitCodeOf, settleRunDurably, superviseCommand } from '../../runner/supervise-command';
import { MAX_LEASE_MS } from '../../store';
import {
  COMMON_HELP,
  COMMON_OPTIONS,
  openCliStore,
  parseCommand,
  parseIntegerFlag,
  storePathOf,
  UsageError,
  type Command,
} from '../command';
import { EXIT } from '../exit-codes';

const OPTIONS = {
  ...COMMON_OPTIONS,
  project: { type: 'string' },
  workflow: { type: 'string' },
  title: { type: 'string' },
  'lease-ms': { type: 'string' },
  key: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
} as const;

export const execCommand: Command = {
  name: 'exec',
  summary: 'run a command as a durable run (heartbeat, cancel, answers)',
  help: `Usage: runwarden exec [options] -- CMD [ARG...]

Reserves and claims a run, then runs CMD as its body: the run's lease is renewed while CMD runs,
and CMD (and anything it starts) is stopped if this process loses the lease (fenced), or when a
person requests a cancel (the run ends cancelled) or a pause (the run is parked, paused).
CMD's environment carries RUNWARDEN_STORE, RUNWARDEN_RUN_ID, RUNWARDEN_RUN_TOKEN and
RUNWARDEN_LEASE_GENERATION, and "runwarden" is on its PATH, so "runwarden ask" and
"runwarden notify" inside CMD act on this run. The run id is printed on stderr.
SIGINT/SIGTERM are forwarded to CMD; the run then ends cancelled.
Reserving and claiming the run is one transaction: if the claim fails, no run is left behind.
CMD runs in its own process group (unless stdin is a terminal) that is torn down when it ends; on
Linux it also dies with this process (docs/LIVENESS.md). If the end of the run cannot be recorded
(disk full, read-only, busy), this process keeps its lease and tries again until it can.

Options:
  --project DIR    the project folder (default: the current directory)
  --workflow NAME  workflow name (default: the command's base name)
  --title T        run title (default: the command line)
  --lease-ms N     lease length in ms, 100 to ${MAX_LEASE_MS} (default ${DEFAULT_LEASE_MS}); heartbeats every N/3
  --key K          idempotency key: the same key reuses the same run
  -q, --quiet      do not print the run id and the outcome on stderr
${COMMON_HELP}

Exit status: CMD's exit code (128+N when killed by signal N); 1 if the lease was lost;
130 if the run was cancelled or paused at a person's request; 127 if CMD could not be started.`,
  async run(ctx, argv) {
    const separator = argv.indexOf('--');
    const ownArgs = separator === -1 ? argv : argv.slice(0, separator);
    const commandArgv = separator === -1 ? [] : argv.slice(separator + 1);
    const parsed = parseCommand(ctx, this, ownArgs, OPTIONS);
    if (parsed === null) return EXIT.ok;
    if (parsed.positionals.length > 0) {
      throw new UsageError(
        `put the command after "--": runwarden exec [options] -- ${parsed.positionals.join(' ')}`,
      );
    }
    if (commandArgv.length === 0) throw new UsageError('missing the command to run after "--"');
    const { values } = parsed;
    const leaseMs = parseIntegerFlag(values['lease-ms'], 'lease-ms', 100) ?? DEFAULT_LEASE_MS;
    // Refused before anything is written (exit 2), not by the claim after the run was reserved.
    if (leaseMs > MAX_LEASE_MS) {
      throw new UsageError(`--lease-ms must be at most ${MAX_LEASE_MS} (a day), got ${leaseMs}`);
    }
    const storePath = storePathOf(ctx, values.store);
    const store = openCliStore(ctx, values.store);
    const command = { argv: commandArgv, cwd: ctx.cwd };
    const owner = runnerOwner('exec');
    const actor = runnerActor(owner, 'cli');
    // One transaction: a claim that fails (a live owner of the same --key, a busy or full store) leaves
    // no queued run behind for a worker to start later.
    const { claim, run } = store.reserveAndClaim(
      {
        projectPath: values.project ?? ctx.cwd,
        workflow: values.workflow ?? basename(commandArgv[0] ?? 'command'),
        title: values.title ?? commandArgv.join(' '),
        command,
        executionMode: process.stdin.isTTY ? 'interactive' : 'headless',
        requestKey: values.key ?? null,
      },
      actor,
      { ...owner, leaseMs },
    );
    const session = new RunSession(store, claim, leaseMs, 'cli');
    session.on((event) => {
      if (event.kind === 'lapsed' && values.quiet !== true) {
        ctx.stderr.write(
          `runwarden: the lease on run ${run.id} had lapsed for ${Math.round(event.lapsedMs / 1000)} s (a suspend or a clock step?); nobody took over, so it was renewed\n`,
        );
      }
    });
    session.markRunning();
    if (values.quiet !== true) ctx.stderr.write(`runwarden: run ${run.id}\n`);

    const binDir = dirname(ctx.binPath);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...runnerEnv(storePath, claim),
      RUNWARDEN_NODE: process.execPath,
      PATH: [binDir, process.env.PATH ?? ''].filter((part) => part !== '').join(delimiter),
    };
    const outcome = await superviseCommand(session, command, {
      env,
      stdio: 'inherit',
      // Attached to a terminal, CMD stays in the foreground group (Ctrl-C, reading stdin);
      // otherwise its own group, so a stop reaches everything it started.
      ownGroup: !process.stdin.isTTY,
    });
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
    if (values.quiet !== true || settlement.status === 'fenced' || settlement.status === 'error') {
      ctx.stderr.write(`runwarden: ${settlement.message}\n`);
    }
    switch (settlement.status) {
      case 'fenced':
      case 'error':
        return EXIT.failure;
      case 'cancelled':
      case 'parked':
        return outcome.stopReason === 'interrupted' ? exitCodeOf(outcome) || EXIT.cancelled : EXIT.cancelled;
      case 'completed':
      case 'failed':
        return exitCodeOf(outcome);
    }
  },
};
