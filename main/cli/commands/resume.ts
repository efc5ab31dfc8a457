/** `runwarden resume RUN`: put a parked or paused run back in the queue (or several: see --help). */
import { COMMON_HELP, JSON_HELP, requirePositional, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { writer } from '../open-cli-store';
import { runBulkAction, selectionOf } from '../bulk-action';
import { humanActor } from '../human-actor';
import { checkOptionalText, parseIntegerFlag, RANGES } from '../limits';
import { SELECTION_HELP, SELECTION_OPTIONS } from '../run-selection';

export const resumeCommand = defineCommand({
  name: 'resume',
  summary: 'resume a parked or paused run (or a selection of runs)',
  help: `Usage: runwarden resume RUN [--anyway] [--reason T] [--revision N] [--json]
       runwarden resume (RUN... | --stale | --view V | --project DIR) [--dry-run] [--yes] [--json]

Puts a parked or paused run back in the queue. A run parked because its workflow source
changed needs --anyway; one parked for an ambiguous effect needs every ambiguous effect
resolved first (exit 5 until then: "runwarden show RUN" prints the resolve commands).
A selection resumes each run that allows it, never --anyway.

Options:
  --anyway       resume even though the workflow source changed
  --reason T     why (recorded on the run's events)
  --revision N   only if the run is still at revision N; without it the revision is read first
                 and must not change before the resume
${JSON_HELP}
${COMMON_HELP}

${SELECTION_HELP}`,
  options: {
    ...SELECTION_OPTIONS,
    anyway: { type: 'boolean' },
    reason: { type: 'string' },
    revision: { type: 'string' },
  },
  store: writer({ mustExist: true }),
  async run({ ctx, values, args, open }) {
    const reason = checkOptionalText(values.reason, '--reason', 'reason');
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const selection = selectionOf(values, args);
    if (selection !== null) {
      if (values.anyway === true || revision !== undefined) {
        throw new UsageError('--anyway and --revision act on one run; resume it on its own');
      }
      const options = { reason: reason ?? 'Resumed from the CLI.', again: false };
      return runBulkAction(ctx, open, 'resume', selection, values, options);
    }
    const runId = requirePositional(args, 0, 'RUN');
    const store = open();
    const run = store.resumeRun(runId, {
      expectedRevision: revision ?? store.getRun(runId).revision,
      anyway: values.anyway === true,
      reason: reason ?? 'Resumed from the CLI.',
      actor: humanActor(),
    });
    return reply(run, () => `Resumed ${runId}: queued again.`);
  },
});
