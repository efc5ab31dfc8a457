/**
 * Remote runs in the window (docs/REMOTES.md#in-the-window): a remote's run, question and effect are named
 * `NAME:ID` on this side, as on the command line. A request naming one is sent to that machine's own handlers
 * with the plain id; its answer comes back with the ids it carries named `NAME:ID` again, so the window can
 * open, answer and act on them as it does on local ones, and every such action reaches that machine.
 */
import { RunwardenError } from '../../../shared/errors';
import type { RemoteCallChannel } from '../../../shared/remotes';

const MACHINE_ID = /^([a-z][a-z0-9-]{0,31}):([A-Za-z0-9_-]{1,64})$/;
/** The ids a remote's answer carries that name one of its runs or questions. */
const REMOTE_ID = /^(run|int)_[0-9a-z]{1,60}$/;

/** `box:run_01…` → { machine: 'box', id: 'run_01…' }; a plain id → null. */
export function splitMachineId(text: unknown): { machine: string; id: string } | null {
  if (typeof text !== 'string') return null;
  const match = MACHINE_ID.exec(text);
  return match === null ? null : { machine: match[1] as string, id: match[2] as string };
}

function idKey(key: string): boolean {
  return key === 'id' || key.endsWith('Id') || key.endsWith('Ids');
}

/**
 * A remote's answer with its run and question ids named `NAME:ID`: every string under a key `id`, `…Id` or
 * `…Ids` that is a run or question id. Titles, prompts and other text are left as they are.
 */
export function nameRemoteIds<T>(value: T, machine: string): T {
  const walk = (node: unknown, key: string | null): unknown => {
    if (typeof node === 'string')
      return key !== null && idKey(key) && REMOTE_ID.test(node) ? `${machine}:${node}` : node;
    if (Array.isArray(node))
      return node.map((item) => walk(item, key !== null && key.endsWith('Ids') ? key : null));
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v, k);
    return out;
  };
  return walk(value, null) as T;
}

/** Channels a remote run's request may take from the window, with the field that names the run. */
const ROUTED: Partial<Record<string, { channel: RemoteCallChannel; field: string }>> = {
  'runs:detail': { channel: 'runs:detail', field: 'runId' },
  'runs:log': { channel: 'runs:log', field: 'runId' },
  'runs:previewCancel': { channel: 'runs:previewCancel', field: 'runId' },
  'runs:cancel': { channel: 'runs:cancel', field: 'runId' },
  'runs:requestCancel': { channel: 'runs:requestCancel', field: 'runId' },
  'runs:requestPause': { channel: 'runs:requestPause', field: 'runId' },
  'runs:pause': { channel: 'runs:pause', field: 'runId' },
  'runs:stopCommand': { channel: 'runs:stopCommand', field: 'runId' },
  'runs:resume': { channel: 'runs:resume', field: 'runId' },
  'runs:retry': { channel: 'runs:retry', field: 'runId' },
  'interactions:answer': { channel: 'interactions:answer', field: 'interactionId' },
  // A clicked desktop notice of a remote run: that machine marks its notices of the run read.
  'notifications:markRead': { channel: 'notifications:markRead', field: 'runId' },
  'effects:resolve': { channel: 'effects:resolve', field: 'machine' },
};

export interface RemoteRoute {
  machine: string;
  channel: RemoteCallChannel;
  input: Record<string, unknown>;
}

function refuseOther(channel: string, machine: string): never {
  throw new RunwardenError(
    'VALIDATION',
    `A run on ${machine} cannot be asked for that here (${channel}): run it on that machine, or with runwarden … ${machine}:ID where the command takes one.`,
  );
}

/**
 * Where a window's request goes: null for this machine, or the machine its id names with the plain id. An
 * id of another machine on a channel that does not go over the wire is refused, never read as a local one.
 */
export function remoteRoute(channel: string, input: unknown): RemoteRoute | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  const fields = input as Record<string, unknown>;
  if (channel === 'runs:bulk') return bulkRoute(fields);
  const route = ROUTED[channel];
  if (route === undefined) {
    const named = splitMachineId(fields.runId) ?? splitMachineId(fields.interactionId);
    if (named !== null) refuseOther(channel, named.machine);
    return null;
  }
  if (route.field === 'machine') {
    if (fields.machine === undefined) return null;
    const { machine, ...rest } = fields;
    if (typeof machine !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(machine))
      throw new RunwardenError('VALIDATION', 'machine must be a remote machine name.');
    return { machine, channel: route.channel, input: rest };
  }
  const named = splitMachineId(fields[route.field]);
  if (named === null) return null;
  return { machine: named.machine, channel: route.channel, input: { ...fields, [route.field]: named.id } };
}

/** A bulk action goes to one machine: its runs all of that machine, or all of this one. */
function bulkRoute(fields: Record<string, unknown>): RemoteRoute | null {
  const items = Array.isArray(fields.items) ? (fields.items as unknown[]) : [];
  const machines = new Set<string | null>();
  const plain = items.map((item) => {
    const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const named = splitMachineId(record.runId);
    machines.add(named?.machine ?? null);
    return named === null ? record : { ...record, runId: named.id };
  });
  if (machines.size > 1)
    throw new RunwardenError(
      'VALIDATION',
      'A bulk action acts on one machine at a time: select the runs of one machine (the Machine filter shows them).',
    );
  const [machine] = [...machines];
  if (machine === null || machine === undefined) return null;
  return { machine, channel: 'runs:bulk', input: { ...fields, items: plain } };
}
