/** `runwarden step`: record a step (an attempt) of the enclosing run, around a command or by hand. */
import { ACTIVE_ATTEMPT_STATUSES } from '../../../shared/domain';
import { RunwardenError } from '../../../shared/errors';
import { COMMON_HELP, JSON_HELP, noExtraPositionals, requirePositional, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { runnerWriter } from '../open-runner-cli-store';
import { requireEnclosingRun } from '../enclosing-run';
import { sanitizeLine } from '../sanitize';
import { checkText } from '../limits';

export const stepCommand = defineCommand({
  name: 'step',
  summary: 'inside a run: record a step around a command (or step start / step end)',
  help: `Usage: runwarden step NAME -- CMD [ARG...]
       runwarden step start NAME
       runwarden step end [--failed MESSAGE]

Run inside "runwarden exec". The first form records step NAME as started, runs CMD, and records it
completed when CMD exits 0, failed otherwise; it exits with CMD's exit code. "step start" and
"step end" do the same for a program that does not wrap its work in one command. A run has one
step open at a time; the app and "runwarden show" list every step with its attempt number.
With --json, NAME -- CMD ends with one line {"ok":true,"value":{"attempt":{...},"exitCode":N}}
after CMD's own output; start and end print {"ok":true,"value":ATTEMPT}.

Options:
  --failed MESSAGE   (step end) record the step as failed, with why
${JSON_HELP}
${COMMON_HELP}

Exit status: CMD's exit code; 0 for start/end; 2 outside a run or bad arguments; 6 the run lost
its lease (the runner must stop); 5 a step is already open (start) or none is (end).`,
  options: { failed: { type: 'string' } },
  runsCommand: true,
  store: runnerWriter({ mustExist: true }),
  async run({ ctx, values, args: positionals, commandArgv, open }) {
    const claim = requireEnclosingRun(ctx, 'step');

    if (commandArgv !== null) {
      const name = checkText(requirePositional(positionals, 0, 'NAME'), 'the step name', 'name');
      noExtraPositionals(positionals, 1);
      if (values.failed !== undefined) throw new UsageError('--failed goes with "runwarden step end"');
      if (commandArgv.length === 0) throw new UsageError('missing the command to run after "--"');
      const store = open();
      const attempt = store.startAttempt(claim, name);
      // node:child_process (with net and the stream modules) is loaded only when there is a command to run.
      const { runChild } = await import('../run-child');
      const outcome = await runChild(commandArgv, ctx.env, ctx.cwd);
      const error =
        outcome.spawnError ??
        (outcome.signal !== null ? `killed by ${outcome.signal}` : `exited with code ${outcome.exitCode}`);
      const finished = store.finishAttempt(
        claim,
        attempt.id,
        outcome.exitCode === 0 ? 'completed' : 'failed',
        outcome.exitCode === 0 ? undefined : `${name}: ${error}`,
      );
      if (outcome.spawnError !== null) ctx.stderr.write(`runwarden: ${sanitizeLine(outcome.spawnError)}\n`);
      // --json: the last line of stdout is the finished step and CMD's code (docs/CLI.md#json-output).
      return reply({ attempt: finished, exitCode: outcome.exitCode }, () => '', outcome.exitCode);
    }

    const action = requirePositional(positionals, 0, 'NAME -- CMD, "start NAME" or "end"');
    if (action === 'start') {
      const name = checkText(requirePositional(positionals, 1, 'NAME'), 'the step name', 'name');
      noExtraPositionals(positionals, 2);
      if (values.failed !== undefined) throw new UsageError('--failed goes with "runwarden step end"');
      return reply(open().startAttempt(claim, name));
    }
    if (action === 'end') {
      noExtraPositionals(positionals, 1);
      const message =
        values.failed === undefined ? undefined : checkText(values.failed, '--failed', 'detail');
      const store = open();
      const step = store
        .getRunDetail(claim.runId, { eventsLimit: 1 })
        .attempts.find((attempt) => ACTIVE_ATTEMPT_STATUSES.includes(attempt.status));
      if (step === undefined) {
        throw new RunwardenError('CONFLICT', 'No step is open: start one with "runwarden step start NAME".');
      }
      const attempt = store.finishAttempt(
        claim,
        step.id,
        message === undefined ? 'completed' : 'failed',
        message,
      );
      return reply(attempt);
    }
    throw new UsageError(
      `put the command after "--": runwarden step ${action} -- CMD (or use "step start NAME" / "step end")`,
    );
  },
});
