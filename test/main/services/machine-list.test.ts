/**
 * The run list over several machines (main/services/remote/machine-list.ts) and the routing of a remote run's
 * request (machine-ids.ts), with real stores on both sides: each "machine" is a store behind its own
 * dispatcher, as `serve --stdio` answers. Pages follow each other with every run once, in the view's order;
 * a machine that cannot answer shows its last-known rows, marked and with no action.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../../shared/channel-names';
import type { RunListItem } from '../../../shared/views';
import { createDispatcher } from '../../../main/services/dispatcher';
import { nameRemoteIds, remoteRoute } from '../../../main/services/remote/machine-ids';
import { listAcrossMachines, type MachineListDeps } from '../../../main/services/remote/machine-list';
import { createTempStore, HUMAN, reserve, runnerOwner, type TempStore } from '../../helpers/temp-store';

const stores: TempStore[] = [];
afterEach(() => {
  for (const t of stores.splice(0)) t.cleanup();
});

function machine(
  runs: number,
  stale: number,
): { t: TempStore; dispatch: (c: Channel, i: unknown) => unknown } {
  const t = createTempStore();
  stores.push(t);
  for (let i = 0; i < runs; i += 1) {
    t.clock.advance(1_000 + Math.floor(Math.random() * 500));
    const run = reserve(t, { title: `run ${i}` });
    if (i < stale) t.store.claimRun(run.id, { ...runnerOwner(`r${i}`), leaseMs: 1_000 });
  }
  t.clock.advance(120_000);
  const dispatch = createDispatcher({
    store: t.store,
    clock: t.clock,
    actor: HUMAN,
    onSettingsChanged: () => {},
  });
  return { t, dispatch: (c, i) => dispatch(c, i) };
}

function deps(
  here: ReturnType<typeof machine>,
  remotes: Record<string, ReturnType<typeof machine>>,
  down: Set<string> = new Set(),
): MachineListDeps {
  const remembered = new Map<string, { items: RunListItem[]; at: number }>();
  return {
    local: (input) => here.dispatch('runs:list', input) as never,
    machines: () => Object.keys(remotes).map((name) => ({ name, connected: !down.has(name) })),
    remotePage: async (name, input) => remotes[name]!.dispatch('runs:list', input) as never,
    lastKnown: (name, key) => remembered.get(`${name} ${key}`) ?? null,
    remember: (name, key, items) => remembered.set(`${name} ${key}`, { items, at: 42 }),
  };
}

async function allPages(d: MachineListDeps, input: Record<string, unknown>): Promise<RunListItem[]> {
  const rows: RunListItem[] = [];
  let cursor: string | null = null;
  do {
    const page = await listAcrossMachines(d, { ...input, limit: 4, cursor });
    expect(page.items.length).toBeLessThanOrEqual(4);
    rows.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return rows;
}

const plain = (id: string) => id.slice(id.indexOf(':') + 1);

describe('the run list over several machines', () => {
  it('pages through every machine once, newest first, each remote row naming its machine', async () => {
    const here = machine(7, 0);
    const box = machine(6, 0);
    const gpu = machine(3, 0);
    const rows = await allPages(deps(here, { box, gpu }), { view: 'all' });
    expect(rows).toHaveLength(16);
    expect(new Set(rows.map((r) => r.run.id)).size).toBe(16);
    const ids = rows.map((r) => plain(r.run.id));
    expect(ids).toEqual(ids.toSorted().toReversed());
    expect(rows.filter((r) => r.machine === 'box').every((r) => r.run.id.startsWith('box:run_'))).toBe(true);
    expect(rows.filter((r) => r.machine === undefined)).toHaveLength(7);
    expect(rows.filter((r) => r.machine === 'gpu')).toHaveLength(3);
    // One machine only: its rows alone.
    const onlyBox = await allPages(deps(here, { box, gpu }), { view: 'all', machine: 'box' });
    expect(onlyBox.map((r) => r.machine)).toEqual(Array(6).fill('box'));
  });

  it('merges Needs you in triage order and sums its groups; an unreachable machine is last known', async () => {
    const here = machine(5, 2);
    const box = machine(5, 3);
    const d = deps(here, { box });
    const first = await listAcrossMachines(d, { view: 'needs-you', limit: 50 });
    const stale = first.items.filter((i) => i.triageGroup === 'stale');
    expect(stale).toHaveLength(5);
    expect(first.groups?.stale).toBe(5);
    const boxRow = first.items.find((i) => i.machine === 'box');
    expect(boxRow?.lastKnownAt).toBeNull();
    expect(boxRow?.display.actions.length).toBeGreaterThan(0);

    const down = deps(here, { box }, new Set(['box']));
    Object.assign(down, { lastKnown: d.lastKnown });
    const later = await listAcrossMachines(down, { view: 'needs-you', limit: 50 });
    const lastKnown = later.items.filter((i) => i.machine === 'box');
    expect(lastKnown).toHaveLength(first.items.filter((i) => i.machine === 'box').length);
    expect(lastKnown.every((i) => i.lastKnownAt === 42 && i.display.actions.length === 0)).toBe(true);
    // Counted apart: the groups are what can be acted on now, this machine's alone here.
    const hereStale = later.items.filter((i) => i.machine === undefined && i.triageGroup === 'stale');
    expect(later.groups?.stale ?? 0).toBe(hereStale.length);
    expect(later.items.filter((i) => i.machine === undefined)).toHaveLength(
      first.items.filter((i) => i.machine === undefined).length,
    );
  });

  it('refuses a cursor it did not give out and a machine that is not attached', async () => {
    const d = deps(machine(1, 0), {});
    await expect(listAcrossMachines(d, { view: 'all', cursor: 'run_01' })).rejects.toThrow(/cursor/);
    await expect(listAcrossMachines(d, { view: 'all', machine: 'nope' })).rejects.toThrow(
      /No remote machine/,
    );
  });
});

describe('a remote run named NAME:ID', () => {
  it('routes to its machine with the plain id, and names the ids of the answer', () => {
    expect(remoteRoute('runs:cancel', { runId: 'box:run_01ab', expectedRevision: 3, reason: 'x' })).toEqual({
      machine: 'box',
      channel: 'runs:cancel',
      input: { runId: 'run_01ab', expectedRevision: 3, reason: 'x' },
    });
    expect(remoteRoute('runs:cancel', { runId: 'run_01ab', expectedRevision: 3, reason: 'x' })).toBeNull();
    expect(remoteRoute('effects:resolve', { machine: 'gpu', effectId: 4 })?.input).toEqual({ effectId: 4 });
    // Pause, Stop the command and a clicked notice's mark-read go to the machine too.
    for (const channel of ['runs:requestPause', 'runs:pause', 'runs:stopCommand', 'notifications:markRead'])
      expect(remoteRoute(channel, { runId: 'box:run_01ab' })).toEqual({
        machine: 'box',
        channel,
        input: { runId: 'run_01ab' },
      });
    expect(remoteRoute('notifications:markRead', { ids: [1, 2] })).toBeNull();
    expect(() => remoteRoute('runs:openLog', { runId: 'box:run_01ab' })).toThrow(/cannot be asked/);
    expect(() =>
      remoteRoute('runs:bulk', { items: [{ runId: 'box:run_1' }, { runId: 'run_2' }], action: 'cancel' }),
    ).toThrow(/one machine at a time/);
    const named = nameRemoteIds(
      { run: { id: 'run_1', title: 'run_2', parentRunId: 'run_0' }, runIds: ['run_3'], revision: 2 },
      'box',
    );
    expect(named).toEqual({
      run: { id: 'box:run_1', title: 'run_2', parentRunId: 'box:run_0' },
      runIds: ['box:run_3'],
      revision: 2,
    });
  });
});
