/** `runwarden pause RUN`: pause a run no runner holds, or (--request) ask a live runner to pause. */
import { defineCommand, reply } from '../define-command';
import { writer } from '../open-cli-store';
import { checkOptionalText, parseIntegerFlag, RANGES } from '../limits';
import { humanActor } from '../human-actor';
import { COMMON_HELP, JSON_HELP } from '../command';

export const pauseCommand = defineCommand({
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
  options: { reason: { type: 'string' }, request: { type: 'boolean' }, revision: { type: 'string' } },
  positionals: ['RUN'],
  store: writer({ mustExist: true }),
  run({ values, args: [runId], open }) {
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const reason = checkOptionalText(values.reason, '--reason', 'reason');
    const store = open();
    const command = {
      expectedRevision: revision ?? store.getRun(runId).revision,
      reason: reason ?? 'Paused from the CLI.',
      actor: humanActor(),
    };
    if (values.request === true) {
      const run = store.requestPause(runId, command);
      return reply(run, () => `Pause requested for ${runId}: the runner pauses at its next heartbeat.`);
    }
    const run = store.pauseRun(runId, command);
    return reply(run, () => `Paused ${runId}. Resume it with: runwarden resume ${runId}`);
  },
});
