/**
 * The machines this one attaches (docs/REMOTES.md): kept in the local store's settings under one key, each
 * a name, an SSH destination and the command that starts Runwarden there. Checked on the way in and on
 * the way out: a hand-edited or damaged entry is skipped, never passed to `ssh`.
 */
import type { Actor } from '../../../shared/domain';
import { RunwardenError } from '../../../shared/errors';
import type { StoreReader, StoreWriter } from '../../store';

export const REMOTES_SETTING = 'remotes';
export const DEFAULT_RUNWARDEN_COMMAND = 'runwarden';
export const MAX_REMOTES = 32;

export interface RemoteMachine {
  name: string;
  /** Anything `ssh` takes as a destination: a Host alias, user@host, ssh://user@host:port. */
  dest: string;
  /** How to start Runwarden there, as the remote's shell reads it. */
  runwarden: string;
}

const NAME = /^[a-z][a-z0-9-]{0,31}$/;
/** Names that mean something else to `ls --machine`. */
const RESERVED = new Set(['all', 'local', 'this']);
// oxlint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function checkRemoteName(name: string): string {
  if (!NAME.test(name)) {
    throw new RunwardenError(
      'VALIDATION',
      `A remote's name is 1 to 32 lower-case letters, digits or "-", starting with a letter: "${name.slice(0, 40)}" is not.`,
    );
  }
  if (RESERVED.has(name))
    throw new RunwardenError('VALIDATION', `"${name}" is reserved: choose another name.`);
  return name;
}

export function checkRemoteDest(dest: string): string {
  // A destination starting with "-" would reach ssh as an option.
  if (dest === '' || dest.startsWith('-') || /\s/.test(dest) || CONTROL.test(dest) || dest.length > 512) {
    throw new RunwardenError(
      'VALIDATION',
      'SSH_DEST is what ssh takes as a destination (a Host alias, user@host or ssh://user@host:port): no spaces, no leading "-".',
    );
  }
  return dest;
}

export function checkRunwardenCommand(command: string): string {
  if (command.trim() === '' || CONTROL.test(command) || command.length > 1024) {
    throw new RunwardenError(
      'VALIDATION',
      '--runwarden is one line of at most 1024 characters saying how to start Runwarden on the remote.',
    );
  }
  return command;
}

function valid(entry: unknown): entry is RemoteMachine {
  if (typeof entry !== 'object' || entry === null) return false;
  const { name, dest, runwarden } = entry as Record<string, unknown>;
  if (typeof name !== 'string' || typeof dest !== 'string' || typeof runwarden !== 'string') return false;
  try {
    checkRemoteName(name);
    checkRemoteDest(dest);
    checkRunwardenCommand(runwarden);
    return true;
  } catch {
    return false;
  }
}

/** What reading the remotes needs of a store. */
type SettingsReader = Pick<StoreReader, 'listSettings'>;

export function listRemotes(store: SettingsReader): RemoteMachine[] {
  const stored = store.listSettings()[REMOTES_SETTING];
  if (!Array.isArray(stored)) return [];
  return stored.filter(valid).map(({ name, dest, runwarden }) => ({ name, dest, runwarden }));
}

export function findRemote(store: SettingsReader, name: string): RemoteMachine {
  const found = listRemotes(store).find((remote) => remote.name === name);
  if (found === undefined) {
    throw new RunwardenError(
      'NOT_FOUND',
      `No remote machine named "${name.slice(0, 40)}" (runwarden remote ls lists them; runwarden remote add NAME SSH_DEST adds one).`,
    );
  }
  return found;
}

export function addRemote(store: StoreWriter, remote: RemoteMachine, actor: Actor): RemoteMachine[] {
  const entry: RemoteMachine = {
    name: checkRemoteName(remote.name),
    dest: checkRemoteDest(remote.dest),
    runwarden: checkRunwardenCommand(remote.runwarden),
  };
  const current = listRemotes(store);
  if (current.some((r) => r.name === entry.name)) {
    throw new RunwardenError(
      'CONFLICT',
      `A remote named "${entry.name}" exists already: remove it first (runwarden remote rm ${entry.name}).`,
    );
  }
  if (current.length >= MAX_REMOTES) {
    throw new RunwardenError('VALIDATION', `At most ${MAX_REMOTES} remote machines can be attached.`);
  }
  const next = [...current, entry];
  store.setSetting(REMOTES_SETTING, next, actor);
  return next;
}

export function removeRemote(store: StoreWriter, name: string, actor: Actor): RemoteMachine[] {
  findRemote(store, name);
  const next = listRemotes(store).filter((r) => r.name !== name);
  store.setSetting(REMOTES_SETTING, next, actor);
  return next;
}
