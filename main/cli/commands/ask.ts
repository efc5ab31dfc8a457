/** `runwarden ask`: from inside a run, ask a person and block until answered, expired or cancelled. */
import { isDeclaredChoice } from '../../../shared/answer-rules';
import type { Actor, FieldType, InteractionField } from '../../../shared/domain';
import { waitForInteraction, type AskInput, type AskOutcome } from '../../runner/ask';
import type { EnclosingClaim } from '../../runner/runner-env';
import type { RunStore } from '../../store';
import { runnerActor } from '../../runner/owner-info';
import { COMMON_HELP, printResult, UsageError, type CliContext } from '../command';
import { defineCommand, type CommandValues } from '../define-command';
import { writer } from '../open-cli-store';
import { requireEnclosingRun } from '../enclosing-run';
import { EXIT } from '../exit-codes';
import { sanitizeLine } from '../sanitize';
import { watchStoreFile } from '../store-file-watch';
import { checkText, parseIntegerFlag, RANGES } from '../limits';
import { parseDuration } from '../output';
import { thisProcessAsAsker } from '../../store/process-identity';

const OPTIONS = {
  title: { type: 'string' },
  prompt: { type: 'string' },
  choice: { type: 'string', multiple: true },
  field: { type: 'string', multiple: true },
  option: { type: 'string', multiple: true },
  default: { type: 'string' },
  timeout: { type: 'string' },
  'poll-ms': { type: 'string' },
} as const;

const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean'];

/** The signals that interrupt `ask`: each withdraws its question before it exits 130. */
const INTERRUPTS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const askCommand = defineCommand({
  name: 'ask',
  summary: 'ask a person from inside a run and wait for the answer',
  help: `Usage: runwarden ask --title T [--prompt TEXT] (--choice V)... [--default V] [--timeout 10m]
       runwarden ask --title T (--field NAME[:string|number|boolean|choice=A|B|choices=A|B])...
                     [--option NAME:LABEL=DESCRIPTION]... [--default JSON]

Run inside "runwarden exec" (it reads RUNWARDEN_RUN_ID and the run's claim from the environment).
Creates a question on the run and blocks until a person answers it ("runwarden answer", the app, or
the browser), its deadline passes, or it is cancelled. Prints the answer: the choice, or a JSON
object for fields.

Options:
  --title T        the question (required)
  --prompt TEXT    more detail (markdown, shown as text)
  --choice V       an allowed answer (repeat for each); makes a decision
  --field SPEC     an input field NAME or NAME:TYPE (string, number, boolean; repeat for each),
                   or a choice: NAME:choice=A|B (one), NAME:choices=A|B (any); a last |* also
                   takes the person's own words
  --option NAME:LABEL=DESCRIPTION
                   describe option LABEL of choice field NAME (repeat for each); shown under
                   the option in the app, by "runwarden show" and in the tray
  --default V      the answer used when the deadline passes (a choice, or a JSON object for fields)
  --timeout DUR    deadline from now: 30s, 10m, 2h, 1d (a bare number is seconds)
  --json           print {"ok":true,"value":{"status","response"}} instead of the bare answer
${COMMON_HELP}

Exit status: 0 answered (or the default was applied); 124 expired with no default;
130 cancelled (the question or the run was cancelled, or ask was interrupted: SIGINT, SIGTERM
or SIGHUP withdraws the question first, so nobody answers a question nobody waits for);
6 the run lost its lease; 1 its store file was removed or replaced while waiting (nothing could
answer it any more); 2 not inside a run or bad options.`,
  options: OPTIONS,
  positionals: false,
  store: writer({ mustExist: true, runner: true }),
  async run({ ctx, values, open }) {
    const question = parseQuestion(values, ctx.now());
    const claim = requireEnclosingRun(ctx, 'ask');
    const pollMs = parseIntegerFlag(values['poll-ms'], 'poll-ms', RANGES.pollMs) ?? 250;
    const store = open();
    const actor = runnerActor({ ownerId: `ask:${process.pid}` }, 'cli');
    const interaction = store.requestInteraction(claim, {
      ...question,
      // This process waits for the answer: once it is interrupted or gone, nobody does
      // (docs/LIVENESS.md#questions-and-their-askers).
      asker: thisProcessAsAsker(),
    });
    const asked: Asked = { store, claim, actor, interactionId: interaction.id, title: question.title };
    const wait = await awaitAnswer(asked, pollMs);
    if (wait.storeGone) {
      ctx.stderr.write(
        `runwarden: the store ${sanitizeLine(store.path)} was removed or replaced while "${sanitizeLine(question.title)}" waited for an answer; stop now\n`,
      );
      return EXIT.failure;
    }
    if (wait.interruptedBy !== null) return reportInterrupted(ctx, asked, wait.interruptedBy);
    return reportOutcome(ctx, asked, wait.outcome);
  },
});

