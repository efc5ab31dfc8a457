/** `runwarden show RUN`: one run in full — status, lease, attempts, interactions, effects, events. */
import { answerInTerms } from '../../../shared/answer-text';
import type { Interaction } from '../../../shared/domain';
import type { RunDetail } from '../../store';
import { COMMON_HELP, JSON_HELP } from '../command';
import { defineCommand, reply } from '../define-command';
import { reader } from '../open-cli-store';
import { parseIntegerFlag, RANGES, rangeText } from '../limits';
import { nextCommands } from '../next-commands';
import { shellCommand } from '../../platform/shell-quote';
import { formatTable, isoTime, relativeTime, statusStyle, type Paint } from '../output';
import { sanitizeLine, sanitizeText } from '../sanitize';

export const showCommand = defineCommand({
  name: 'show',
  summary: 'show one run: lease, attempts, questions, effects, events',
  help: `Usage: runwarden show RUN [--events N] [--json]

Shows a run's status and why, its lease, its attempts (steps), interactions (questions),
side effects and its latest events, then the exact command for each thing you can do next
(answer a question, say whether an effect happened, resume, cancel), quoted so it is safe to paste.

Options:
  --events N   how many of the latest events to show (${rangeText(RANGES.events)}, default 20)
${JSON_HELP}
${COMMON_HELP}`,
  options: { events: { type: 'string' } },
  positionals: ['RUN'],
  store: reader,
  run({ ctx, values, args: [runId], open }) {
    const eventsLimit = parseIntegerFlag(values.events, 'events', RANGES.events) ?? 20;
    const detail = open().getRunDetail(runId, { eventsLimit });
    return reply(detail, () => renderDetail(detail, ctx.now(), ctx.paint));
  },
});

function isOpen(interaction: Interaction): boolean {
  return interaction.status === 'pending' || interaction.status === 'presenting';
}

/** The run's fields, then a section per table, then what to do next; each a function below. */
function renderDetail(detail: RunDetail, now: number, paint: Paint): string {
  const out = [
    ...runFields(detail, now, paint),
    ...attemptsSection(detail, now, paint),
    ...interactionsSection(detail, now, paint),
    ...effectsSection(detail, paint),
    ...eventsSection(detail, now, paint),
    ...nextSection(detail, paint),
  ];
  return `${out.join('\n')}\n`;
}

/** The title line and one labelled line per field of the run and its lease. */
function runFields(detail: RunDetail, now: number, paint: Paint): string[] {
  const { run, queue, lease } = detail.snapshot;
  const display = detail.display;
  const out: string[] = [];
  const line = (label: string, value: string): void => {
    out.push(`${paint('bold', label.padEnd(11))}${sanitizeLine(value)}`);
  };
  out.push(
    `${paint('bold', sanitizeLine(run.title))}  ${paint(statusStyle(display.status), display.status)}`,
  );
  line('run', `${run.id} (revision ${run.revision})`);
  line('project', detail.projectPath);
  line('workflow', run.workflow);
  line('why', display.reason);
  line('actions', display.actions.join(', ') || '-');
  line(
    'state',
    `${run.status}${run.paused ? ' (paused)' : ''}, queue ${queue.status}${queue.errorCode ? ` (${queue.errorCode})` : ''}`,
  );
  if (run.statusDetail) line('detail', run.statusDetail);
  if (run.currentStep) line('step', run.currentStep);
  if (run.error) line('error', run.error);
  if (run.command) line('command', `${shellCommand(run.command.argv)}  (in ${run.command.cwd})`);
  if (run.cancelRequested || run.pauseRequested) {
    line(
      'requested',
      [run.cancelRequested ? 'cancel' : '', run.pauseRequested ? 'pause' : ''].filter(Boolean).join(', '),
    );
  }
  if (run.parentRunId) line('parent', `${run.parentRunId} (${run.lineage ?? 'child'})`);
  if (detail.retries.length > 0) {
    line('retried as', detail.retries.map((retry) => `${retry.id} (${retry.status})`).join(', '));
  }
  if (detail.enclosingRunId !== null) line('inside', detail.enclosingRunId);
  for (const child of detail.children) line('child', `${child.id} (${child.status}) ${child.title}`);
  line('created', `${isoTime(run.createdAt)} (${relativeTime(run.createdAt, now)})`);
  line('updated', `${isoTime(run.updatedAt)} (${relativeTime(run.updatedAt, now)})`);
  if (run.finishedAt !== null)
    line('finished', `${isoTime(run.finishedAt)} (${relativeTime(run.finishedAt, now)})`);
  line('lease', leaseText(lease, now));
  return out;
}

function leaseText(lease: RunDetail['snapshot']['lease'], now: number): string {
  if (lease === null) return 'none';
  if (lease.ownerType === null) return `generation ${lease.generation}, no owner`;
  const live = lease.expiresAt !== null && lease.expiresAt > now;
  return (
    `generation ${lease.generation}, ${lease.ownerType} ${lease.ownerId ?? '?'} (pid ${lease.ownerPid ?? '?'} on ${lease.ownerHostname ?? '?'}), ` +
    `heartbeat ${relativeTime(lease.heartbeatAt, now)}, ${live ? 'expires' : 'expired'} ${relativeTime(lease.expiresAt, now)}`
  );
}

/** A blank line, a bold heading and the table: how each section after the fields begins. */
function section(paint: Paint, heading: string, table: string): string[] {
  return ['', paint('bold', heading), table.trimEnd()];
}

