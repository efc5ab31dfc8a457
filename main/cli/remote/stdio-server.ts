/**
 * `runwarden serve --stdio`: this machine's Runwarden for another machine that reached it over SSH
 * (docs/REMOTES.md#the-protocol). It reads requests on stdin and writes replies and pushes on stdout, one
 * JSON object per line; nothing listens on any port. It runs this machine's own handlers over its own
 * store, so every compare-and-set and refusal is this machine's; it ends when stdin closes.
 */
import os from 'node:os';
import { version as VERSION } from '../../../package.json';
import { isRunwardenError } from '../../../shared/errors';
import { createAppHost } from '../../services/app-host';
import { createDispatcher, type Dispatch } from '../../services/dispatcher';
import type { AppHost } from '../../services/host-types';
import {
  encodeLine,
  LineSplitter,
  MAX_CLI_OUTPUT_BYTES,
  MAX_LINE_BYTES,
  MAX_LOG_REPLY_CHARS,
  mismatchMessage,
  parseLine,
  PROTOCOL_VERSION,
  ProtocolError,
  REMOTE_CLI_COMMANDS,
  type ClientHello,
  type ServerMessage,
} from '../../services/remote/protocol';
import { checkRemoteName } from '../../services/remote/remotes';
import { REMOTE_CALL_CHANNELS } from '../../../shared/remotes';
import { openStore, resolveStorePath, type RunStore } from '../../store';
import type { CliContext } from '../command';
import type { OutputStream } from '../output';
import { actForRemotePerson, humanActor } from '../human-actor';
import { painter } from '../output';
import { remoteTarget } from './forward';

export const STDIO_HELP = `Usage: runwarden serve --stdio [--store PATH]

Serves this machine's Runwarden to another machine over SSH: requests on stdin, replies and the change
feed on stdout, one JSON object per line (docs/REMOTES.md). Started by "runwarden remote" on the other
machine as "ssh DEST runwarden serve --stdio"; not for a person to type. Listens on no port.`;

/** The environment a forwarded command sees: this machine's, without a run's identity. */
const RUN_VARIABLES = ['RUNWARDEN_RUN_ID', 'RUNWARDEN_RUN_TOKEN', 'RUNWARDEN_LEASE_GENERATION'];

interface ServerState {
  storePath: string;
  binPath: string;
  runCommandLine: CliContext['runCommandLine'];
  env: NodeJS.ProcessEnv;
  hello: ClientHello | null;
  host: AppHost | null;
  plain: { store: RunStore; dispatch: Dispatch } | null;
  /** Forwarded commands run one at a time: the person's identity is this process's. */
  queue: Promise<void>;
  /** A bye was sent: what else arrives is dropped. */
  over: boolean;
  done: () => void;
}

export async function runStdioServer(
  argv: string[],
  binPath: string,
  runCommandLine: CliContext['runCommandLine'],
): Promise<number> {
  const storeFlag = parseStdioArgs(argv);
  if (typeof storeFlag === 'number') return storeFlag;
  const env = { ...process.env };
  const storePath = resolveStorePath({ flag: storeFlag, env });
  env.RUNWARDEN_STORE = storePath;
  for (const name of RUN_VARIABLES) delete env[name];
  let finished!: () => void;
  const ended = new Promise<void>((resolve) => (finished = resolve));
  const state: ServerState = {
    storePath,
    binPath,
    runCommandLine,
    env,
    hello: null,
    host: null,
    plain: null,
    queue: Promise.resolve(),
    over: false,
    done: finished,
  };
  send({
    t: 'hello',
    protocol: PROTOCOL_VERSION,
    runwarden: VERSION,
    store: storePath,
    machine: os.hostname(),
  });
  const splitter = new LineSplitter(MAX_LINE_BYTES, (line) => onLine(state, line));
  process.stdin.on('data', (chunk: Buffer) => {
    try {
      splitter.push(chunk);
    } catch (error) {
      bye(state, 'PROTOCOL', `this machine received ${(error as Error).message}: the session was ended.`);
    }
  });
  process.stdin.once('end', () => state.done());
  process.stdin.once('error', () => state.done());
  await ended;
  // After a bye, nothing more is read: the session is over even if the other side keeps writing.
  process.stdin.destroy();
  await state.queue;
  state.host?.dispose();
  state.plain?.store.close();
  return 0;
}

