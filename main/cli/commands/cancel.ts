/**
 * `runwarden cancel RUN`: cancel a run no live runner holds, or (--request) ask a live runner to stop, or
 * (--stop-command) first stop the command an orphaned run left running (docs/LIVENESS.md#orphans).
 */
import { COMMON_HELP, JSON_HELP, requirePositional, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { writer } from '../open-cli-store';
import { runBulkAction, selectionOf } from '../bulk-action';
import { SELECTION_HELP, SELECTION_OPTIONS } from '../run-selection';
import { sanitizeLine } from '../sanitize';
import { shellQuote } from '../../platform/shell-quote';
import type { RunStore } from '../../store';
import { cascadeText } from '../../../shared/cascade-text';
import { STOP_COMMAND_GRACE_MS, stopRunCommand } from '../../services/stop-run-command';
import { EXIT } from '../exit-codes';
import { checkOptionalText, parseIntegerFlag, RANGES, rangeText } from '../limits';
import { humanActor } from '../human-actor';

/**
 * The cascade says what the store changed; whether the run's processes are gone is a separate check. When
 * it could not be made here, say so (docs/LIVENESS.md#when-a-pid-is-trusted).
 */
function uncheckedProcesses(store: RunStore, runId: string): string {
  const lease = store.getSnapshot(runId).lease;
  if (lease === null || lease.ownerPid === null) return '';
  const verdict = store.judgeOwner(lease);
  const where = sanitizeLine(lease.ownerHostname ?? 'an unknown host');
  if (verdict.supervisor === 'unknown')
    return ` Its runner (pid ${lease.ownerPid} on ${where}) and its command could not be checked from here: if they still run, stop them there.`;
  if ((lease.commandPid ?? null) !== null && verdict.command === 'unknown')
    return ` Its command's processes could not be checked from here: if they still run, stop them on ${where}.`;
  return '';
}

export const cancelCommand = defineCommand({
  name: 'cancel',
  summary: 'cancel a stale or idle run (--request: ask a live runner to stop)',
  help: `Usage: runwarden cancel RUN [--reason T] [--revision N] [--json]
       runwarden cancel --request RUN [--reason T]
       runwarden cancel --stop-command RUN [--reason T] [--grace-ms N]
       runwarden cancel (RUN... | --stale | --view V | --project DIR) [--dry-run] [--yes] [--json]

Cancels a run that no live runner holds (stale, queued, parked, waiting without a runner):
open attempts are cancelled, pending effects cancelled, effects in flight become ambiguous,
open questions are cancelled. A run whose runner is alive is never force-cancelled: it is
refused (exit 3); use --request to ask the runner to stop at its next heartbeat.
A run whose runner is gone but whose command still runs (orphaned) is refused too: the command
would keep running unseen. --stop-command stops it first — SIGTERM to its process group, a grace,
SIGKILL, verified gone, recorded as your action — and then cancels the run.

Options:
  --reason T     why (recorded on the run's events)
  --request      cooperative cancel of a live run: the runner stops and ends the run cancelled
  --stop-command stop an orphaned run's command (its whole process group), then cancel the run
  --grace-ms N   with --stop-command: SIGTERM → SIGKILL grace (${rangeText(RANGES.graceMs)}, default 5000)
  --revision N   only if the run is still at revision N (as you last saw it); else exit 5.
                 Without it the revision is read first and must not change before the cancel.
${JSON_HELP}
${COMMON_HELP}

${SELECTION_HELP}

Exit status: 0 cancelled (or requested); 1 --stop-command could not verify the command gone;
3 refused, a live runner holds the run or its command still runs; 4 unknown run; 5 the run
changed (revision) or is already finished. For a selection: 0 when every run was (or would be)
cancelled, else the code of the first refusal.`,
  options: {
    ...SELECTION_OPTIONS,
    reason: { type: 'string' },
    request: { type: 'boolean' },
    'stop-command': { type: 'boolean' },
    'grace-ms': { type: 'string' },
    revision: { type: 'string' },
  },
  store: writer({ mustExist: true }),
  async run({ ctx, values, args, open }) {
    const reason = checkOptionalText(values.reason, '--reason', 'reason');
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const graceMs = parseIntegerFlag(values['grace-ms'], 'grace-ms', RANGES.graceMs) ?? STOP_COMMAND_GRACE_MS;
    const selection = selectionOf(values, args);
    if (selection !== null) {
      if (values.request === true || values['stop-command'] === true || revision !== undefined) {
        throw new UsageError(
          '--request, --stop-command and --revision act on one run; a selection takes each run as it is now',
        );
      }
      const options = { reason: reason ?? 'Cancelled from the CLI.', again: false };
      return runBulkAction(ctx, open, 'cancel', selection, values, options);
    }
    const runId = requirePositional(args, 0, 'RUN');
    const store = open();
    const actor = humanActor();
    // Compare-and-set even without --revision: against the revision read here.
    let expectedRevision = revision ?? store.getRun(runId).revision;
    if (values['stop-command'] === true) {
      const stopReason = reason ?? 'Runner gone, command still running: stopped from the CLI.';
      const stopping = stopRunCommand(store, runId, { expectedRevision, reason: stopReason, actor, graceMs });
      // Started from a terminal, the command has no group: its processes carry the run's marker.
      const group =
        stopping.command.pgid === null
          ? `the processes of run ${runId} (pid ${stopping.command.pid} and all that inherited its environment)`
          : `process group ${stopping.command.pgid}`;
      if (!ctx.json)
        ctx.stderr.write(`runwarden: stopping ${group} (SIGTERM, then SIGKILL after ${graceMs} ms)\n`);
      const result = await stopping.finished;
      if (!result.gone) {
        ctx.stderr.write(
          `runwarden: not all of ${group} stopped after ${result.signals.join(', ')}; the run was not cancelled\n`,
        );
        return EXIT.failure;
      }
      // Our own stop moved the revision; the check above already held for what the person saw.
      expectedRevision = store.getRun(runId).revision;
    }
    if (values.request === true) {
      const run = store.requestCancel(runId, {
        expectedRevision,
        reason: reason ?? 'Cancel requested from the CLI.',
        actor,
      });
      return reply(run, () => `Cancel requested for ${runId}: the runner stops at its next heartbeat.`);
    }
    const unchecked = uncheckedProcesses(store, runId);
    const outcome = store.cancelRun(runId, {
      expectedRevision,
      reason: reason ?? 'Cancelled from the CLI.',
      actor,
    });
    return reply(outcome, () => {
      const ambiguous = outcome.cascade.effectsAmbiguous > 0;
      const hint = ambiguous ? ` Say whether they happened: runwarden show ${shellQuote(runId)}` : '';
      return `Cancelled ${runId}: ${cascadeText(outcome.cascade)}.${hint}${unchecked}`;
    });
  },
});
