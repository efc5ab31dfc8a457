/** `runwarden answer INTERACTION VALUE | --json PAYLOAD`: answer a run's question. */
import { randomUUID } from 'node:crypto';
import { typedValue } from '../../../shared/answer-value';
import type { Interaction, InteractionField } from '../../../shared/domain';
import { COMMON_HELP, noExtraPositionals, printResult, requirePositional, UsageError } from '../command';
import { defineCommand } from '../define-command';
import { EXIT } from '../exit-codes';
import { writer } from '../open-cli-store';
import { checkOptionalText, checkText, parseIntegerFlag, RANGES } from '../limits';
import { humanActor } from '../human-actor';
import { sanitizeLine } from '../sanitize';
import { processAncestry } from '../../store/process-identity';

export const answerCommand = defineCommand({
  name: 'answer',
  summary: 'answer a question a run is waiting on',
  help: `Usage: runwarden answer INTERACTION VALUE...
       runwarden answer INTERACTION --json PAYLOAD

Answers a pending question. For a decision VALUE must be one of its choices; for an input
question give the fields as a JSON object with --json (a question with a single field also
takes VALUE, converted to the field's type). A choice field takes an option's label, or your
own words when it allows them; a multi-select takes one VALUE per option picked, or a JSON list:
  runwarden answer ID Tests Docs
  runwarden answer ID --json '["Tests","Docs"]'
A JSON list for a question of several fields gives their answers in order, one each
(a list for a multi-select): --json '["Vitest", ["Tests","Docs"]]'.
"runwarden show RUN" lists a run's questions and their fields.

Options:
  --json PAYLOAD   the answer as JSON (an object of the fields, a list in field order,
                   or a JSON string for a choice)
  --key K          idempotency key: answering twice with the same key is adopted, not doubled
  --revision N     only if the question is still at revision N; else exit 5
  --json-result    print the result as JSON ({"ok":true,"value":{outcome,interaction}})
${COMMON_HELP}

Only a person outside the run answers: from inside the run that asked (RUNWARDEN_RUN_ID is the
run, or the caller descends from its runner, command or asking process — on Linux the runner keeps
every process of its run below it, double-forked ones too) the answer is refused. When that cannot
be checked here, the answer is accepted with a note, and its record says so.

Exit status: 0 accepted (or adopted); 2 the answer does not fit the question;
4 unknown question; 5 no longer pending, changed, its run is paused or finished, nobody is
waiting for it any more (its asking process was interrupted or is gone: the question was withdrawn),
or nothing would act on it (the run's runner is gone: orphaned or stale);
77 refused: the caller is inside the run that asked.`,
  options: {
    json: { type: 'string' },
    'json-result': { type: 'boolean' },
    key: { type: 'string' },
    revision: { type: 'string' },
  },
  store: writer({ mustExist: true }),
  run({ ctx, values, args: positionals, open }) {
    if (values['json-result'] === true) ctx.json = true;
    const interactionId = requirePositional(positionals, 0, 'INTERACTION');
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const key = checkOptionalText(values.key, '--key', 'key');
    if (values.json !== undefined) checkText(values.json, '--json', 'payload');
    else checkText(positionals[1] ?? '', 'VALUE', 'payload', true);
    const store = open();
    const interaction = store.getInteraction(interactionId);
    let payload: unknown;
    if (values.json !== undefined) {
      noExtraPositionals(positionals, 1);
      try {
        payload = JSON.parse(values.json);
      } catch {
        throw new UsageError('--json must be valid JSON');
      }
      payload = payloadFromJson(interaction, payload);
    } else {
      requirePositional(positionals, 1, 'VALUE (or --json PAYLOAD)');
      payload = payloadFromValues(interaction, positionals.slice(1));
    }
    const result = store.answerInteraction(interactionId, {
      interactionRevision: revision ?? interaction.revision,
      idempotencyKey: key ?? randomUUID(),
      payload,
      actor: humanActor(),
      // Only a person outside the run answers (docs/LIVENESS.md#only-a-person-outside-the-run-answers):
      // the store compares these with the run's recorded processes.
      caller: {
        runId: ctx.env.RUNWARDEN_RUN_ID?.trim() || null,
        ancestry: processAncestry(process.pid),
      },
    });
    printResult(ctx, result, () =>
      result.outcome === 'adopted'
        ? `Already answered with this key: ${interactionId}.`
        : `Answered ${interactionId}: ${sanitizeLine(JSON.stringify(payload))}`,
    );
    if (!ctx.json && result.callerUnchecked !== undefined) {
      // Recorded with the answer too (docs/LIVENESS.md#what-cannot-be-told).
      ctx.stderr.write(
        `runwarden: note: could not check that this answer came from outside the run: ${sanitizeLine(result.callerUnchecked)}.\n`,
      );
    }
    return EXIT.ok;
  },
});

/** The fields of an input question, or a usage error naming them when they need --json. */
function soleField(interaction: Interaction): InteractionField {
  const fields = interaction.fields ?? [];
  const field = fields[0];
  if (fields.length !== 1 || field === undefined) {
    throw new UsageError(
      `this question asks for ${fields.map((f) => `${f.name}:${fieldTypeText(f)}`).join(', ')}: give them with --json '{...}' or a list in that order`,
    );
  }
  return field;
}

function fieldTypeText(field: InteractionField): string {
  return field.type === 'choice' && field.multi === true ? 'choices' : field.type;
}

/**
 * Bare VALUEs: the choice itself, or the single field's value read from its type as the window's form
 * reads it (a number is a plain decimal, never 0x10 or Infinity); one VALUE per option for a multi-select.
 */
function payloadFromValues(interaction: Interaction, values: string[]): unknown {
  if (interaction.kind === 'decision') {
    noExtraPositionals(values, 1);
    return values[0];
  }
  const field = soleField(interaction);
  if (field.type === 'choice' && field.multi === true) return { [field.name]: values };
  noExtraPositionals(values, 1);
  const typed = typedValue(field.type, values[0] ?? '', field.name);
  if (!typed.ok) throw new UsageError(typed.message);
  return { [field.name]: typed.value };
}

/**
 * A JSON list for an input question: its fields' answers in order, one each; for a question whose one
 * field is a multi-select, a flat list of labels is that field's list. Anything else goes as given (the
 * store checks it against the question).
 */
function payloadFromJson(interaction: Interaction, payload: unknown): unknown {
  const fields = interaction.fields ?? [];
  if (interaction.kind !== 'input' || !Array.isArray(payload)) return payload;
  const only = fields.length === 1 ? fields[0] : undefined;
  if (only?.type === 'choice' && only.multi === true && payload.every((v) => typeof v === 'string'))
    return { [only.name]: payload };
  if (payload.length !== fields.length) {
    throw new UsageError(
      `--json gives ${payload.length} answers; this question has ${fields.length} fields (${fields.map((f) => f.name).join(', ')}): give one each, in that order`,
    );
  }
  return Object.fromEntries(fields.map((field, i) => [field.name, payload[i]]));
}
