/** `runwarden cancel RUN`: cancel a run no live runner holds, or (--request) ask a live runner to stop. */
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
import { cascadeText } from '../../../shared/cascade-text';
import { EXIT } from '../exit-codes';
import { humanActor } from '../human-actor';

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...JSON_OPTION,
  reason: { type: 'string' },
  request: { type: 'boolean' },
  revision: { type: 'string' },
} as const;

export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel a stale or idle run (--request: ask a live runner to stop)',
  help: `Usage: runwarden cancel RUN [--reason T] [--revision N] [--json]
       runwarden cancel --request RUN [--reason T]

Cancels a run that no live runner holds (stale, queued, parked, waiting without a runner):
open attempts are cancelled, pending effects cancelled, effects in flight become ambiguous,
open questions are cancelled. A run whose runner is alive is never force-cancelled: it is
refused (exit 3); use --request to ask the runner to stop at its next heartbeat.

Options:
  --reason T     why (recorded on the run's events)
  --request      cooperative cancel of a live run: the runner stops and ends the run cancelled
  --revision N   only if the run is still at revision N (as you last saw it); else exit 5
${JSON_HELP}
${COMMON_HELP}

Exit status: 0 cancelled (or requested); 3 refused, a live runner holds the run; 4 unknown run;
5 the run changed (revision) or is already finished.`,
  async run(ctx, argv) {
    const parsed = parseRunCommand(ctx, this, argv, OPTIONS);
    if (parsed === null) return EXIT.ok;
    const { values, runId } = parsed;
    const revision = parseIntegerFlag(values.revision, 'revision', 0);
    const store = openCliStore(ctx, values.store);
    const actor = humanActor();
    if (values.request === true) {
      const expectedRevision = revision ?? store.getRun(runId).revision;
      const run = store.requestCancel(runId, {
        expectedRevision,
        reason: values.reason ?? 'Cancel requested from the CLI.',
        actor,
      });
      printResult(ctx, run, () => `Cancel requested for ${runId}: the runner stops at its next heartbeat.`);
      return EXIT.ok;
    }
    const outcome = store.cancelRun(runId, {
      expectedRevision: revision,
      reason: values.reason ?? 'Cancelled from the CLI.',
      actor,
    });
    printResult(ctx, outcome, () => {
      const ambiguous = outcome.cascade.effectsAmbiguous > 0;
      const hint = ambiguous ? ` Say whether they happened: runwarden show ${runId}` : '';
      return `Cancelled ${runId}: ${cascadeText(outcome.cascade)}.${hint}`;
    });
    return EXIT.ok;
  },
};