function attemptsSection(detail: RunDetail, now: number, paint: Paint): string[] {
  if (detail.attempts.length === 0) return [];
  return section(
    paint,
    'Attempts',
    formatTable(
      [
        { header: 'STEP', value: (a) => `${a.step} #${a.number}`, max: 32 },
        { header: 'STATUS', value: (a) => a.status },
        { header: 'STARTED', value: (a) => relativeTime(a.startedAt, now) },
        { header: 'FINISHED', value: (a) => relativeTime(a.finishedAt, now) },
        { header: 'ERROR', value: (a) => a.error ?? '', max: 60 },
      ],
      detail.attempts,
      paint,
    ),
  );
}

/** The questions, then the prompt of each one still open. */
function interactionsSection(detail: RunDetail, now: number, paint: Paint): string[] {
  const { interactions } = detail.snapshot;
  if (interactions.length === 0) return [];
  const out = section(
    paint,
    'Interactions',
    formatTable(
      [
        { header: 'ID', value: (i) => i.id },
        { header: 'STATUS', value: (i) => i.status },
        { header: 'TITLE', value: (i) => i.title, max: 40 },
        {
          header: 'EXPECTS',
          value: (i) =>
            i.kind === 'decision'
              ? (i.choices ?? []).join(' | ')
              : (i.fields ?? [])
                  .map((f) => `${f.name}:${f.type === 'choice' && f.multi === true ? 'choices' : f.type}`)
                  .join(', '),
          max: 40,
        },
        // A deadline only while the question is open: a settled one's has no meaning any more.
        {
          header: 'DEADLINE',
          value: (i) => (isOpen(i) ? relativeTime(i.deadlineAt, now) : '-'),
        },
        {
          header: 'DEFAULT',
          value: (i) => (i.hasDefault ? answerInTerms(i, i.defaultResponse) : '-'),
          max: 40,
        },
        {
          header: 'ANSWER',
          value: (i) =>
            i.status === 'settled'
              ? `${answerInTerms(i, i.response)} (${i.provenance ?? '?'})`
              : (i.provenance ?? ''),
          max: 40,
        },
      ],
      interactions,
      paint,
    ),
  );
  for (const interaction of interactions) {
    if (interaction.prompt && isOpen(interaction)) {
      out.push(`  ${interaction.id}: ${sanitizeText(interaction.prompt).split('\n').join('\n    ')}`);
    }
    if (isOpen(interaction)) out.push(...choiceLines(interaction));
  }
  return out;
}

/** An open question's choice fields, one line each: what `answer` takes for it. */
function choiceLines(interaction: Interaction): string[] {
  return (interaction.fields ?? [])
    .filter((field) => field.type === 'choice')
    .map((field) => {
      const options = (field.options ?? []).map((o) =>
        o.description === undefined ? o.label : `${o.label} (${o.description})`,
      );
      if (field.allowOther === true) options.push('or your own words');
      const label = field.label === undefined ? '' : ` "${field.label}"`;
      return sanitizeLine(
        `  ${interaction.id} ${field.name}${label}: ${field.multi === true ? 'any of' : 'one of'}: ${options.join(' | ')}`,
      );
    });
}

function effectsSection(detail: RunDetail, paint: Paint): string[] {
  const { effects } = detail.snapshot;
  if (effects.length === 0) return [];
  return section(
    paint,
    'Effects',
    formatTable(
      [
        { header: 'ID', value: (e) => String(e.id) },
        { header: 'TYPE', value: (e) => e.type, max: 20 },
        {
          header: 'STATUS',
          value: (e) => e.status,
          style: (e) => (e.status === 'ambiguous' ? 'yellow' : null),
        },
        { header: 'SUMMARY', value: (e) => e.summary, max: 48 },
        { header: 'TRIES', value: (e) => String(e.attemptCount), align: 'right' },
        {
          header: 'RESOLUTION',
          value: (e) => (e.resolution ? `${e.resolution}: ${e.resolutionNote ?? ''}` : ''),
          max: 40,
        },
      ],
      effects,
      paint,
    ),
  );
}

function eventsSection(detail: RunDetail, now: number, paint: Paint): string[] {
  if (detail.events.length === 0) return [];
  return section(
    paint,
    'Events (latest first)',
    formatTable(
      [
        { header: 'SEQ', value: (e) => String(e.seq), align: 'right' },
        { header: 'WHEN', value: (e) => relativeTime(e.at, now) },
        { header: 'TYPE', value: (e) => e.type },
        { header: 'BY', value: (e) => `${e.actorType}${e.actorId ? ` ${e.actorId}` : ''}`, max: 36 },
        { header: 'VIA', value: (e) => e.surface ?? '' },
        {
          header: 'GEN',
          value: (e) => (e.leaseGeneration === null ? '' : String(e.leaseGeneration)),
          align: 'right',
        },
      ],
      detail.events,
      paint,
    ),
  );
}

/** The exact command for each thing a person can do next, its purpose aligned beside it. */
function nextSection(detail: RunDetail, paint: Paint): string[] {
  const next = nextCommands(detail);
  if (next.length === 0) return [];
  const out = ['', paint('bold', 'Next')];
  const width = Math.min(80, Math.max(...next.map((item) => item.command.length)));
  for (const item of next) {
    const pad = ' '.repeat(Math.max(0, width - item.command.length));
    out.push(`  ${item.command}${pad}  ${paint('dim', `# ${sanitizeLine(item.what)}`)}`);
  }
  return out;
}
