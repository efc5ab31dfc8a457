/** `runwarden park --source-changed DETAIL`: the enclosing run stops and waits for a person. */
import { COMMON_HELP, JSON_HELP, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { writer } from '../open-cli-store';
import { requireEnclosingRun } from '../enclosing-run';
import { checkText } from '../limits';

export const parkCommand = defineCommand({
  name: 'park',
  summary: 'inside a run: park it for a person (--source-changed DETAIL)',
  help: `Usage: runwarden park --source-changed DETAIL

Run inside "runwarden exec". Parks the run because the workflow's source changed since it started
(DETAIL says what changed): it stops, keeps its history, and shows under Needs you until a person
resumes it ("runwarden resume RUN --anyway") or cancels it. The runner gives the run up: "exec"
stops the command at its next heartbeat and exits 75. End your script after parking.

Options:
  --source-changed DETAIL   what changed (required)
${JSON_HELP}
${COMMON_HELP}

Exit status: 0 parked; 2 outside a run or bad arguments; 6 the run lost its lease.`,
  options: { 'source-changed': { type: 'string' } },
  positionals: [],
  store: writer({ mustExist: true, runner: true }),
  run({ ctx, values, open }) {
    const detail = values['source-changed'];
    if (detail === undefined) throw new UsageError('say why: runwarden park --source-changed DETAIL');
    checkText(detail, '--source-changed', 'detail');
    const claim = requireEnclosingRun(ctx, 'park');
    const run = open().park(claim, 'sourceChanged', detail);
    return reply(
      run,
      () =>
        `Parked ${run.id}: the workflow source changed. Resume it with: runwarden resume ${run.id} --anyway`,
    );
  },
});
