/** `runwarden resolve EFFECT`: a person says whether a side effect with an unknown outcome happened. */
import { COMMON_HELP, JSON_HELP, UsageError } from '../command';
import { defineCommand, reply } from '../define-command';
import { writer } from '../open-cli-store';
import { sanitizeLine } from '../sanitize';
import { callHandler } from '../handler-call';
import { checkText, parseIntegerFlag, RANGES } from '../limits';
import { shellQuote } from '../../platform/shell-quote';

export const resolveCommand = defineCommand({
  name: 'resolve',
  summary: 'say whether a side effect with an unknown outcome happened',
  help: `Usage: runwarden resolve EFFECT (--happened | --not-happened) --note TEXT [--revision N] [--json]

An effect is ambiguous when nobody knows whether it happened: its runner died while applying it,
a cancel caught it in flight, or its command said so. Nothing repeats it until a person checks and
says: --happened (it is recorded applied; a retry skips it) or --not-happened (recorded rejected;
a retry may perform it again). The note says how you know, for whoever looks next.
"runwarden show RUN" lists a run's effects with their ids and prints these commands.

Options:
  --happened       the effect took place
  --not-happened   it did not
  --note TEXT      how you know (required, up to 2000 characters)
  --revision N     only if the effect's run is still at revision N (as you last saw it); without it
                   the run's current revision is read and must not change before the write
${JSON_HELP}
${COMMON_HELP}

Exit status: 0 resolved; 2 bad arguments; 3 a live runner holds the run; 4 unknown effect;
5 the run changed, or the effect is not ambiguous.`,
  options: {
    happened: { type: 'boolean' },
    'not-happened': { type: 'boolean' },
    note: { type: 'string' },
    revision: { type: 'string' },
  },
  positionals: ['EFFECT'],
  store: writer({ mustExist: true }),
  run({ values, args: [effectArg], open }) {
    const effectId = parseIntegerFlag(effectArg, 'EFFECT', RANGES.effectId) ?? 0;
    if ((values.happened === true) === (values['not-happened'] === true)) {
      throw new UsageError('say what happened: --happened or --not-happened (one of them)');
    }
    if (values.note === undefined) throw new UsageError('--note is required: say how you know');
    const note = checkText(values.note, '--note', 'note');
    const revision = parseIntegerFlag(values.revision, 'revision', RANGES.revision);
    const store = open();
    const before = store.getEffect(effectId);
    const effect = callHandler(store, 'effects:resolve', {
      effectId,
      resolution: values.happened === true ? 'applied' : 'not_applied',
      note,
      expectedRevision: revision ?? store.getRun(before.runId).revision,
    });
    return reply(effect, () => {
      const said = effect.resolution === 'applied' ? 'it happened' : 'it did not happen';
      return `Resolved effect ${effect.id} (${sanitizeLine(effect.summary)}): ${said}. See the run: runwarden show ${shellQuote(effect.runId)}`;
    });
  },
});
