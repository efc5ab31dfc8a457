/**
 * The other machines the host attaches (docs/REMOTES.md#in-the-window): their state from the `remotes` push,
 * and each connected machine's projects for the sidebar, read from that machine when what it shows changed.
 * Everything here came from another machine: shown as text, never acted on without asking that machine.
 */
import type { RunwardenApi } from '$shared/contract';
import type { RemoteMachineView } from '$shared/remotes';
import { DISPLAY_STATUSES } from '$shared/display-status';
import type { StatusCounts } from '$shared/views';

/** A remote project as the sidebar shows it: checked before it is kept. */
export interface MachineProject {
  canonicalPath: string;
  needsYou: number;
  total: number;
  counts: StatusCounts;
}

/** A remote project's counts: known statuses, whole numbers; anything else is left out. */
function countsOf(value: unknown): StatusCounts {
  const counts: StatusCounts = {};
  if (typeof value !== 'object' || value === null) return counts;
  for (const status of DISPLAY_STATUSES) {
    const n = (value as Record<string, unknown>)[status];
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) counts[status] = n;
  }
  return counts;
}

const MAX_PROJECTS = 200;

function projectsOf(value: unknown): MachineProject[] {
  if (!Array.isArray(value)) return [];
  const out: MachineProject[] = [];
  for (const p of value.slice(0, MAX_PROJECTS) as unknown[]) {
    if (typeof p !== 'object' || p === null) continue;
    const { canonicalPath, needsYou, total, counts } = p as Record<string, unknown>;
    if (typeof canonicalPath !== 'string' || typeof needsYou !== 'number' || typeof total !== 'number')
      continue;
    out.push({ canonicalPath: canonicalPath.slice(0, 4096), needsYou, total, counts: countsOf(counts) });
  }
  return out;
}

export class MachinesState {
  list = $state.raw<RemoteMachineView[]>([]);
  projects = $state.raw<Record<string, MachineProject[]>>({});

  readonly #api: RunwardenApi;
  /** What each machine's rows were last read as: a change means the list and the open run read again. */
  #seen = new Map<string, string>();

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  async load(): Promise<string[]> {
    const result = await this.#api.listRemotes({});
    return result.ok ? this.apply(result.value) : [];
  }

  byName(name: string): RemoteMachineView | undefined {
    return this.list.find((m) => m.name === name);
  }

  /** Takes the host's word on every machine; returns the machines whose rows changed since. */
  apply(machines: RemoteMachineView[]): string[] {
    const changed: string[] = [];
    const next = new Map<string, string>();
    for (const m of machines) {
      const mark = `${m.state}|${m.readAt ?? ''}`;
      next.set(m.name, mark);
      if (this.#seen.get(m.name) !== mark) {
        changed.push(m.name);
        if (m.state === 'connected') void this.#loadProjects(m.name);
      }
    }
    for (const name of this.#seen.keys()) if (!next.has(name)) changed.push(name);
    this.#seen = next;
    this.list = machines;
    return changed;
  }

  async #loadProjects(name: string): Promise<void> {
    const result = await this.#api.callRemote({ machine: name, channel: 'projects:list', input: {} });
    if (!result.ok) return;
    this.projects = { ...this.projects, [name]: projectsOf(result.value) };
  }
}