function parseStdioArgs(argv: string[]): string | undefined | number {
  let store: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--stdio') continue;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${STDIO_HELP}\n`);
      return 0;
    }
    if (arg === '--store' && argv[i + 1] !== undefined) {
      store = argv[i + 1];
      i += 1;
      continue;
    }
    process.stderr.write(`runwarden serve --stdio: unexpected argument "${String(arg).slice(0, 60)}"\n`);
    return 2;
  }
  return store;
}

function send(message: ServerMessage): void {
  process.stdout.write(encodeLine(message));
}

function bye(state: ServerState, code: string, message: string): void {
  if (state.over) return;
  state.over = true;
  send({ t: 'bye', code, message });
  state.done();
}

function onLine(state: ServerState, line: string): void {
  if (state.over) return;
  try {
    const message = parseLine(line);
    if (state.hello === null) return onHello(state, message);
    if (message.t === 'call') return onCall(state, message);
    if (message.t === 'cli') return onCli(state, message);
    throw new ProtocolError(`a message of an unknown kind "${String(message.t).slice(0, 20)}"`);
  } catch (error) {
    const text = error instanceof ProtocolError ? error.message : String(error);
    bye(state, 'PROTOCOL', `this machine received ${text}: the session was ended.`);
  }
}

function onHello(state: ServerState, message: Record<string, unknown>): void {
  if (message.t !== 'hello' || typeof message.protocol !== 'number') {
    throw new ProtocolError('a first message that is not a hello');
  }
  if (message.protocol !== PROTOCOL_VERSION) {
    const theirs = String(message.runwarden ?? '?').slice(0, 40);
    return bye(
      state,
      'PROTOCOL',
      mismatchMessage(message.protocol, theirs, 'the machine that connected', os.hostname()),
    );
  }
  const { person, via, surface, feed } = message;
  // oxlint-disable-next-line no-control-regex
  if (typeof person !== 'string' || person.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(person)) {
    throw new ProtocolError('a hello without a person');
  }
  if (
    typeof via !== 'string' ||
    surface === undefined ||
    !['cli', 'app', 'browser'].includes(String(surface))
  ) {
    throw new ProtocolError('a hello without its remote name or surface');
  }
  try {
    checkRemoteName(via);
  } catch {
    throw new ProtocolError('a hello with a bad remote name');
  }
  state.hello = {
    t: 'hello',
    protocol: message.protocol,
    runwarden: String(message.runwarden ?? '?'),
    person,
    via,
    surface: surface as ClientHello['surface'],
    feed: feed === true,
  };
  actForRemotePerson(person, via);
  if (state.hello.feed) startFeed(state, state.hello);
}

/** The remote's own host (sweeper, change feed) for a window that watches this machine. */
function startFeed(state: ServerState, hello: ClientHello): void {
  state.host = createAppHost({
    storePath: state.storePath,
    // A remote never relays to its own remotes.
    remotes: false,
    // No timer looking for commits: the store's files say when one happened (docs/REMOTES.md#speed).
    feedWatch: true,
    surface: hello.surface === 'cli' ? 'browser' : hello.surface,
    actorId: humanActor().id,
    notifier: { show: (notice) => send({ t: 'push', event: 'notice', payload: notice }) },
    push: (event, payload) => send({ t: 'push', event, payload }),
  });
  state.host.start();
}

function onCall(state: ServerState, message: Record<string, unknown>): void {
  const id = requestId(message);
  const channel = String(message.channel);
  // Only what a window may do to a run here: nothing that opens files, installs, configures or relays.
  if (!(REMOTE_CALL_CHANNELS as readonly string[]).includes(channel)) {
    const refusal = `"${channel.slice(0, 40)}" is not a channel another machine may call here`;
    send({ t: 'result', id, result: { ok: false, error: { code: 'FORBIDDEN', message: refusal } } });
    return;
  }
  const reply = (result: unknown) =>
    send({ t: 'result', id, result: (channel === 'runs:log' ? boundLogPage(result) : result) as never });
  if (state.host !== null) {
    void state.host.dispatch(channel as never, message.input).then(reply);
    return;
  }
  state.plain ??= plainDispatcher(state);
  reply(state.plain.dispatch(channel as never, message.input));
}

