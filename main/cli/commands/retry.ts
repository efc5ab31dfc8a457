/** `runwarden retry RUN`: start a new run (lineage retry) from a finished one. */
import {
  COMMON_HELP,
  COMMON_OPTIONS,
  JSON_HELP,
  JSON_OPTION,
  openCliStore,
  parseIntegerFlag,
  parseRunCommand,
  printResult,
  type Command,
} from '../command';
import { EXIT } from '../exit-codes';
import { humanActor } from '../human-actor';

const OPTIONS = { ...COMMON_OPTIONS, ...JSON_OPTION, revision: { type: 'string' } } as const;

export const retryCommand: Command = {
  name: 'retry',
  summary: 'retry a finished run as a new run',
  help: `Usage: runwarden retry RUN [--revision N] [--json]

Creates a new queued run with the same project, workflow, title, input and command as a
finished (completed, failed, timed out or cancelled) run, linked to it as a retry.
A run with a command is picked up by "runwarden worker".

Options:
  --revision N   only if the run is still at revision N; else exit 5
${JSON_HELP}
${COMMON_HELP}`,
  async run(ctx, argv) {
    const parsed = parseRunCommand(ctx, this, argv, OPTIONS);
    if (parsed === null) return EXIT.ok;
    const { values, runId } = parsed;
    const store = openCliStore(ctx, values.store);
    const run = store.retryRun(runId, {
      expectedRevision: parseIntegerFlag(values.revision, 'revision', 0),
      actor: humanActor(),
    });
    printResult(ctx, run, () => `Retrying ${runId} as ${run.id} (queued).`);
    return EXIT.ok;
  },
};
