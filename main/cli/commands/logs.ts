/** `runwarden logs RUN`: what a run's command printed, from its log beside the store (docs/RUN-OUTPUT.md). */
import { setTimeout as sleep } from 'node:timers/promises';
import { displayStatus } from '../../../shared/display-status';
import { gapText } from '../../../shared/log-text';
import { neutraliseLine } from '../../../shared/terminal-text';
import type { LogRecord } from '../../../shared/views';
import { readRunLogPage, type RunLogQuery } from '../../store/run-log-page';
import type { StoreReader } from '../../store';
import { COMMON_HELP, UsageError, type CliContext } from '../command';
import { defineCommand } from '../define-command';
import { reader } from '../open-cli-store';
import { EXIT } from '../exit-codes';
import { safeJson } from '../sanitize';
import { parseIntegerFlag } from '../limits';

const ANY = Number.MAX_SAFE_INTEGER;

/** A whole log in one answer: far more records than a capped log holds. */
const ALL = 10_000_000;
/** Display states in which the run may still print: follow keeps going through them. */
const STILL_RUNNING = new Set(['running', 'waiting', 'needs-answer', 'queued']);

export const logsCommand = defineCommand({
  name: 'logs',
  summary: "print a run's output (stdout and stderr, in order), or follow it live",
  help: `Usage: runwarden logs RUN [--tail N] [--follow] [--stream stdout|stderr] [--json | --raw]

Prints what the run's command wrote, as "runwarden exec" and "runwarden worker" logged it: each line
with its time and stream, stdout and stderr in the order they arrived. Control characters and escape
sequences in the output are neutralised, so a log cannot drive your terminal. A log over its cap
keeps its head and latest tail, with a marker where output was skipped.

Options:
  -n, --tail N        only the last N lines
  -f, --follow        keep printing new output until the run ends (or is paused, parked, lost)
  --stream S          only stdout or only stderr
  --generation N      the log of an earlier claim of this run (a resumed run has one per claim)
  --json              one JSON record per line: {"seq","at","stream","text","partial"?}
  --raw               the output exactly as the command wrote it, control sequences included
${COMMON_HELP}

Exit status: 0; 4 if there is no such run, or it has no log (of that generation): a run started
by "exec --no-log", or not by "exec" or "worker".`,
  options: {
    tail: { type: 'string', short: 'n' },
    follow: { type: 'boolean', short: 'f' },
    stream: { type: 'string' },
    generation: { type: 'string' },
    raw: { type: 'boolean' },
    'poll-ms': { type: 'string' },
  },
  positionals: ['RUN'],
  store: reader,
  async run({ ctx, values, args: [runId], open }) {
    const stream = values.stream;
    if (stream !== undefined && stream !== 'stdout' && stream !== 'stderr') {
      throw new UsageError(`--stream must be stdout or stderr, got "${stream}"`);
    }
    if (values.json === true && values.raw === true) throw new UsageError('use --json or --raw, not both');
    const tail = parseIntegerFlag(values.tail, 'tail', { min: 1, max: ANY });
    const generation = parseIntegerFlag(values.generation, 'generation', { min: 0, max: ANY });
    const pollMs = parseIntegerFlag(values['poll-ms'], 'poll-ms', { min: 20, max: 60_000 }) ?? 250;
    const store = open();
    const format = values.json === true ? 'json' : values.raw === true ? 'raw' : 'text';
    // --raw is the one output that must pass escape sequences: it skips the CLI's stream guard.
    const out = format === 'raw' ? ctx.rawStdout : ctx.stdout;
    const print = (records: readonly LogRecord[]): void => {
      if (records.length > 0) out.write(records.map((r) => formatRecord(r, format)).join(''));
    };

    const query: RunLogQuery = {
      runId,
      tail: tail ?? ALL,
      limit: ALL,
      ...(generation !== undefined && { generation }),
      ...(stream !== undefined && { stream }),
    };
    let page = readRunLogPage(store, query);
    print(page.records);
    if (page.generation === null && values.follow !== true) {
      ctx.stderr.write(
        `runwarden: run ${runId} has no output log (only "runwarden exec" and "worker" log output, and not with --no-log)\n`,
      );
      return EXIT.notFound;
    } else if (page.removed) {
      ctx.stderr.write(`runwarden: the log of run ${runId} was deleted to keep logs within their budget\n`);
    }
    if (values.follow !== true) return EXIT.ok;

    let cursor = { generation: page.generation, seq: page.lastSeq };
    for (;;) {
      const running = stillRunning(store, runId, ctx);
      // Read once more after the run ended: what it printed last is on disk before its end is written.
      const latest = generation ?? store.listRunLogs(runId).at(-1)?.generation ?? null;
      const sameLog = latest !== null && latest === cursor.generation;
      page = readRunLogPage(store, {
        runId,
        limit: ALL,
        ...(generation !== undefined && { generation }),
        ...(stream !== undefined && { stream }),
        ...(sameLog ? { afterSeq: cursor.seq } : { tail: ALL }),
      });
      if (!sameLog && cursor.generation !== null && page.generation !== null) {
        ctx.stderr.write(`runwarden: run ${runId} started again (generation ${page.generation})\n`);
      }
      print(page.records);
      cursor = { generation: page.generation, seq: page.lastSeq };
      if (!running) return EXIT.ok;
      await sleep(pollMs);
    }
  },
});

function stillRunning(store: StoreReader, runId: string, ctx: CliContext): boolean {
  const status = displayStatus(store.getSnapshot(runId), ctx.now()).status;
  return STILL_RUNNING.has(status);
}

/** One record as `logs` prints it (also a remote run's, followed over SSH: main/cli/remote/follow-log.ts). */
export function formatRecord(record: LogRecord, format: 'json' | 'raw' | 'text'): string {
  // Bidi and invisible characters escaped as \uXXXX: the value parses unchanged (docs/CLI.md#output-hygiene).
  if (format === 'json') return `${safeJson(record)}\n`;
  if (format === 'raw') {
    if (record.stream === 'gap') return `\n${gapText(record)}\n`;
    return record.partial === true ? record.text : `${record.text}\n`;
  }
  const at = new Date(record.at).toISOString();
  if (record.stream === 'gap') return `${at} ------ ${gapText(record)}\n`;
  return `${at} ${record.stream} ${neutraliseLine(record.text)}\n`;
}