/** A page of a run's output within MAX_LOG_REPLY_CHARS: its latest records, marked a fresh tail if cut. */
export function boundLogPage(result: unknown): unknown {
  const { ok, value } = result as { ok: boolean; value?: { records?: Array<{ text: string }> } };
  const records = ok ? value?.records : undefined;
  if (!Array.isArray(records)) return result;
  let chars = 0;
  let from = records.length;
  while (from > 0 && chars + (records[from - 1]?.text.length ?? 0) + 64 <= MAX_LOG_REPLY_CHARS) {
    from -= 1;
    chars += (records[from]?.text.length ?? 0) + 64;
  }
  if (from === 0) return result;
  return { ok: true, value: { ...value, records: records.slice(from), reset: true } };
}

/** Handlers over this machine's store without a host: for a caller that wants no change feed. */
function plainDispatcher(state: ServerState): { store: RunStore; dispatch: Dispatch } {
  const store = openStore(state.storePath, { mustExist: true });
  const dispatch = createDispatcher({
    store,
    clock: () => store.now(),
    actor: { ...humanActor(), surface: state.hello?.surface === 'cli' ? 'cli' : 'browser' },
    onSettingsChanged: () => {},
  });
  return { store, dispatch };
}

function requestId(message: Record<string, unknown>): number {
  const id = message.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new ProtocolError('a request without an id');
  return id;
}

function onCli(state: ServerState, message: Record<string, unknown>): void {
  const id = requestId(message);
  const argv = message.argv;
  const refuse = (text: string) =>
    send({ t: 'result', id, result: { ok: false, error: { code: 'VALIDATION', message: text } } });
  if (
    !Array.isArray(argv) ||
    argv.length === 0 ||
    argv.length > 64 ||
    !argv.every((a) => typeof a === 'string')
  ) {
    return refuse('a command is a list of at most 64 strings');
  }
  const [name] = argv as string[];
  if (!(REMOTE_CLI_COMMANDS as readonly string[]).includes(name as string)) {
    return refuse(`"${String(name).slice(0, 40)}" is not a command another machine may run here`);
  }
  if (remoteTarget(name as string, (argv as string[]).slice(1)) !== null) {
    return refuse('a command from another machine acts on this machine only, not on its remotes');
  }
  if (argv.some((a: string) => a === '--store' || a.startsWith('--store='))) {
    return refuse("a command from another machine uses this machine's own store");
  }
  state.queue = state.queue.then(async () => {
    const outcome = await runForwarded(state, argv as string[]);
    send({ t: 'result', id, result: { ok: true, value: outcome } });
  });
}

/** One capped output stream of a forwarded command. */
function capture(): OutputStream & { text: () => string } {
  let text = '';
  let cut = false;
  return {
    write(chunk: string) {
      if (text.length + chunk.length > MAX_CLI_OUTPUT_BYTES) {
        if (!cut) text += '\n… (output cut: run the command on that machine for all of it)\n';
        cut = true;
        return true;
      }
      text += chunk;
      return true;
    },
    isTTY: false,
    text: () => text,
  };
}

async function runForwarded(state: ServerState, argv: string[]) {
  const stdout = capture();
  const stderr = capture();
  const cleanups: Array<() => void> = [];
  const ctx: CliContext = {
    stdout,
    stderr,
    rawStdout: stdout,
    env: state.env,
    cwd: process.cwd(),
    binPath: state.binPath,
    json: false,
    paint: painter(false),
    now: () => Date.now(),
    defer: (cleanup) => cleanups.push(cleanup),
    runCommandLine: state.runCommandLine,
  };
  let code: number;
  try {
    code = await state.runCommandLine(ctx, argv);
  } catch (error) {
    code = 1;
    stderr.write(`runwarden: ${isRunwardenError(error) ? error.message : 'the command failed'}\n`);
  } finally {
    for (const cleanup of cleanups.toReversed()) {
      try {
        cleanup();
      } catch {
        // The command's own result counts.
      }
    }
  }
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
