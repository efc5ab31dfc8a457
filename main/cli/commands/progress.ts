/** `runwarden progress TEXT`: say what the enclosing run is doing now (shown in the list and the app). */
import { COMMON_HELP, JSON_HELP } from '../command';
import { defineCommand, reply } from '../define-command';
import { runnerWriter } from '../open-runner-cli-store';
import { requireEnclosingRun } from '../enclosing-run';
import { checkText } from '../limits';

export const progressCommand = defineCommand({
  name: 'progress',
  summary: 'inside a run: say what it is doing now',
  help: `Usage: runwarden progress TEXT

Run inside "runwarden exec". Records TEXT as the run's progress ("copied 40 of 120 files"), shown
by "runwarden ls", "runwarden show" and the app. Each call replaces the previous text.

${JSON_HELP}
${COMMON_HELP}

Exit status: 0 recorded; 2 outside a run or bad arguments; 6 the run lost its lease.`,
  positionals: ['TEXT'],
  store: runnerWriter({ mustExist: true }),
  run({ ctx, args: [textArg], open }) {
    const text = checkText(textArg, 'the progress text', 'progress');
    const claim = requireEnclosingRun(ctx, 'progress');
    return reply(open().setProgress(claim, text));
  },
});
