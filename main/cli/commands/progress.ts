/** `runwarden progress TEXT`: say what the enclosing run is doing now (shown in the list and the app). */
import {
  COMMON_HELP,
  COMMON_OPTIONS,
  JSON_HELP,
  JSON_OPTION,
  noExtraPositionals,
  parseCommand,
  printResult,
  requirePositional,
  type Command,
} from '../command';
import { openRunnerCliStore } from '../open-runner-cli-store';
import { requireEnclosingRun } from '../enclosing-run';
import { EXIT } from '../exit-codes';
import { checkText } from '../limits';

const OPTIONS = { ...COMMON_OPTIONS, ...JSON_OPTION } as const;

export const progressCommand: Command = {
  name: 'progress',
  summary: 'inside a run: say what it is doing now',
  help: `Usage: runwarden progress TEXT

Run inside "runwarden exec". Records TEXT as the run's progress ("copied 40 of 120 files"), shown
by "runwarden ls", "runwarden show" and the app. Each call replaces the previous text.

${JSON_HELP}
${COMMON_HELP}

Exit status: 0 recorded; 2 outside a run or bad arguments; 6 the run lost its lease.`,
  async run(ctx, argv) {
    const parsed = parseCommand(ctx, this, argv, OPTIONS);
    if (parsed === null) return EXIT.ok;
    const text = checkText(requirePositional(parsed.positionals, 0, 'TEXT'), 'the progress text', 'progress');
    noExtraPositionals(parsed.positionals, 1);
    const claim = requireEnclosingRun(ctx, 'progress');
    const store = openRunnerCliStore(ctx, parsed.values.store, { mustExist: true });
    const run = store.setProgress(claim, text);
    printResult(ctx, run, () => '');
    return EXIT.ok;
  },
};