type AskOptions = CommandValues<typeof OPTIONS>;

/** The question as the store takes it, from the flags: checked in full before anything is written. */
function parseQuestion(values: AskOptions, now: number): AskInput {
  const title = values.title;
  if (title === undefined || title.trim() === '') throw new UsageError('--title is required');
  checkText(title, '--title', 'title');
  if (values.prompt !== undefined) checkText(values.prompt, '--prompt', 'prompt', true);
  for (const choice of values.choice ?? []) checkText(choice, '--choice', 'title');
  if (values.default !== undefined) checkText(values.default, '--default', 'payload', true);
  const choices = values.choice ?? [];
  const fields = (values.field ?? []).map(parseField);
  describeOptions(fields, values.option ?? []);
  if (choices.length > 0 && fields.length > 0)
    throw new UsageError('use either --choice or --field, not both');
  if (choices.length === 0 && fields.length === 0) {
    throw new UsageError('give the allowed answers with --choice V (repeat it), or --field NAME for input');
  }
  const deadlineAt = parseDeadline(values.timeout, now);
  return {
    kind: choices.length > 0 ? 'decision' : 'input',
    title,
    prompt: values.prompt ?? '',
    choices: choices.length > 0 ? choices : undefined,
    fields: fields.length > 0 ? fields : undefined,
    defaultResponse: parseDefault(values.default, choices),
    hasDefault: values.default !== undefined,
    deadlineAt,
  };
}

function parseDeadline(timeout: string | undefined, now: number): number | null {
  if (timeout === undefined) return null;
  const ms = parseDuration(timeout);
  if (ms === null || ms > RANGES.timeoutMs.max)
    throw new UsageError(
      `--timeout must be a duration like 30s, 10m or 2h, at most 30d, got "${timeout.slice(0, 40)}"`,
    );
  return now + ms;
}

/** --default: one of the choices for a decision, a JSON object for fields. */
function parseDefault(text: string | undefined, choices: readonly string[]): unknown {
  if (text === undefined) return null;
  if (choices.length > 0) {
    if (!isDeclaredChoice(choices, text)) {
      throw new UsageError(`--default must be one of the choices (${choices.join(', ')})`);
    }
    return text;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError('--default must be a JSON object when asking for fields');
  }
}

/** The question once asked: what reporting its outcome needs. */
interface Asked {
  store: RunStore;
  claim: EnclosingClaim;
  actor: Actor;
  interactionId: string;
  title: string;
}

interface Wait {
  outcome: AskOutcome;
  interruptedBy: NodeJS.Signals | null;
  storeGone: boolean;
}

/** Waits for the answer until an interrupt (INTERRUPTS) or the store file going away stops the wait. */
async function awaitAnswer(asked: Asked, pollMs: number): Promise<Wait> {
  const controller = new AbortController();
  let interruptedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    interruptedBy = signal;
    controller.abort();
  };
  for (const signal of INTERRUPTS) process.once(signal, onSignal);
  // An open database file that was deleted (or renamed over) still reads, so polling alone would wait
  // forever on a question no person can see any more.
  let storeGone = false;
  const stopWatching = watchStoreFile(asked.store.path, () => {
    storeGone = true;
    controller.abort();
  });
  try {
    const outcome = await waitForInteraction(asked.store, asked.claim, asked.interactionId, {
      pollMs,
      signal: controller.signal,
      actor: asked.actor,
    });
    return { outcome, interruptedBy, storeGone };
  } finally {
    stopWatching();
    for (const signal of INTERRUPTS) process.off(signal, onSignal);
  }
}

/** Interrupted: the question is withdrawn before exiting, so no person answers one nobody reads any more. */
function reportInterrupted(ctx: CliContext, asked: Asked, interruptedBy: NodeJS.Signals): number {
  const title = asked.title;
  let withdrawn = false;
  try {
    withdrawn = asked.store.withdrawInteraction(asked.interactionId, 'asker_interrupted', asked.actor);
  } catch (error) {
    ctx.stderr.write(
      `runwarden: could not withdraw the question "${sanitizeLine(title)}": ${sanitizeLine(errorMessage(error))}\n`,
    );
  }
  if (ctx.json) {
    printResult(
      ctx,
      { status: 'cancelled', interactionId: asked.interactionId, reason: 'interrupted', withdrawn },
      () => '',
    );
  } else {
    ctx.stderr.write(
      `runwarden: the question "${sanitizeLine(title)}" was not answered: ask was interrupted (${interruptedBy})${withdrawn ? '; it was withdrawn, nobody is waiting for its answer' : ''}\n`,
    );
  }
  return EXIT.cancelled;
}

