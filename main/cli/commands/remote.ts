/**
 * `runwarden remote add | ls | rm`: the other machines this one attaches over SSH (docs/REMOTES.md). They
 * are kept in this machine's store; each keeps its own store, and is reached with the system's `ssh`.
 */
import {
  addRemote,
  DEFAULT_RUNWARDEN_COMMAND,
  removeRemote,
  type RemoteMachine,
} from '../../services/remote/remotes';
import { RemoteLinkError } from '../../services/remote/ssh-link';
import {
  COMMON_HELP,
  JSON_HELP,
  noExtraPositionals,
  printResult,
  requirePositional,
  UsageError,
  type CliContext,
} from '../command';
import { defineCommand, reply } from '../define-command';
import { EXIT } from '../exit-codes';
import { humanActor } from '../human-actor';
import { openCliStore } from '../open-cli-store';
import { formatTable } from '../output';
import { localRemotes, openCliLink } from '../remote/forward';
import { sanitizeLine } from '../sanitize';

export const remoteCommand = defineCommand({
  name: 'remote',
  summary: 'attach other machines over SSH: remote add, remote ls, remote rm',
  help: `Usage: runwarden remote add NAME SSH_DEST [--runwarden 'COMMAND']
       runwarden remote ls [--json]
       runwarden remote rm NAME

Attaches another machine's Runwarden over SSH: its runs and questions show with this machine's
(runwarden ls --machine NAME|all), and every command that takes an id takes NAME:ID for one of
its runs, questions or effects (runwarden answer NAME:int_… yes). Each machine keeps its own store;
this one keeps only the list of machines. The system's ssh is used as it is configured
(~/.ssh/config, keys, agent, known_hosts) and never prompts: a machine that needs a password,
a passphrase or a host-key decision says so, with the command to run once from a terminal.

  NAME               how this machine names it: lower-case letters, digits and "-"
  SSH_DEST           anything ssh takes: a Host alias, user@host, ssh://user@host:port
  --runwarden CMD    how to start Runwarden there, read by the remote's shell
                     (default: runwarden; e.g. '/opt/runwarden/bin/runwarden' or
                     'env RUNWARDEN_STORE=/data/runs.db runwarden')
${JSON_HELP}
${COMMON_HELP}

remote ls connects to each machine and says whether it is reachable, its Runwarden version and
store, or why not. Exit status: 0 done; 2 bad arguments; 4 remote rm of an unknown name;
5 remote add of a name already attached.`,
  options: { runwarden: { type: 'string' } },
  async run({ ctx, values, args: positionals }) {
    const action = requirePositional(positionals, 0, 'add, ls or rm');
    if (action !== 'add' && values.runwarden !== undefined) {
      throw new UsageError('--runwarden goes with remote add');
    }
    switch (action) {
      case 'add': {
        noExtraPositionals(positionals, 3);
        const remote: RemoteMachine = {
          name: requirePositional(positionals, 1, 'NAME'),
          dest: requirePositional(positionals, 2, 'SSH_DEST'),
          runwarden: values.runwarden ?? DEFAULT_RUNWARDEN_COMMAND,
        };
        const store = openCliStore(ctx, values.store);
        addRemote(store, remote, humanActor());
        return reply(remote, () => `Added ${remote.name} (${remote.dest}). Check it: runwarden remote ls`);
      }
      case 'rm': {
        noExtraPositionals(positionals, 2);
        const name = requirePositional(positionals, 1, 'NAME');
        const store = openCliStore(ctx, values.store, { mustExist: true });
        removeRemote(store, name, humanActor());
        return reply({ name }, () => `Removed ${name}; its own Runwarden and store are untouched.`);
      }
      case 'ls':
        noExtraPositionals(positionals, 1);
        return listRemoteMachines(ctx, values.store);
      default:
        throw new UsageError(`unknown action "${sanitizeLine(action).slice(0, 40)}": add, ls or rm`);
    }
  },
});

export interface RemoteStatus extends RemoteMachine {
  reachable: boolean;
  /** The remote's Runwarden version, its store and host name, when reachable. */
  version: string | null;
  store: string | null;
  machine: string | null;
  /** Why not, when unreachable; `kind` says what to do (docs/REMOTES.md#when-it-does-not-connect). */
  error: string | null;
  kind: string | null;
}

/** Every remote at once: connect, hello, close. */
export async function remoteStatuses(ctx: CliContext, remotes: RemoteMachine[]): Promise<RemoteStatus[]> {
  return Promise.all(
    remotes.map(async (remote): Promise<RemoteStatus> => {
      try {
        const link = await openCliLink(ctx, remote);
        link.close();
        const { runwarden, store, machine } = link.hello;
        return { ...remote, reachable: true, version: runwarden, store, machine, error: null, kind: null };
      } catch (error) {
        if (!(error instanceof RemoteLinkError)) throw error;
        const base = { ...remote, reachable: false, version: null, store: null, machine: null };
        return { ...base, error: error.message, kind: error.kind };
      }
    }),
  );
}

async function listRemoteMachines(ctx: CliContext, storeFlag: string | undefined): Promise<number> {
  const statuses = await remoteStatuses(ctx, localRemotes(ctx, storeFlag));
  printResult(ctx, statuses, () => {
    if (statuses.length === 0) return 'No remote machines. Attach one: runwarden remote add NAME SSH_DEST';
    return formatTable(
      [
        { header: 'NAME', value: (s: RemoteStatus) => s.name },
        { header: 'SSH_DEST', value: (s) => s.dest, max: 40 },
        { header: 'REACHABLE', value: (s) => (s.reachable ? 'yes' : 'no') },
        { header: 'VERSION', value: (s) => s.version ?? '-' },
        { header: 'STORE / WHY NOT', value: (s) => (s.reachable ? (s.store ?? '-') : (s.error ?? '-')) },
      ],
      statuses,
      ctx.paint,
    );
  });
  return EXIT.ok;
}
