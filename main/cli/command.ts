/**
 * What every CLI command module exports, the context it runs in, and the shared argument parsing
 * (node:util parseArgs, strict) with the flags every command takes: --store, --json, --help.
 */
import type { ParseArgsConfig } from 'node:util';
import { resolveStorePath } from '../store/store-path';
import type { OutputStream, Paint } from './output';
import { safeJson } from './sanitize';
import { UsageError } from './usage-error';

export interface CliContext {
  /** Human and JSON output; guarded (output.ts guardedStream): nothing printed can drive the terminal. */
  stdout: OutputStream;
  stderr: OutputStream;
  /** The unguarded stdout, for data a script captures exactly (`ask`'s answer into a pipe). */
  rawStdout: OutputStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Absolute path of bin/runwarden.js, so children (exec, demo) can run the same CLI. */
  binPath: string;
  /** Set when --json is given (parseCommand): errors are then printed as JSON too. */
  json: boolean;
  paint: Paint;
  now(): number;
  /** Registers cleanup (closing the store, killing timers) run when the command returns. */
  defer(cleanup: () => void): void;
  /**
   * Runs one command line through the command registry (run-cli.ts), for a command that runs others: the
   * stdio server runs what another machine sends. Passed in so no command imports the registry that loads it.
   */
  runCommandLine(ctx: CliContext, argv: string[]): Promise<number>;
}

export interface Command {
  name: string;
  summary: string;
  /** Full `--help` text. */
  help: string;
  run(ctx: CliContext, argv: string[]): Promise<number>;
}

export { UsageError } from './usage-error';

type Options = NonNullable<ParseArgsConfig['options']>;

export const COMMON_OPTIONS = {
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const JSON_OPTION = { json: { type: 'boolean' } } as const satisfies Options;

export const COMMON_HELP = `  --store PATH   the store file (default: $RUNWARDEN_STORE, else the per-user data folder)
  -h, --help     show this help`;

export const JSON_HELP = `  --json         print the result as JSON: {"ok":true,"value":...} or {"ok":false,"error":{code,message,recovery}}`;

// node:util as Node's own object, not through `import`: its ESM wrapper reads every export, and some of them
// load worker_threads, streams and more, on every command's start-up (docs/CLI.md#start-up).
const { parseArgs } = process.getBuiltinModule('node:util');

/** Parses argv strictly; turns parseArgs' errors into UsageError; handles --help. */
export function parseCommand<const O extends Options>(
  ctx: CliContext,
  command: Command,
  argv: string[],
  options: O,
  config: { allowPositionals: boolean } = { allowPositionals: true },
) {
  let parsed;
  try {
    parsed = parseArgs({
      args: negativeValuesJoined(argv, options),
      options,
      strict: true,
      allowPositionals: config.allowPositionals,
      allowNegative: false,
    });
  } catch (error) {
    throw new UsageError(
      error instanceof Error ? (error.message.split('\n')[0] ?? String(error)) : String(error),
    );
  }
  const values = parsed.values as Record<string, unknown>;
  if (values.json === true) ctx.json = true;
  if (values.help === true) {
    ctx.stdout.write(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
    return null;
  }
  return parsed;
}

/**
 * `--limit -5` as `--limit=-5`: parseArgs takes a value starting with a dash for a flag and calls it
 * ambiguous; joined, the flag's own check says which numbers it takes. Stops at `--`.
 */
function negativeValuesJoined(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    if (arg === '--') return [...out, ...argv.slice(i)];
    const option = arg.startsWith('--') ? options[arg.slice(2)] : undefined;
    if (option?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/** The flag values `parseCommand` gives for a set of options (define-command.ts CommandValues). */
export type ParsedValues<O extends Options> = NonNullable<ReturnType<typeof parseCommand<O>>>['values'];

/**
 * Splits `[own args] -- CMD...` at the first "--": the command's own arguments, and CMD (null when there
 * is no "--"). Commands that run a CMD (exec, step, effect) parse only what comes before it.
 */
export function splitCommand(argv: string[]): { own: string[]; commandArgv: string[] | null } {
  const separator = argv.indexOf('--');
  if (separator === -1) return { own: argv, commandArgv: null };
  return { own: argv.slice(0, separator), commandArgv: argv.slice(separator + 1) };
}

export function storePathOf(ctx: CliContext, flag: string | undefined): string {
  if (flag !== undefined && flag.trim() === '') {
    throw new UsageError('--store needs a file path (leave it out to use $RUNWARDEN_STORE or the default)');
  }
  return resolveStorePath({ flag, env: ctx.env });
}

/** Prints a successful result: JSON envelope with --json, else the human text. */
export function printResult(ctx: CliContext, value: unknown, human: () => string): void {
  if (ctx.json) {
    ctx.stdout.write(`${safeJson({ ok: true, value })}\n`);
  } else {
    const text = human();
    if (text !== '') ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}

export function requirePositional(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (value === undefined || value === '') throw new UsageError(`missing ${name}`);
  return value;
}

export function noExtraPositionals(positionals: string[], count: number): void {
  if (positionals.length > count) throw new UsageError(`unexpected argument: ${positionals[count]}`);
}
