/** `runwarden resume RUN`: put a parked or paused run back in the queue (or several: see --help). */
import {
  COMMON_HELP,
  COMMON_OPTIONS,
  JSON_HELP,
  JSON_OPTION,
  parseCommand,
  printResult,
  requirePositional,
  UsageError,
  type Command,
} from '../command';
import { openCliStore } from '../open-cli-store';
import { runBulkAction } from '../bulk-action';
import { EXIT } from '../exit-codes';
import { humanActor } from '../human-actor';
import { checkOptionalText, parseIntegerFlag, RANGES } from '../limits';
import { isBulk, SELECTION_HELP, SELECTION_OPTIONS, selectionView } from '../run-selection';

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...JSON_OPTION,
  ...SELECTION_OPTIONS,
  anyway: { type: 'boolean' },
  reason: { type: 'string' },
  revision: { type: 'string' },
} as const;

export const resumeCommand: Command = {
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
  async run(ctx, argv) {
    const parsed = parseCommand(ctx, this, argv, OPTIONS);
    if (parsed === null) return EXIT.ok;
    const { values, positionals } = parsed;
    const reason = checkOptionalText(values.reason, '--reason', 'reason');
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const flags = { ids: positionals, stale: values.stale, view: values.view, project: values.project };
    if (isBulk(flags) || values['dry-run'] === true) {
      if (values.anyway === true || revision !== undefined) {
        throw new UsageError('--anyway and --revision act on one run; resume it on its own');
      }
      const view = selectionView(flags, ctx.cwd);
      const store = openCliStore(ctx, values.store, { mustExist: true });
      return runBulkAction(ctx, store, 'resume', flags, view, {
        dryRun: values['dry-run'] === true,
        yes: values.yes === true,
        reason: reason ?? 'Resumed from the CLI.',
        again: false,
      });
    }
    const runId = requirePositional(positionals, 0, 'RUN');
    const store = openCliStore(ctx, values.store, { mustExist: true });
    const run = store.resumeRun(runId, {
      expectedRevision: revision ?? store.getRun(runId).revision,
      anyway: values.anyway === true,
      reason: reason ?? 'Resumed from the CLI.',
      actor: humanActor(),
    });
    printResult(ctx, run, () => `Resumed ${runId}: queued again.`);
    return EXIT.ok;
  },
};
