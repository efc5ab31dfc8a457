/**
 * The window's counts over every machine (docs/REMOTES.md#counts): this machine's with each connected one's;
 * one machine's with the Machine filter; an unreachable machine left out of every number and named apart
 * with what needed you there when last read; a machine not yet read adds nothing.
 */
import { describe, expect, it } from 'vitest';
import {
  leftOutText,
  machineCounts,
  projectCounts,
} from '../../../../renderer/src/lib/format/machine-counts';
import type { RemoteMachineView } from '../../../../shared/remotes';

function machine(name: string, over: Partial<RemoteMachineView>): RemoteMachineView {
  return {
    name,
    dest: name,
    runwarden: 'runwarden',
    state: 'connected',
    since: null,
    error: null,
    kind: null,
    version: '0.1.0',
    host: name,
    readAt: 1_000,
    needsYou: [],
    questions: [],
    counts: {},
    needsYouTotal: 0,
    dropped: 0,
    ...over,
  };
}

const local = { counts: { running: 2, 'needs-answer': 1 }, needsYou: 3 };
const machines = [
  machine('box', { counts: { running: 1, 'needs-answer': 2 }, needsYouTotal: 2 }),
  machine('gpu', {
    state: 'unreachable',
    since: 5_000,
    counts: { failed: 4 },
    needsYouTotal: 4,
    readAt: 4_000,
  }),
  machine('new', { state: 'connected', readAt: null, counts: { running: 9 }, needsYouTotal: 9 }),
];

describe('machine counts', () => {
  it('adds each connected machine, leaves out an unreachable one and names it', () => {
    const all = machineCounts(local, machines, null);
    expect(all.needsYou).toBe(5);
    expect(all.counts).toEqual({ running: 3, 'needs-answer': 3 });
    expect(all.leftOut).toEqual([{ name: 'gpu', needsYou: 4, at: 4_000 }]);
    expect(leftOutText(all.leftOut, () => '14:05')).toBe(
      'Not counted: gpu, unreachable (4 needed you, last known 14:05)',
    );
  });

  it('counts one machine with the filter', () => {
    expect(machineCounts(local, machines, 'this')).toEqual({ ...local, leftOut: [] });
    expect(machineCounts(local, machines, 'box')).toMatchObject({ needsYou: 2, leftOut: [] });
    expect(machineCounts(local, machines, 'gpu')).toMatchObject({ needsYou: 0, counts: {} });
    expect(machineCounts(local, machines, 'gpu').leftOut).toHaveLength(1);
    expect(leftOutText([], () => 'x')).toBe('');
  });

  it("counts a project folder on every machine that has it, or one machine's", () => {
    const remote = {
      box: [{ canonicalPath: '/p', counts: { stale: 1 }, needsYou: 1 }],
      gpu: [{ canonicalPath: '/p', counts: { stale: 7 }, needsYou: 7 }],
    };
    expect(projectCounts(local, remote, machines, null, '/p')).toMatchObject({
      needsYou: 4,
      counts: { running: 2, 'needs-answer': 1, stale: 1 },
    });
    expect(projectCounts(undefined, remote, machines, 'box', '/p')).toMatchObject({ needsYou: 1 });
    expect(projectCounts(undefined, remote, machines, null, '/q').needsYou).toBe(0);
  });
});
