/** `runwarden pause RUN`: pause a run no runner holds, or (--request) ask a live runner to pause. */
import {
  COMMON_HELP,
  COMMON_OPTIONS,
  JSON_HELP,
  JSON_OPTION,
  parseRunCommand,
  printResult,
  type Command,
} from '../command';
import { openCliStore } from '../open-cli-store';
import { EXIT } from '../exit-codes';
import { checkOptionalText, parseIntegerFlag, RANGES } from '../limits';
import { humanActor } from '../human-actor';

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...JSON_OPTION,
  reason: { type: 'string' },
  request: { type: 'boolean' },
  revision: { type: 'string' },
} as const;

export const pauseCommand: Command = {
  name: 'pause',
  summary: 'pause a queued or parked run (--request: ask a live runner to pause)',
  help: `Usage: runwarden pause RUN [--reason T] [--revision N] [--json]
       runwarden pause --request RUN [--reason T]

Pauses a queued or parked run so no runner picks it up until "runwarden resume". A run with a
live runner is refused (exit 3); --request asks the runner to pause at its next heartbeat
("runwarden exec" then stops its command and parks the run, paused).

Options:
  --reason T     why (recorded on the run's events)
  --request      cooperative pause of a live run
  --revision N   only if the run is still at revision N; else exit 5 (without it the revision
                 is read first and must not change before the pause)
${JSON_HELP}
${COMMON_HELP}`,
  async run(ctx, argv) {
    const parsed = parseRunCommand(ctx, this, argv, OPTIONS);
    if (parsed === null) return EXIT.ok;
    const { values, runId } = parsed;
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const reason = checkOptionalText(values.reason, '--reason', 'reason');
    const store = openCliStore(ctx, values.store, { mustExist: true });
    const command = {
      expectedRevision: revision ?? store.getRun(runId).revision,
      reason: reason ?? 'Paused from the CLI.',
      actor: humanActor(),
    };
    if (values.request === true) {
      const run = store.requestPause(runId, command);
      printResult(ctx, run, () => `Pause requested for ${runId}: the runner pauses at its next heartbeat.`);
    } else {
      const run = store.pauseRun(runId, command);
      printResult(ctx, run, () => `Paused ${runId}. Resume it with: runwarden resume ${runId}`);
    }
    return EXIT.ok;
  },
};
