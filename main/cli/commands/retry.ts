/** `runwarden retry RUN`: start a new run (lineage retry) from a finished one (or several: see --help). */
import { RunwardenError } from '../../../shared/errors';
import { COMMON_HELP, JSON_HELP, requirePositional, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { writer } from '../open-cli-store';
import { runBulkAction, selectionOf } from '../bulk-action';
import { humanActor } from '../human-actor';
import { parseIntegerFlag, RANGES } from '../limits';
import { openRetryOf } from '../../services/open-retry';
import { SELECTION_HELP, SELECTION_OPTIONS } from '../run-selection';

export const retryCommand = defineCommand({
  name: 'retry',
  summary: 'retry a finished run as a new run (or a selection of runs)',
  help: `Usage: runwarden retry RUN [--revision N] [--again] [--dry-run] [--json]
       runwarden retry (RUN... | --stale | --view V | --project DIR) [--dry-run] [--yes] [--again] [--json]

Creates a new queued run with the same project, workflow, title, input and command as a
finished (completed, failed, timed out or cancelled) run, linked to it as a retry.
A run with a command is picked up by "runwarden worker", which runs it with the argv, folder and
environment exec recorded; secret-named variables (TOKEN, SECRET, PASSWORD, KEY, CREDENTIAL, AUTH,
COOKIE, SESSION), whose values were never stored, come from the worker's environment.
--dry-run shows that command, its folder, the recorded variables that differ from this shell and
the secret names taken from the worker, and changes nothing. A run whose earlier retry has not
finished yet is refused (exit 5): two copies would run at once; --again retries it anyway.

Options:
  --revision N   only if the run is still at revision N; without it the revision is read first
                 and must not change before the retry
  --again        retry even though an earlier retry of it is still queued or running
${JSON_HELP}
${COMMON_HELP}

${SELECTION_HELP}`,
  options: { ...SELECTION_OPTIONS, revision: { type: 'string' }, again: { type: 'boolean' } },
  store: writer({ mustExist: true }),
  async run({ ctx, values, args, open }) {
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const selection = selectionOf(values, args);
    if (selection !== null) {
      if (revision !== undefined) throw new UsageError('--revision acts on one run; retry it on its own');
      const options = { reason: 'Retried from the CLI.', again: values.again === true };
      return runBulkAction(ctx, open, 'retry', selection, values, options);
    }
    const runId = requirePositional(args, 0, 'RUN');
    const store = open();
    const expectedRevision = revision ?? store.getRun(runId).revision;
    const earlier = values.again === true ? null : openRetryOf(store, runId);
    if (earlier !== null) {
      throw new RunwardenError(
        'CONFLICT',
        `Run ${runId} was already retried as ${earlier.id}, which is ${earlier.status}; add --again to retry it once more.`,
      );
    }
    const run = store.retryRun(runId, {
      expectedRevision,
      again: values.again === true,
      actor: humanActor(),
    });
    return reply(run, () => `Retrying ${runId} as ${run.id} (queued).`);
  },
});
