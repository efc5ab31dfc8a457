/**
 * `runwarden effect`: perform a side effect of the enclosing run at most once per idempotency key, through
 * the effect ledger (docs/CLI.md#effects): applied already (in this run or the run it retries) → skipped;
 * outcome unknown → the run parks for a person and nothing is repeated; otherwise applying → CMD →
 * applied, rejected, or (CMD exits 75) unknown.
 */
import { basename } from 'node:path';
import type { Effect } from '../../../shared/domain';
import { RunwardenError } from '../../../shared/errors';
import { recordDurably } from '../../runner/durable-write';
import type { EnclosingClaim } from '../../runner/runner-env';
import type { RunnerStore } from '../../store/runner-store';
import {
  isProcessAlive,
  machineIdentity,
  processAncestry,
  processStartId,
} from '../../store/process-identity';
import type { EffectPerformer, EffectProcess } from '../../store/store-types';
import {
  COMMON_HELP,
  JSON_HELP,
  noExtraPositionals,
  printResult,
  requirePositional,
  UsageError,
  type CliContext,
} from '../command';
import { defineCommand, type CommandValues } from '../define-command';
import { runnerWriter } from '../open-runner-cli-store';
import { keyInLineage } from '../effect-lineage';
import { requireEnclosingRun } from '../enclosing-run';
import { EXIT } from '../exit-codes';
import { sanitizeLine } from '../sanitize';
import { checkText, parseIntegerFlag, RANGES } from '../limits';

const OPTIONS = {
  key: { type: 'string' },
  type: { type: 'string' },
  summary: { type: 'string' },
  applied: { type: 'boolean' },
  rejected: { type: 'boolean' },
  unknown: { type: 'boolean' },
  'unknown-exit': { type: 'string' },
  'performer-pid': { type: 'string' },
} as const;

/** What CMD exits with to say "I cannot tell whether it happened". The same code `effect` exits with when it parks. */
export const UNKNOWN_OUTCOME_EXIT = EXIT.parked;

export const effectCommand = defineCommand({
  name: 'effect',
  summary: 'inside a run: perform a side effect at most once per key (effect begin / effect end)',
  help: `Usage: runwarden effect --key K [--type T] [--summary S] -- CMD [ARG...]
       runwarden effect begin --key K [--type T] [--summary S]
       runwarden effect end ID (--applied | --rejected | --unknown)

Run inside "runwarden exec". Performs CMD as a side effect (a deploy, a payment, an email) recorded
under the idempotency key K, so it happens at most once:
  - already applied in this run, or in another run of its family (the run it retries, and so
    on; the run it was started inside and the runs nested in them): CMD is not run; exit 0
  - its outcome is unknown (applying or ambiguous here or elsewhere in the lineage: a process died
    while it was applying, or CMD said so): CMD is not run, the run is parked for a person to say
    whether it happened ("runwarden resolve"); exit 75
  - otherwise it is recorded as applying (with this process's id), CMD runs, and CMD's exit status
    decides: 0 → applied (exit 0); 75 → outcome unknown (parked, exit 75); anything else →
    rejected, it did not happen (exit with CMD's code). If this process is killed while CMD runs,
    the run's supervisor makes the effect ambiguous at once; a run never ends with it applying.
    If the store cannot record the outcome (disk full, read-only, busy), this says so and tries
    again until it can; Ctrl-C stops trying (the effect then becomes ambiguous).
"effect begin" records the start for a program that performs the effect itself. It prints the
effect's id when you should go ahead, and prints nothing (exit 0) when it was already applied.
The run performs it: the shell that called "effect begin" may exit (a Makefile's recipe line, a
command substitution), and any process of the run may finish it. It becomes ambiguous if the
run's supervisor dies, or the run ends, before "effect end". With --performer-pid PID, that one
process performs it instead: once PID is gone without "effect end", it becomes ambiguous.
Finish with "effect end ID --applied | --rejected | --unknown" (--unknown parks the run, exit 75),
from a process the run started.

Options:
  --key K            idempotency key (required; the same key is the same effect)
  --type T           kind of effect, e.g. deploy, payment, email (default: CMD's name, or "effect")
  --summary S        what it does, in words, for the person who may have to resolve it
                     (default: the command line)
  --unknown-exit N   the exit code of CMD that means "outcome unknown" (default 75)
  --performer-pid PID  effect begin: the process that performs it (default: the run itself)
${JSON_HELP}
${COMMON_HELP}

Exit status: 0 applied (now or before); CMD's exit code when rejected; 75 parked: the outcome is
unknown and a person must resolve it; 2 outside a run or bad arguments; 6 the run lost its lease;
5 the key was rejected before in this run (use a new key to try again), or "effect end" of an
effect that is no longer applying; 1 "effect end" from a process the run did not start.`,
  options: OPTIONS,
  runsCommand: true,
  store: runnerWriter({ mustExist: true }),
  async run({ ctx, values, args: positionals, commandArgv, open }) {
    const claim = requireEnclosingRun(ctx, 'effect');
    const endings = [values.applied, values.rejected, values.unknown].filter((v) => v === true).length;

    if (positionals[0] === 'end' && commandArgv === null)
      return endEffect(ctx, open, claim, { values, positionals, endings });
    if (endings > 0)
      throw new UsageError('--applied, --rejected and --unknown go with "runwarden effect end ID"');

    const request = parseEffectRequest(values, positionals, commandArgv);
    const store = open();
    const reserved = reserveOnce(ctx, store, claim, request);
    if (typeof reserved === 'number') return reserved;
    // Who performs it: this process for CMD; for `effect begin` the run itself, or the process named by
    // --performer-pid. Once that performer is verifiably gone while the effect is applying, it becomes
    // ambiguous (docs/LIVENESS.md#unknown-outcomes).
    const applying = store.beginEffect(claim, reserved.id, request.performer);
    if (request.begin) {
      if (ctx.json) printResult(ctx, { effect: applying, ran: false }, () => '');
      else ctx.stdout.write(`${applying.id}\n`);
      return EXIT.ok;
    }
    return performEffect(ctx, store, claim, request, applying);
  },
});

