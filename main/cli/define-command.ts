/**
 * A command as its own logic only (docs/CLI.md#how-a-command-reads). `defineCommand` does the part every
 * command shares: the strict flags (node:util parseArgs) with --store, --json and --help added, the
 * positionals the command names, a `-- CMD` tail for the commands that run one, the store opened the way
 * the command says when it first asks for it, and its result printed: the JSON envelope with --json, else
 * the human text. A thrown error becomes its exit code and message in the dispatcher (run-cli.ts).
 */
import type { ParseArgsConfig } from 'node:util';
import {
  COMMON_OPTIONS,
  JSON_OPTION,
  noExtraPositionals,
  parseCommand,
  printResult,
  requirePositional,
  splitCommand,
  type CliContext,
  type Command,
  type ParsedValues,
} from './command';
import { EXIT } from './exit-codes';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flags a command parses: --store, --help and --json, then its own (which may redefine --json). */
export type CommandOptions<O extends Options> = Omit<typeof COMMON_OPTIONS & typeof JSON_OPTION, keyof O> & O;

/** The flag values a command's `run` gets, for the functions its phases are split into. */
export type CommandValues<O extends Options> = ParsedValues<CommandOptions<O>>;

/** How a command opens its store, given the context and --store: open-cli-store.ts, open-runner-cli-store.ts. */
export type StoreOpener<S> = (ctx: CliContext, flag: string | undefined) => S;

/** The positionals as the command names them: `RUN`, or `BODY?` for one that may be left out. */
type Named<P extends readonly string[]> = {
  [K in keyof P]: P[K] extends `${string}?` ? string | undefined : string;
};

export interface CommandCall<O extends Options, P extends readonly string[] | undefined, S> {
  ctx: CliContext;
  values: CommandValues<O>;
  /** The positionals, checked against `positionals` when the command names them. */
  args: P extends readonly string[] ? Named<P> : string[];
  /** What follows `--` (for a command with `runsCommand`), null when there is no `--`. */
  commandArgv: string[] | null;
  /** The command's arguments as given (before `--` for a command with `runsCommand`). */
  argv: string[];
  /** The store, opened by `store` on the first call (closed when the command returns); the same one after. */
  open(): S;
}

/** What a command prints: `value` with --json, else `human()` (nothing when empty); then it exits `exit`. */
export interface Reply {
  value: unknown;
  human: () => string;
  exit: number;
}

/** A command's result, printed by `defineCommand`; `human` left out prints nothing but under --json. */
export function reply(value: unknown, human: () => string = () => '', exit: number = EXIT.ok): Reply {
  return { value, human, exit };
}

export interface CommandSpec<O extends Options, P extends readonly string[] | undefined, S> {
  name: string;
  summary: string;
  /** The full `--help` text. */
  help: string;
  /** The command's own flags, as node:util parseArgs takes them. */
  options?: O;
  /**
   * The positionals by name, each required unless it ends in `?`; more than these is a usage error.
   * Left out, `args` holds whatever was given (a command with actions checks them itself); `false`
   * refuses any positional in parseArgs' own words.
   */
  positionals?: P | false;
  /** Arguments after `--` are the command to run (exec, step, effect): only what comes before is parsed. */
  runsCommand?: boolean;
  store?: StoreOpener<S>;
  run(call: CommandCall<O, P, S>): Promise<number | Reply> | number | Reply;
}

export function defineCommand<
  const O extends Options = Record<never, never>,
  const P extends readonly string[] | undefined = undefined,
  S = never,
>(spec: CommandSpec<O, P, S>): Command {
  const options = { ...COMMON_OPTIONS, ...JSON_OPTION, ...spec.options } as unknown as CommandOptions<O>;
  const command: Command = {
    name: spec.name,
    summary: spec.summary,
    help: spec.help,
    async run(ctx, given) {
      const split = spec.runsCommand === true ? splitCommand(given) : { own: given, commandArgv: null };
      const parsed = parseCommand(ctx, command, split.own, options, {
        allowPositionals: spec.positionals !== false,
      });
      if (parsed === null) return EXIT.ok;
      const names = spec.positionals === false ? undefined : spec.positionals;
      const args = names === undefined ? parsed.positionals : namedArgs(parsed.positionals, names);
      const storeFlag = (parsed.values as { store?: string }).store;
      let store: { value: S } | null = null;
      const open = (): S => {
        if (spec.store === undefined) throw new Error(`runwarden ${spec.name} opens no store`);
        store ??= { value: spec.store(ctx, storeFlag) };
        return store.value;
      };
      const result = await spec.run({
        ctx,
        values: parsed.values,
        args: args as CommandCall<O, P, S>['args'],
        commandArgv: split.commandArgv,
        argv: split.own,
        open,
      });
      if (typeof result === 'number') return result;
      printResult(ctx, result.value, result.human);
      return result.exit;
    },
  };
  return command;
}

/** The named positionals, each required one present, none beyond them. */
function namedArgs(positionals: string[], names: readonly string[]): Array<string | undefined> {
  const args = names.map((name, index) =>
    name.endsWith('?') ? positionals[index] : requirePositional(positionals, index, name),
  );
  noExtraPositionals(positionals, names.length);
  return args;
}
