/**
 * `runwarden ls --machine NAME|all` (docs/REMOTES.md#listing-and-acting): each machine lists its own runs with its
 * own `ls`, over SSH for a remote; the rows come back as JSON, are checked, and are shown together with
 * the machine each belongs to. A machine that cannot be reached is said so, and the others still show.
 */
import { basename } from 'node:path';
import { DISPLAY_STATUSES } from '../../../shared/display-status';
import type { FullRunListItem } from '../../store';
import { RemoteLinkError, type RemoteLink } from '../../services/remote/ssh-link';
import type { RemoteMachine } from '../../services/remote/remotes';
import { printResult, type CliContext } from '../command';
import type { OutputStream } from '../output';
import { EXIT } from '../exit-codes';
import { painter } from '../output';
import { localRemote, localRemotes, openCliLink } from './forward';
import { renderRuns } from '../run-table';

export interface MachineRuns {
  /** null: this machine. */
  name: string | null;
  reachable: boolean;
  error: string | null;
  kind: string | null;
  items: FullRunListItem[];
  /** Rows a remote sent that were not runs: left out. */
  dropped: number;
}

export type MachineItem = FullRunListItem & { machine: string | null };

/** A run row as `ls --json` gives it, checked far enough to be shown and acted on. */
function isRunItem(value: unknown): value is FullRunListItem {
  if (typeof value !== 'object' || value === null) return false;
  const { run, display } = value as { run?: Record<string, unknown>; display?: Record<string, unknown> };
  if (typeof run !== 'object' || run === null || typeof display !== 'object' || display === null)
    return false;
  return (
    typeof run.id === 'string' &&
    /^run_[0-9a-z]+$/.test(run.id) &&
    typeof run.createdAt === 'number' &&
    typeof run.projectPath === 'string' &&
    typeof run.workflow === 'string' &&
    typeof run.title === 'string' &&
    (DISPLAY_STATUSES as readonly unknown[]).includes(display.status)
  );
}

function parsePage(name: string | null, code: number, stdout: string): MachineRuns {
  let body: { ok?: boolean; value?: { items?: unknown }; error?: { message?: unknown } };
  try {
    body = JSON.parse(stdout);
  } catch {
    body = { ok: false, error: { message: 'its ls did not answer in JSON' } };
  }
  if (code !== 0 || body.ok !== true || !Array.isArray(body.value?.items)) {
    const why = String(body.error?.message ?? `its ls exited with ${code}`).slice(0, 400);
    return {
      name,
      reachable: true,
      error: `${name ?? 'this machine'}: ${why}`,
      kind: 'refused',
      items: [],
      dropped: 0,
    };
  }
  const rows = body.value.items as unknown[];
  const items = rows.filter(isRunItem);
  return { name, reachable: true, error: null, kind: null, items, dropped: rows.length - items.length };
}

function capture(): OutputStream & { text: string } {
  const out = {
    text: '',
    isTTY: false,
    write(chunk: string) {
      out.text += chunk;
      return true;
    },
  };
  return out;
}

/** `runwarden ls` on this machine, as the caller (ls itself) runs it. */
export type ListHere = (ctx: CliContext, argv: string[]) => Promise<number>;

async function localRuns(ctx: CliContext, args: string[], listHere: ListHere): Promise<MachineRuns> {
  const stdout = capture();
  const local: CliContext = {
    ...ctx,
    stdout,
    stderr: capture(),
    rawStdout: stdout,
    json: true,
    paint: painter(false),
  };
  const code = await listHere(local, [...args, '--json']);
  return parsePage(null, code, stdout.text);
}

async function remoteRuns(ctx: CliContext, remote: RemoteMachine, args: string[]): Promise<MachineRuns> {
  let link: RemoteLink | null = null;
  try {
    link = await openCliLink(ctx, remote);
    const outcome = await link.cli(['ls', ...args, '--json']);
    return parsePage(remote.name, outcome.code, outcome.stdout);
  } catch (error) {
    if (!(error instanceof RemoteLinkError)) throw error;
    return {
      name: remote.name,
      reachable: false,
      error: error.message,
      kind: error.kind,
      items: [],
      dropped: 0,
    };
  } finally {
    link?.close();
  }
}

/** ls's own arguments for each machine: its flags without --store (each machine reads its own store). */
function remoteArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--store') i += 1;
    else if (!arg.startsWith('--store=') && arg !== '--json') out.push(arg);
  }
  return out;
}

export async function listMachines(
  ctx: CliContext,
  machine: string,
  argv: string[],
  storeFlag: string | undefined,
  listHere: ListHere,
): Promise<number> {
  const args = remoteArgs(argv);
  const remotes = machine === 'all' ? localRemotes(ctx, storeFlag) : [localRemote(ctx, storeFlag, machine)];
  const machines = await Promise.all([
    ...(machine === 'all'
      ? [
          localRuns(
            ctx,
            argv.filter((a) => a !== '--json'),
            listHere,
          ),
        ]
      : []),
    ...remotes.map((remote) => remoteRuns(ctx, remote, args)),
  ]);
  const items: MachineItem[] = machines
    .flatMap((m) => m.items.map((item) => ({ ...item, machine: m.name })))
    .sort((a, b) => b.run.createdAt - a.run.createdAt);
  const summary = machines.map(({ items: rows, ...rest }) => ({ ...rest, runs: rows.length }));
  const table = ctx.json ? '' : renderMachinesTable(ctx, items);
  printResult(ctx, { items, machines: summary }, () => `${table}${machineNotes(machines)}`);
  const failed = machines.find((m) => m.error !== null);
  if (machine === 'all' || failed === undefined) return EXIT.ok;
  // Not reached or not spoken to (a kind of link failure): its own exit code; the remote's refusal: 1.
  return failed.kind !== null ? EXIT.unreachable : EXIT.failure;
}

function renderMachinesTable(ctx: CliContext, items: MachineItem[]): string {
  const labels = new Map(items.map((i) => [i.run.projectPath, basename(i.run.projectPath)]));
  return renderRuns(items, null, ctx.now(), ctx.paint, labels, (item) => (item as MachineItem).machine);
}

/** What did not show: a machine that could not be reached or refused, rows that were not runs. */
function machineNotes(machines: MachineRuns[]): string {
  const notes = machines.flatMap((m) => [
    ...(m.error === null ? [] : [m.error]),
    ...(m.dropped === 0
      ? []
      : [`${m.name ?? 'this machine'}: ${m.dropped} rows that are not runs were left out`]),
  ]);
  return notes.map((n) => `${n}\n`).join('');
}