type EffectOptions = CommandValues<typeof OPTIONS>;

/** `effect end ID --applied | --rejected | --unknown`: settles an effect `effect begin` started. */
async function endEffect(
  ctx: CliContext,
  open: () => RunnerStore,
  claim: EnclosingClaim,
  { values, positionals, endings }: { values: EffectOptions; positionals: string[]; endings: number },
): Promise<number> {
  const id = parseIntegerFlag(requirePositional(positionals, 1, 'ID'), 'ID', RANGES.effectId) ?? 0;
  noExtraPositionals(positionals, 2);
  if (endings !== 1) throw new UsageError('say how it ended: --applied, --rejected or --unknown');
  const store = open();
  const status = values.applied === true ? 'applied' : values.rejected === true ? 'rejected' : 'ambiguous';
  // Any process the run started may settle it; one that merely carries the claim may not.
  const ancestry = processAncestry(process.pid);
  const effect = await settleDurably(ctx, `effect ${id}`, status, () =>
    store.settleEffect(claim, id, status, ancestry),
  );
  if (status === 'ambiguous') return parkAmbiguous(ctx, store, claim, effect);
  printResult(ctx, { effect, ran: true }, () => '');
  return EXIT.ok;
}

/**
 * Records an effect's known outcome, trying again while the store cannot take it (a full disk, read-only,
 * busy), as exec and worker do with a run's end (durable-write.ts): the effect stays applying meanwhile,
 * with this process alive as its performer. Says so once, and again when it was recorded. A stop signal
 * ends the waiting: the outcome is then not recorded, and the effect becomes unknown once this process is
 * gone (docs/LIVENESS.md#unknown-outcomes).
 */
