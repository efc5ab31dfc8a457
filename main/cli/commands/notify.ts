/** `runwarden notify`: add a notification (to the enclosing run when inside `runwarden exec`). */
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../../../shared/domain';
import { enclosingClaim } from '../../runner/runner-env';
import { runnerActor } from '../../runner/owner-info';
import { COMMON_HELP, JSON_HELP, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { runnerWriter } from '../open-runner-cli-store';
import { humanActor } from '../human-actor';
import { checkText } from '../limits';

export const notifyCommand = defineCommand({
  name: 'notify',
  summary: 'add a notification (to the current run inside exec)',
  help: `Usage: runwarden notify [--level info|attention|success|failure] TITLE [BODY]

Adds a notification. Inside "runwarden exec" it belongs to the enclosing run; elsewhere to
--run RUN, or to no run.

Options:
  --level L   info (default), attention, success or failure
  --run RUN   the run it is about (outside exec)
${JSON_HELP}
${COMMON_HELP}`,
  options: { level: { type: 'string' }, run: { type: 'string' } },
  positionals: ['TITLE', 'BODY?'],
  store: runnerWriter({ mustExist: false }),
  run({ ctx, values, args: [titleArg, bodyArg], open }) {
    const title = checkText(titleArg, 'TITLE', 'title');
    const body = bodyArg === undefined ? undefined : checkText(bodyArg, 'BODY', 'body', true);
    const level = (values.level ?? 'info') as NotificationLevel;
    if (!NOTIFICATION_LEVELS.includes(level)) {
      throw new UsageError(`--level must be one of ${NOTIFICATION_LEVELS.join(', ')}`);
    }
    const claim = enclosingClaim(ctx.env);
    const runId = claim?.runId ?? values.run ?? null;
    const actor = claim !== null ? runnerActor({ ownerId: `notify:${process.pid}` }, 'cli') : humanActor();
    return reply(open().notify(runId, { level, title, body }, actor));
  },
});
