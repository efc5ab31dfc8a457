/** `runwarden notify`: add a notification (to the enclosing run when inside `runwarden exec`). */
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../../../shared/domain';
import { enclosingClaim } from '../../runner/runner-env';
import { runnerActor } from '../../runner/owner-info';
import {
  COMMON_HELP,
  COMMON_OPTIONS,
  JSON_HELP,
  JSON_OPTION,
  noExtraPositionals,
  parseCommand,
  printResult,
  requirePositional,
  UsageError,
  type Command,
} from '../command';
import { openRunnerCliStore } from '../open-runner-cli-store';
import { EXIT } from '../exit-codes';
import { humanActor } from '../human-actor';
import { checkText } from '../limits';

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...JSON_OPTION,
  level: { type: 'string' },
  run: { type: 'string' },
} as const;

export const notifyCommand: Command = {
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
  async run(ctx, argv) {
    const parsed = parseCommand(ctx, this, argv, OPTIONS);
    if (parsed === null) return EXIT.ok;
    const { values, positionals } = parsed;
    const title = checkText(requirePositional(positionals, 0, 'TITLE'), 'TITLE', 'title');
    const body = positionals[1] === undefined ? undefined : checkText(positionals[1], 'BODY', 'body', true);
    noExtraPositionals(positionals, 2);
    const level = (values.level ?? 'info') as NotificationLevel;
    if (!NOTIFICATION_LEVELS.includes(level)) {
      throw new UsageError(`--level must be one of ${NOTIFICATION_LEVELS.join(', ')}`);
    }
    const claim = enclosingClaim(ctx.env);
    const runId = claim?.runId ?? values.run ?? null;
    const actor = claim !== null ? runnerActor({ ownerId: `notify:${process.pid}` }, 'cli') : humanActor();
    const store = openRunnerCliStore(ctx, values.store, { mustExist: false });
    const notification = store.notify(runId, { level, title, body }, actor);
    printResult(ctx, notification, () => '');
    return EXIT.ok;
  },
};
