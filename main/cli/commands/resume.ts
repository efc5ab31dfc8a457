/** `runwarden resume RUN`: put a parked or paused run back in the queue. */
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

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...JSON_OPTION,
  anyway: { type: 'boolean' },
  reason: { type: 'string' },
  revision: { type: 'string' },
} as const;

export const resumeCommand: Command = {
  name: 'resume',
  summary: 'resume a parked or paused run',
  help: `Usage: runwarden resume RUN [--anyway] [--reason T] [--revision N] [--json]

Puts a parked or paused run back in the queue. A run parked because its workflow source
changed needs --anyway; one parked for an ambiguous effect needs every ambiguous effect
resolved first (exit 5 until then).

Options:
  --anyway       resume even though the workflow source changed
  --reason T     why (recorded on the run's events)
  --revision N   only if the run is still at revision N; else exit 5
${JSON_HELP}
${COMMON_HELP}`,
  async run(ctx, argv) {
    const parsed = parseRunCommand(ctx, this, argv, OPTIONS);
    if (parsed === null) return EXIT.ok;
    const { values, runId } = parsed;
    const store = openCliStore(ctx, values.store);
    const expectedRevision = parseIntegerFlag(values.revision, 'revision', 0) ?? store.getRun(runId).revision;
    const run = store.resumeRun(runId, {
      expectedRevision,
      anyway: values.anyway === true,
      reason: values.reason ?? 'Resumed from the CLI.',
      actor: humanActor(),
    });
    printResult(ctx, run, () => `Resumed ${runId}: queued again.`);
    return EXIT.ok;
  },
};