async function settleDurably(
  ctx: CliContext,
  what: string,
  status: 'applied' | 'rejected' | 'ambiguous',
  write: () => Effect,
): Promise<Effect> {
  const outcome = status === 'ambiguous' ? 'unknown' : status;
  let retried = false;
  try {
    const effect = await recordDurably(write, {
      onRetry: (error, tries) => {
        retried = true;
        if (tries === 1)
          ctx.stderr.write(
            `runwarden: ${sanitizeLine(what)} ${outcome === 'unknown' ? 'has an unknown outcome' : `was ${outcome}`}, but the store cannot record it now (${sanitizeLine(error.message)}); keeping it applying and trying again until it is recorded (Ctrl-C stops trying)\n`,
          );
      },
    });
    if (retried) ctx.stderr.write(`runwarden: ${sanitizeLine(what)} recorded as ${outcome}\n`);
    return effect;
  } catch (error) {
    if (retried)
      ctx.stderr.write(
        `runwarden: stopped trying: ${sanitizeLine(what)} was ${outcome} but is not recorded; it becomes unknown once this process is gone, for a person to resolve\n`,
      );
    throw error;
  }
}

/** An effect to perform (with CMD) or to begin (`effect begin`, CMD null), its flags checked. */
interface EffectRequest {
  begin: boolean;
  commandArgv: string[] | null;
  key: string;
  type: string;
  summary: string;
  unknownExit: number;
  /** Who performs it: this process for CMD; the run, or --performer-pid's process, for `effect begin`. */
  performer: EffectPerformer;
}

function parseEffectRequest(
  values: EffectOptions,
  positionals: string[],
  commandArgv: string[] | null,
): EffectRequest {
  const begin = positionals[0] === 'begin' && commandArgv === null;
  noExtraPositionals(positionals, begin ? 1 : 0);
  if (!begin && commandArgv === null) {
    throw new UsageError(
      'put the command after "--": runwarden effect --key K -- CMD (or use "effect begin")',
    );
  }
  if (commandArgv !== null && commandArgv.length === 0) {
    throw new UsageError('missing the command to run after "--"');
  }
  if (values.key === undefined) throw new UsageError('--key is required: the idempotency key of this effect');
  const key = checkText(values.key, '--key', 'key');
  const type = checkText(
    values.type ?? (commandArgv?.[0] === undefined ? 'effect' : basename(commandArgv[0])),
    '--type',
    'name',
  );
  const summary = checkText(
    values.summary ?? (commandArgv === null ? key : commandArgv.join(' ').slice(0, 500)),
    '--summary',
    'summary',
  );
  const unknownExit =
    parseIntegerFlag(values['unknown-exit'], 'unknown-exit', RANGES.exitCode) ?? UNKNOWN_OUTCOME_EXIT;
  return { begin, commandArgv, key, type, summary, unknownExit, performer: performerOf(values, begin) };
}

/** `effect -- CMD`: this process. `effect begin`: the run, or the live process --performer-pid names. */
function performerOf(values: EffectOptions, begin: boolean): EffectPerformer {
  const pid = parseIntegerFlag(values['performer-pid'], 'performer-pid', RANGES.pid);
  if (pid !== undefined && !begin) throw new UsageError('--performer-pid goes with "runwarden effect begin"');
  if (!begin) return effectProcess(process.pid);
  if (pid === undefined) return 'run';
  if (!isProcessAlive(pid, null)) throw new UsageError(`--performer-pid ${pid}: no such process here`);
  return effectProcess(pid);
}

/**
 * The ledger's answer for the key: the pending effect to go ahead with, or the exit code when it must not
 * run (applied already, outcome unknown: parked).
 */
function reserveOnce(
  ctx: CliContext,
  store: RunnerStore,
  claim: EnclosingClaim,
  request: EffectRequest,
): Effect | number {
  const { key, type, summary } = request;
  const earlier = keyInLineage(store, claim.runId, key);
  // Applying or ambiguous in another run of the lineage: nobody knows yet whether it happened, so CMD
  // must not run again; the run parks like on its own unknown outcome (docs/LIVENESS.md#unknown-outcomes).
  if (earlier?.outcome === 'unknown') return parkAmbiguous(ctx, store, claim, earlier.effect);
  // Applied elsewhere in the lineage: reserving carries it over, already applied, with an `effect.carried`
  // event, so the retry shows why its CMD did not run.
  const reserved = store.reserveEffect(claim, { type, idempotencyKey: key, summary });
  if (reserved.status === 'applying' || reserved.status === 'ambiguous') {
    return parkAmbiguous(ctx, store, claim, reserved);
  }
  // Carried over from the lineage since the look above.
  if (reserved.status === 'applied')
    return alreadyApplied(ctx, claim, key, reserved, earlier?.effect.runId ?? reserved.runId);
  if (reserved.status !== 'pending') {
    throw new RunwardenError(
      'CONFLICT',
      `Effect ${key} was ${reserved.status} earlier in this run; use a new key to try it again.`,
    );
  }
  return reserved;
}

