/**
 * The window's counts over every machine (docs/REMOTES.md#counts): the tabs, the sidebar's total and the
 * window's title count this machine's runs and each connected machine's, as that machine last said (its own
 * attention summary, read again when it changes). A machine that cannot be reached is left out of every
 * number, as it adds nothing to the tray: its rows in the list are last known, and the window says apart
 * how many needed you there when it was last read, marked last known.
 */
import type { RemoteMachineView } from '$shared/remotes';
import type { StatusCounts } from '$shared/views';

export interface Counted {
  counts: StatusCounts;
  needsYou: number;
}

/** A machine left out of the counts: what needed you there when it was last read, and when. */
export interface LeftOut {
  name: string;
  needsYou: number;
  at: number;
}

export interface MachineCounts extends Counted {
  leftOut: LeftOut[];
}

function add(into: StatusCounts, more: StatusCounts): StatusCounts {
  const total: StatusCounts = { ...into };
  for (const [status, n] of Object.entries(more)) {
    const key = status as keyof StatusCounts;
    total[key] = (total[key] ?? 0) + (n ?? 0);
  }
  return total;
}

function live(machine: RemoteMachineView): boolean {
  return machine.state === 'connected' && machine.readAt !== null;
}

function leftOut(machine: RemoteMachineView): LeftOut[] {
  if (machine.state === 'connected' || machine.readAt === null) return [];
  return [{ name: machine.name, needsYou: machine.needsYouTotal, at: machine.readAt }];
}

/**
 * The counts of the machines `which` names: every machine (null or undefined), this one (`this`), or one
 * other by name. `local` is this machine's own.
 */
export function machineCounts(
  local: Counted,
  machines: readonly RemoteMachineView[],
  which: string | null | undefined,
): MachineCounts {
  if (which === 'this') return { ...local, leftOut: [] };
  const named = which === null || which === undefined ? null : which;
  let counts: StatusCounts = named === null ? local.counts : {};
  let needsYou = named === null ? local.needsYou : 0;
  const out: LeftOut[] = [];
  for (const machine of machines) {
    if (named !== null && machine.name !== named) continue;
    if (!live(machine)) {
      out.push(...leftOut(machine));
      continue;
    }
    counts = add(counts, machine.counts);
    needsYou += machine.needsYouTotal;
  }
  return { counts, needsYou, leftOut: out };
}

/** "Not counted: box, unreachable (2 needed you, last known 14:05)". */
export function leftOutText(left: readonly LeftOut[], clock: (at: number) => string): string {
  if (left.length === 0) return '';
  const parts = left.map(
    (m) => `${m.name}, unreachable (${m.needsYou} needed you, last known ${clock(m.at)})`,
  );
  return `Not counted: ${parts.join('; ')}`;
}

/** A project as a machine reports it: its path and its counts. */
export interface ProjectCounted extends Counted {
  canonicalPath: string;
}

/**
 * The counts of one project folder on the machines `which` names: this machine's project of that path and,
 * for every machine, each connected machine's project of the same path.
 */
export function projectCounts(
  local: Counted | undefined,
  remote: Readonly<Record<string, readonly ProjectCounted[]>>,
  machines: readonly RemoteMachineView[],
  which: string | null | undefined,
  path: string,
): MachineCounts {
  const here = local ?? { counts: {}, needsYou: 0 };
  const perMachine = machines.map((machine) => {
    const project = remote[machine.name]?.find((p) => p.canonicalPath === path);
    return {
      ...machine,
      counts: project?.counts ?? {},
      needsYouTotal: project?.needsYou ?? 0,
    };
  });
  return machineCounts(here, perMachine, which);
}