/** The answer on stdout, or why there is none on stderr; the exit code the help lists. */
function reportOutcome(ctx: CliContext, asked: Asked, outcome: AskOutcome): number {
  const { title, interactionId } = asked;
  switch (outcome.status) {
    case 'answered': {
      const response = outcome.response;
      if (!ctx.json) {
        // The answer is data for $(runwarden ask ...): exact into a pipe, sanitized on a terminal.
        const text = typeof response === 'string' ? response : JSON.stringify(response);
        (ctx.rawStdout.isTTY === true ? ctx.stdout : ctx.rawStdout).write(`${text}\n`);
        return EXIT.ok;
      }
      printResult(
        ctx,
        {
          status: 'answered',
          interactionId,
          response,
          provenance: outcome.interaction.provenance,
        },
        () => (typeof response === 'string' ? response : JSON.stringify(response)),
      );
      return EXIT.ok;
    }
    case 'expired':
      if (ctx.json) printResult(ctx, { status: 'expired', interactionId, response: null }, () => '');
      else ctx.stderr.write(`runwarden: the question "${sanitizeLine(title)}" expired without an answer\n`);
      return EXIT.expired;
    case 'cancelled':
      if (ctx.json) {
        printResult(ctx, { status: 'cancelled', interactionId, reason: outcome.reason }, () => '');
      } else {
        ctx.stderr.write(
          `runwarden: the question "${sanitizeLine(title)}" was not answered: ${sanitizeLine(outcome.reason)}\n`,
        );
      }
      return EXIT.cancelled;
    case 'fenced':
      ctx.stderr.write(`runwarden: run ${asked.claim.runId} lost its lease while waiting; stop now\n`);
      return EXIT.lostLease;
  }
}

function parseField(spec: string): InteractionField {
  const colon = spec.indexOf(':');
  const name = colon === -1 ? spec : spec.slice(0, colon);
  const type = colon === -1 ? 'string' : spec.slice(colon + 1);
  if (name === '' || !/^[A-Za-z_][\w-]*$/.test(name)) {
    throw new UsageError(`--field must be NAME or NAME:TYPE, got "${spec}"`);
  }
  const choice = /^(choices?)=(.*)$/s.exec(type);
  if (choice !== null) return choiceField(name, choice[1] === 'choices', choice[2] ?? '');
  if (!(FIELD_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(
      `--field type must be one of ${FIELD_TYPES.join(', ')}, choice=A|B or choices=A|B, got "${type}"`,
    );
  }
  return { name, type: type as FieldType, required: true };
}

/**
 * `--option NAME:LABEL=DESCRIPTION`: a description for one option of a choice field. LABEL is matched
 * against the field's own labels (the longest that fits wins), so a label may hold `=` or `:`. Every
 * mistake is refused before anything is asked.
 */
function describeOptions(fields: InteractionField[], specs: readonly string[]): void {
  for (const spec of specs) {
    const colon = spec.indexOf(':');
    const name = colon === -1 ? '' : spec.slice(0, colon);
    const field = fields.find((f) => f.name === name);
    if (field === undefined) {
      const choices = fields.filter((f) => f.type === 'choice').map((f) => f.name);
      throw new UsageError(
        `--option must be NAME:LABEL=DESCRIPTION for a choice field${choices.length > 0 ? ` (${choices.join(', ')})` : ' given with --field NAME:choice=A|B'}, got "${sanitizeLine(spec.slice(0, 60))}"`,
      );
    }
    if (field.type !== 'choice' || field.options === undefined)
      throw new UsageError(`--option ${name}: ${name} is not a choice field (give it as ${name}:choice=A|B)`);
    const rest = spec.slice(colon + 1);
    const option = field.options
      .filter((o) => rest.startsWith(`${o.label}=`))
      .sort((a, b) => b.label.length - a.label.length)[0];
    if (option === undefined) {
      throw new UsageError(
        `--option ${name}: no option of ${name} is named before "=" (its options: ${field.options.map((o) => o.label).join(', ')})`,
      );
    }
    if (option.description !== undefined)
      throw new UsageError(`--option ${name}: ${option.label} is described twice`);
    option.description = checkText(
      rest.slice(option.label.length + 1),
      `--option ${name}:${option.label}`,
      'detail',
    );
  }
}

/**
 * `NAME:choice=A|B` (one of them) or `NAME:choices=A|B` (any of them); a last `*` also takes an answer in
 * the person's own words.
 */
function choiceField(name: string, multi: boolean, list: string): InteractionField {
  const labels = list.split('|');
  const allowOther = labels.at(-1) === '*';
  if (allowOther) labels.pop();
  if (
    labels.length === 0 ||
    labels.some((label) => label.trim() === '') ||
    new Set(labels).size !== labels.length
  )
    throw new UsageError(`--field ${name}: give distinct non-empty options, as ${name}:choice=A|B`);
  const field: InteractionField = {
    name,
    type: 'choice',
    required: true,
    options: labels.map((label) => ({ label })),
  };
  if (multi) field.multi = true;
  if (allowOther) field.allowOther = true;
  return field;
}