/** Runs CMD and settles the effect from its exit: 0 applied, the unknown code or a signal ambiguous, else rejected. */
async function performEffect(
  ctx: CliContext,
  store: RunnerStore,
  claim: EnclosingClaim,
  request: EffectRequest,
  applying: Effect,
): Promise<number> {
  const commandArgv = request.commandArgv ?? [];
  // node:child_process (with net and the stream modules) is loaded only when there is a command to run.
  const { runChild } = await import('../run-child');
  const outcome = await runChild(commandArgv, ctx.env, ctx.cwd);
  if (outcome.spawnError !== null) ctx.stderr.write(`runwarden: ${sanitizeLine(outcome.spawnError)}\n`);
  const what = `effect ${request.key}`;
  if (outcome.exitCode === 0) {
    const effect = await settleDurably(ctx, what, 'applied', () =>
      store.settleEffect(claim, applying.id, 'applied'),
    );
    printResult(ctx, { effect, ran: true }, () => '');
    return EXIT.ok;
  }
  // Killed by a signal, or CMD said it cannot tell: nobody knows whether it happened.
  if (outcome.exitCode === request.unknownExit || outcome.signal !== null) {
    const effect = await settleDurably(ctx, what, 'ambiguous', () =>
      store.settleEffect(claim, applying.id, 'ambiguous'),
    );
    return parkAmbiguous(ctx, store, claim, effect);
  }
  const effect = await settleDurably(ctx, what, 'rejected', () =>
    store.settleEffect(claim, applying.id, 'rejected'),
  );
  printResult(ctx, { effect, ran: true }, () => '');
  if (!ctx.json) {
    ctx.stderr.write(
      `runwarden: effect ${sanitizeLine(request.key)} rejected: ${sanitizeLine(commandArgv[0] ?? 'CMD')} exited with code ${outcome.exitCode}\n`,
    );
  }
  return outcome.exitCode;
}

/** Applied before, here or in another run of the lineage: CMD is not run again; exit 0. */
function alreadyApplied(
  ctx: CliContext,
  claim: EnclosingClaim,
  key: string,
  effect: Effect,
  appliedIn: string,
): number {
  const where = appliedIn === claim.runId ? 'in this run' : `in run ${appliedIn}`;
  if (!ctx.json)
    ctx.stderr.write(
      `runwarden: effect ${sanitizeLine(key)} was already applied ${where}; not running it again\n`,
    );
  printResult(ctx, { effect, ran: false }, () => '');
  return EXIT.ok;
}

/** The identity of the process performing the effect, recorded with it (docs/LIVENESS.md#unknown-outcomes). */
function effectProcess(pid: number): EffectProcess {
  const here = machineIdentity();
  return {
    pid,
    startId: processStartId(pid),
    hostname: here.hostname,
    bootId: here.bootId,
    pidNs: here.pidNs,
  };
}

/** Parks the run `effectAmbiguous`: nothing may repeat the effect until a person says whether it happened. */
function parkAmbiguous(ctx: CliContext, store: RunnerStore, claim: EnclosingClaim, effect: Effect): number {
  store.park(
    claim,
    'effectAmbiguous',
    `Effect ${effect.idempotencyKey} has an unknown outcome${effect.runId === claim.runId ? '' : ` in run ${effect.runId}`}: ${effect.summary}`,
  );
  if (ctx.json) {
    printResult(ctx, { effect, ran: false, parked: true }, () => '');
  } else {
    ctx.stderr.write(
      `runwarden: the outcome of effect ${sanitizeLine(effect.idempotencyKey)} (${effect.id}) is unknown; run ${claim.runId} is parked until a person says whether it happened: runwarden show ${effect.runId}\n`,
    );
  }
  return EXIT.parked;
}
