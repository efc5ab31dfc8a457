/**
 * docs/LIVENESS.md#nested-runs at the store: a run claimed by a process inside another run (a `worker`
 * inside an `exec`) becomes that run's child; never one already nested elsewhere, never inside a run that
 * has ended, never a cycle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../../main/store/open-store';
import { createFakeClock, makeTempDir, RUNNER_ACTOR, runnerOwner } from '../../helpers/temp-store';
import { expectHealthy } from './invariants';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function setUp() {
  dir = makeTempDir();
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const store = openStore(path.join(dir, 's.sqlite'), { clock: createFakeClock() });
  const input = {
    projectPath: project,
    workflow: 'w',
    title: 't',
    command: { argv: ['true'], cwd: project },
  };
  const owner = { ...runnerOwner(), leaseMs: 30_000 };
  const outer = store.reserveAndClaim({ ...input, title: 'outer' }, RUNNER_ACTOR, owner).claim;
  store.markRunning(outer);
  return { store, input, owner, outer };
}

it('claimNext inside a run: the claimed run becomes its child, said on run.claimed', () => {
  const { store, input, owner, outer } = setUp();
  const queued = store.reserveRun({ ...input, title: 'queued' }, RUNNER_ACTOR);
  const next = store.claimNext({ ...owner, enclosingRunId: outer.runId, requireCommand: true });
  expect(next?.claim.runId).toBe(queued.id);
  const detail = store.getRunDetail(queued.id, { eventsLimit: 50 });
  expect(detail.enclosingRunId).toBe(outer.runId);
  expect(detail.events.find((e) => e.type === 'run.claimed')?.payload).toMatchObject({
    enclosingRunId: outer.runId,
  });
  expect(store.getRunDetail(outer.runId, { eventsLimit: 1 }).children.map((c) => c.id)).toEqual([queued.id]);
  expectHealthy(store);
  store.close();
});

it('a run nested elsewhere keeps its parent; an ended run or a cycle adopts nothing', () => {
  const { store, input, owner, outer } = setUp();
  const other = store.reserveAndClaim({ ...input, title: 'other' }, RUNNER_ACTOR, owner).claim;
  store.markRunning(other);
  const nested = store.reserveRun({ ...input, title: 'nested', enclosingRunId: other.runId }, RUNNER_ACTOR);
  store.claimRun(nested.id, { ...owner, enclosingRunId: outer.runId });
  expect(store.getRunDetail(nested.id, { eventsLimit: 1 }).enclosingRunId).toBe(other.runId);

  // A run claimed from inside a run nested in it would be its own ancestor: no link.
  const top = store.reserveRun({ ...input, title: 'top' }, RUNNER_ACTOR);
  const inside = store.reserveAndClaim(
    { ...input, title: 'inside', enclosingRunId: top.id },
    RUNNER_ACTOR,
    owner,
  ).claim;
  store.markRunning(inside);
  store.claimRun(top.id, { ...owner, enclosingRunId: inside.runId });
  expect(store.getRunDetail(top.id, { eventsLimit: 1 }).enclosingRunId).toBeNull();

  const ended = store.reserveAndClaim({ ...input, title: 'ended' }, RUNNER_ACTOR, owner).claim;
  store.markRunning(ended);
  store.completeRun(ended, null);
  const late = store.reserveRun({ ...input, title: 'late' }, RUNNER_ACTOR);
  store.claimRun(late.id, { ...owner, enclosingRunId: ended.runId });
  expect(store.getRunDetail(late.id, { eventsLimit: 1 }).enclosingRunId).toBeNull();
  expectHealthy(store);
  store.close();
});
