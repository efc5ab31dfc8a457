/**
 * The CLI dispatcher: picks the command, runs it, and turns every failure into one clear line on stderr
 * (`runwarden: <message>` + a hint) or, with --json, `{ok:false,error:{code,message,recovery}}` on stdout.
 */
import {
  ERROR_CODES,
  isRunwardenError,
  StoreNotCreatedError,
  type ErrorCode,
  type ErrorInfo,
  type Recovery,
} from '../../shared/errors';
import { version as VERSION } from '../../package.json';
import { COMMANDS, findCommand } from './commands';
import { UsageError, type CliContext } from './command';
import { EXIT, EXIT_CODE_HELP, exitCodeForError } from './exit-codes';
import { safeJson, sanitizeLine } from './sanitize';
import { shellQuote } from '../platform/shell-quote';

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `runwarden — a control room for durable workflow runs

Usage: runwarden <command> [options]

Commands:
${lines.join('\n')}

Every command takes --store PATH (default: $RUNWARDEN_STORE, else the per-user data folder) and --help.
Read commands take --json.

${EXIT_CODE_HELP}
`;
}

export async function runCli(ctx: CliContext, args: string[]): Promise<number> {
  const argv = storeFirstMoved(args);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const entry = topic === undefined ? undefined : findCommand(topic);
    ctx.stdout.write(entry ? (await entry.load()).help : mainHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    ctx.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const entry = findCommand(name);
  if (entry === undefined) {
    return reportError(ctx, new UsageError(`unknown command "${sanitizeLine(name)}"`), 'runwarden');
  }
  try {
    // `NAME:ID`: the command runs on that machine (docs/REMOTES.md#listing-and-acting).
    if (rest.some((arg) => arg.includes(':'))) {
      const remote = await import('./remote/forward');
      const target = remote.remoteTarget(entry.name, rest);
      if (target !== null) return await remote.forwardToRemote(ctx, target);
    }
    const command = await entry.load();
    return await command.run(ctx, rest);
  } catch (error) {
    return reportError(ctx, error, entry.name);
  }
}

/**
 * `runwarden --store PATH CMD …` as `runwarden CMD --store PATH …`: every command takes --store, so it may
 * come before the command's name too.
 */
function storeFirstMoved(argv: string[]): string[] {
  const [first, second, third, ...more] = argv;
  if (first === '--store' && second !== undefined && third !== undefined) {
    return [third, '--store', second, ...more];
  }
  if (first !== undefined && first.startsWith('--store=') && second !== undefined) {
    return [second, first, ...(third === undefined ? [] : [third]), ...more];
  }
  return argv;
}

function reportError(ctx: CliContext, error: unknown, commandName: string): number {
  const info = errorInfoOf(error);
  const exitCode = error instanceof UsageError ? EXIT.usage : exitCodeForError(info.code);
  if (ctx.json) {
    const out: { code: ErrorCode; message: string; recovery?: Recovery; issues?: string[] } = {
      code: info.code,
      message: info.message,
    };
    if (info.recovery !== undefined) out.recovery = info.recovery;
    if (info.issues !== undefined) out.issues = info.issues;
    ctx.stdout.write(`${safeJson({ ok: false, error: out })}\n`);
    return exitCode;
  }
  const lines = [`runwarden: ${sanitizeLine(info.message)}`];
  for (const issue of info.issues ?? []) lines.push(`  - ${sanitizeLine(issue)}`);
  const hint = hintFor(error, info, commandName);
  if (hint !== null) lines.push(`hint: ${hint}`);
  ctx.stderr.write(`${lines.join('\n')}\n`);
  return exitCode;
}

function errorInfoOf(error: unknown): ErrorInfo {
  if (isRunwardenError(error)) return error.toInfo();
  if (error instanceof UsageError) return { code: 'VALIDATION', message: error.message };
  // Something crossed the store boundary unmapped: still one line, never a stack.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code)) {
    return { code: code as ErrorCode, message: (error as Error).message };
  }
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

function hintFor(error: unknown, info: ErrorInfo, commandName: string): string | null {
  if (error instanceof UsageError) {
    return commandName === 'runwarden'
      ? 'run "runwarden --help" for the list of commands'
      : `run "runwarden ${commandName} --help" for usage`;
  }
  if (error instanceof StoreNotCreatedError) {
    return 'choose where the store goes with --store PATH or RUNWARDEN_STORE';
  }
  switch (info.recovery?.kind) {
    case 'requestPause':
      return `a live runner holds it; ask it to pause with "runwarden pause --request ${shellQuote(info.recovery.runId)}"`;
    case 'requestCancel': {
      const id = shellQuote(info.recovery.runId);
      // Name the command the person was running: a pause is requested with pause, not cancel.
      return commandName === 'pause'
        ? `a live runner holds it; ask it to pause with "runwarden pause --request ${id}"`
        : `a live runner holds it; ask it to stop with "runwarden cancel --request ${id}"`;
    }
    case 'resolveEffects':
      return `say whether each ambiguous effect happened first: "runwarden resolve EFFECT --happened|--not-happened --note TEXT" ("runwarden show ${shellQuote(info.recovery.runId)}" prints each one)`;
    case 'stopCommand':
      return `stop its command first with "runwarden cancel --stop-command ${shellQuote(info.recovery.runId)}"`;
    case 'resumeAnyway':
      return `the workflow source changed; resume with "runwarden resume --anyway ${shellQuote(info.recovery.runId)}"`;
    case 'refresh':
      return 'the run changed since you looked: check "runwarden show" and try again';
    case 'retryLater':
      return 'the store is busy; try again in a moment';
    case undefined:
      break;
  }
  switch (info.code) {
    case 'LIVE_OWNER':
      // exec finds its --key's run being run by another runner right now: that one does the work.
      if (commandName === 'exec') return 'wait for the other runner to finish; nothing was run here';
      return commandName === 'pause' || commandName === 'cancel'
        ? `a live runner holds this run; use "runwarden ${commandName} --request" to ask it`
        : 'a live runner holds this run; ask it to stop first ("runwarden cancel --request RUN")';
    case 'STALE_VIEW':
      return 'the run changed since you looked: check "runwarden show" and try again';
    case 'BUSY':
      return 'the store is busy; try again in a moment';
    case 'READ_ONLY':
    case 'STORE_NEWER':
      return 'run "runwarden doctor" to see why the store is read-only';
    case 'DISK_FULL':
      return 'free some space on the disk that holds the store, then try again';
    default:
      return null;
  }
}
