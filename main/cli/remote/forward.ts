/**
 * `NAME:ID` on the commands that take a run, question or effect (docs/REMOTES.md#listing-and-acting): the
 * command runs on that machine, inside its `serve --stdio`, against its own store, with its own
 * compare-and-set, refusals and exit codes; the person is recorded there as `user@host via NAME`.
 */
import { version as VERSION } from '../../../package.json';
import { safeJson } from '../sanitize';
import { connectRemote, RemoteLinkError, type RemoteLink } from '../../services/remote/ssh-link';
import { findRemote, listRemotes, type RemoteMachine } from '../../services/remote/remotes';
import { openStore } from '../../store';
import { StoreNotCreatedError } from '../../../shared/errors';
import { storePathOf, UsageError, type CliContext } from '../command';
import { EXIT } from '../exit-codes';
import { humanActor } from '../human-actor';
import { followArgs, followRemoteLog } from './follow-log';

/** The commands that take a `NAME:ID`. */
export const FORWARDED_COMMANDS: ReadonlySet<string> = new Set([
  'answer',
  'cancel',
  'resolve',
  'retry',
  'show',
  'logs',
]);

const REMOTE_ID = /^([a-z][a-z0-9-]{0,31}):(run_[0-9a-z]+|int_[0-9a-z]+|[0-9]{1,15})$/;
const LOCAL_ID = /^(run_[0-9a-z]+|int_[0-9a-z]+)$/;

export interface RemoteTarget {
  name: string;
  /** The command's arguments for the remote: ids without the machine, no --store. */
  argv: string[];
  /** The local store's --store flag, where the remotes are kept. */
  storeFlag: string | undefined;
}

/** The remote a command's arguments name, or null when every id is this machine's. */
export function remoteTarget(command: string, rest: string[]): RemoteTarget | null {
  if (!FORWARDED_COMMANDS.has(command)) return null;
  const names = new Set<string>();
  for (const arg of rest) {
    const match = REMOTE_ID.exec(arg);
    if (match !== null) names.add(match[1] as string);
  }
  if (names.size === 0) return null;
  if (names.size > 1)
    throw new UsageError('one command acts on one machine: give ids of one remote at a time');
  if (rest.some((arg) => LOCAL_ID.test(arg))) {
    throw new UsageError('one command acts on one machine: give every id as NAME:ID, or none');
  }
  const argv = [command];
  let storeFlag: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] as string;
    if (arg === '--store') {
      storeFlag = rest[i + 1];
      i += 1;
    } else if (arg.startsWith('--store=')) storeFlag = arg.slice('--store='.length);
    else argv.push(REMOTE_ID.exec(arg)?.[2] ?? arg);
  }
  return { name: [...names][0] as string, argv, storeFlag };
}

/** The remotes in the local store; none when there is no store yet. */
export function localRemotes(ctx: CliContext, storeFlag: string | undefined): RemoteMachine[] {
  let store;
  try {
    store = openStore(storePathOf(ctx, storeFlag), { mustExist: true });
  } catch (error) {
    if (error instanceof StoreNotCreatedError) return [];
    throw error;
  }
  try {
    return listRemotes(store);
  } finally {
    store.close();
  }
}

export function localRemote(ctx: CliContext, storeFlag: string | undefined, name: string): RemoteMachine {
  const remotes = localRemotes(ctx, storeFlag);
  return findRemote({ listSettings: () => ({ remotes }) }, name);
}

/** A session for one command: no change feed, the person at this terminal. */
export function openCliLink(ctx: CliContext, remote: RemoteMachine): Promise<RemoteLink> {
  return connectRemote({
    remote,
    person: humanActor().id,
    surface: 'cli',
    feed: false,
    version: VERSION,
    env: ctx.env as NodeJS.ProcessEnv,
  });
}

/** In the remote's human output, the commands it suggests name the machine, so they can be pasted here. */
function withMachine(text: string, name: string): string {
  return text.replace(
    /\brunwarden ((?:[a-z]+ )(?:--[a-z-]+ )*)(run_[0-9a-z]+|int_[0-9a-z]+)\b/g,
    (_all, command: string, id: string) => `runwarden ${command}${name}:${id}`,
  );
}

export async function forwardToRemote(ctx: CliContext, target: RemoteTarget): Promise<number> {
  if (target.argv.includes('--json') || target.argv.includes('--json-result')) ctx.json = true;
  const remote = localRemote(ctx, target.storeFlag, target.name);
  let link: RemoteLink | null = null;
  try {
    const follow = target.argv[0] === 'logs' ? followArgs(target.argv) : null;
    link = await openCliLink(ctx, remote);
    if (follow !== null) return await followRemoteLog(ctx, link, remote.name, follow);
    const outcome = await link.cli(target.argv);
    ctx.stdout.write(ctx.json ? outcome.stdout : withMachine(outcome.stdout, remote.name));
    ctx.stderr.write(ctx.json ? outcome.stderr : withMachine(outcome.stderr, remote.name));
    return Number.isInteger(outcome.code) && outcome.code >= 0 && outcome.code < 256
      ? outcome.code
      : EXIT.failure;
  } catch (error) {
    if (error instanceof RemoteLinkError) return reportLinkError(ctx, error);
    throw error;
  } finally {
    link?.close();
  }
}

/** A remote that cannot be reached or spoken to: one line (or the JSON envelope), exit 10. */
export function reportLinkError(ctx: CliContext, error: RemoteLinkError): number {
  if (ctx.json) {
    ctx.stdout.write(
      `${safeJson({ ok: false, error: { code: 'REMOTE', kind: error.kind, message: error.message } })}\n`,
    );
  } else {
    ctx.stderr.write(`runwarden: ${error.message}\n`);
  }
  return EXIT.unreachable;
}
