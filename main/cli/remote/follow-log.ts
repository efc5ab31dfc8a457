/**
 * `runwarden logs --follow NAME:ID` (docs/REMOTES.md#listing-and-acting): a remote run's output followed
 * over one SSH session, read from that machine's own `runs:log` handler page after page, printed as `logs`
 * prints a local one (its output guard included), until the run stops running there. A session that ends
 * meanwhile says so and exits with the "machine unreachable" code: what was printed is all that arrived.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LogRecord, RunLogPage } from '../../../shared/views';
import { RemoteLinkError, type RemoteLink } from '../../services/remote/ssh-link';
import { parseArgs } from 'node:util';
import { UsageError, type CliContext } from '../command';
import { formatRecord } from '../commands/logs';
import { EXIT } from '../exit-codes';
import { parseIntegerFlag } from '../limits';

const POLL_MS = 250;
/** The most records one `runs:log` answer carries (shared/contract.ts MAX_LOG_RECORDS). */
const PAGE = 5_000;

export interface FollowArgs {
  runId: string;
  tail: number | undefined;
  stream: 'stdout' | 'stderr' | undefined;
  format: 'json' | 'raw' | 'text';
  pollMs: number;
}

/** The follow's arguments, as `logs` takes them; null when it is not a follow. */
export function followArgs(argv: readonly string[]): FollowArgs | null {
  const { values, positionals } = parseArgs({
    args: argv.slice(1),
    options: {
      tail: { type: 'string', short: 'n' },
      follow: { type: 'boolean', short: 'f' },
      stream: { type: 'string' },
      json: { type: 'boolean' },
      raw: { type: 'boolean' },
      'poll-ms': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.follow !== true) return null;
  if (positionals.length !== 1)
    throw new UsageError('logs --follow takes one run: runwarden logs --follow NAME:ID');
  const stream = values.stream;
  if (stream !== undefined && stream !== 'stdout' && stream !== 'stderr')
    throw new UsageError(`--stream must be stdout or stderr, got "${stream}"`);
  if (values.json === true && values.raw === true) throw new UsageError('use --json or --raw, not both');
  return {
    runId: positionals[0] as string,
    tail: parseIntegerFlag(values.tail, 'tail', { min: 1, max: Number.MAX_SAFE_INTEGER }),
    stream,
    format: values.json === true ? 'json' : values.raw === true ? 'raw' : 'text',
    pollMs: parseIntegerFlag(values['poll-ms'], 'poll-ms', { min: 20, max: 60_000 }) ?? POLL_MS,
  };
}

async function readPage(link: RemoteLink, input: Record<string, unknown>): Promise<RunLogPage> {
  const result = await link.call('runs:log', input);
  if (!result.ok) {
    const error = result.error as { code?: unknown; message?: unknown };
    throw Object.assign(new Error(String(error.message ?? 'the remote refused')), { code: error.code });
  }
  const page = result.value as RunLogPage;
  if (typeof page !== 'object' || page === null || !Array.isArray(page.records))
    throw new RemoteLinkError(
      'protocol',
      'the remote answered runs:log with something that is not a log page',
    );
  return page;
}

/** Follows the run's log on its machine; the exit code `logs --follow` gives. */
export async function followRemoteLog(
  ctx: CliContext,
  link: RemoteLink,
  name: string,
  args: FollowArgs,
): Promise<number> {
  const out = args.format === 'raw' ? ctx.rawStdout : ctx.stdout;
  const print = (records: readonly LogRecord[]) => {
    if (records.length > 0) out.write(records.map((r) => formatRecord(r, args.format)).join(''));
  };
  const base = { runId: args.runId, ...(args.stream !== undefined && { stream: args.stream }) };
  let page: RunLogPage;
  try {
    page = await readPage(link, { ...base, tail: Math.min(args.tail ?? PAGE, PAGE) });
  } catch (error) {
    if (error instanceof RemoteLinkError) throw error;
    const code = (error as { code?: unknown }).code;
    ctx.stderr.write(`runwarden: ${name}: ${(error as Error).message}\n`);
    return code === 'NOT_FOUND' ? EXIT.notFound : code === 'VALIDATION' ? EXIT.usage : EXIT.failure;
  }
  print(page.records);
  if (!page.live) return EXIT.ok;
  let cursor = { generation: page.generation, seq: page.lastSeq };
  let last = false;
  for (;;) {
    await sleep(args.pollMs);
    const latest = page.generations.at(-1) ?? null;
    const same = latest === null || latest === cursor.generation;
    page = await readPage(link, {
      ...base,
      ...(same && cursor.generation !== null
        ? { generation: cursor.generation, afterSeq: cursor.seq }
        : latest !== null
          ? { generation: latest, tail: PAGE }
          : { tail: PAGE }),
    });
    if (!same && cursor.generation !== null && page.generation !== null)
      ctx.stderr.write(
        `runwarden: run ${name}:${args.runId} started again (generation ${page.generation})\n`,
      );
    print(page.records);
    cursor = { generation: page.generation, seq: page.lastSeq };
    const more = page.records.length >= PAGE || (page.generations.at(-1) ?? null) !== cursor.generation;
    if (last && !more) return EXIT.ok;
    // Once it stopped running, one read more: what it printed last may land as its end is written.
    last = !page.live && !more;
  }
}
