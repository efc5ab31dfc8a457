/**
 * Migration 0015 from a version-14 store: runs get `enclosing_run_id` (the run a nested `exec` was started
 * inside), NULL for runs made before; a run reserved inside another records it, its detail lists it, the
 * enclosing run's detail lists its children, and the family shares idempotency keys.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0015 } from '../../../main/store/migrations/0015-enclosing-runs';
import { createFakeClock, HUMAN, makeTempDir, RUNNER_ACTOR, runnerOwner } from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';
import { schemaBackTo } from './schema-back';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('0015 from version 14: no enclosing run before; a nested run records it and shares keys with its family', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const clock = createFakeClock();
  const input = { projectPath: project, workflow: 'w', title: 'outer' };
  const owner = { ...runnerOwner(), leaseMs: 30_000 };

  const before = openStore(file, { clock });
  const old = before.reserveRun(input, RUNNER_ACTOR);
  before.close();
  const db = new Database(file);
  schemaBackTo(db, migration0015.version - 1);
  expect(migrate(db, MIGRATIONS.slice(0, migration0015.version))).toBe(migration0015.version);
  expect(db.prepare(`SELECT enclosing_run_id FROM runs WHERE id = ?`).pluck().get(old.id)).toBeNull();
  db.close();

  const store = openStore(file, { clock });
  const outer = store.claimRun(old.id, owner).claim;
  store.markRunning(outer);
  const { claim: inner } = store.reserveAndClaim(
    { ...input, title: 'inner', enclosingRunId: old.id },
    RUNNER_ACTOR,
    owner,
  );
  store.markRunning(inner);
  const paid = store.reserveEffect(inner, { type: 'pay', idempotencyKey: 'pay-inner', summary: 'pay' });
  store.beginEffect(inner, paid.id);
  store.settleEffect(inner, paid.id, 'applied');
  store.completeRun(inner);
  expect(store.getRunDetail(inner.runId, { eventsLimit: 1 }).enclosingRunId).toBe(old.id);
  expect(store.getRunDetail(old.id, { eventsLimit: 1 }).children).toEqual([
    { id: inner.runId, title: 'inner', status: 'completed' },
  ]);
  // An unknown enclosing run is refused, nothing written.
  expect(() => store.reserveRun({ ...input, enclosingRunId: 'run_nope' }, RUNNER_ACTOR)).toThrow(
    expect.objectContaining({ code: 'NOT_FOUND' }),
  );
  // The outer's retry runs the inner again: the key comes back applied, from the inner run.
  store.failRun(outer, 'supervisor died');
  const retry = store.retryRun(old.id, { actor: HUMAN });
  expect(store.appliedInFamily(old.id)).toEqual([
    { key: 'pay-inner', type: 'pay', summary: 'pay', runId: inner.runId, effectId: paid.id },
  ]);
  const again = store.claimRun(retry.id, owner).claim;
  const { claim: inner2 } = store.reserveAndClaim(
    { ...input, title: 'inner again', enclosingRunId: retry.id },
    RUNNER_ACTOR,
    owner,
  );
  const carried = store.reserveEffect(inner2, { type: 'pay', idempotencyKey: 'pay-inner', summary: 'pay' });
  expect(carried.status).toBe('applied');
  expect(carried.resolutionNote).toContain(inner.runId);
  store.completeRun(inner2);
  store.completeRun(again);
  expectInvariants(store);
  expectHealthy(store);
  store.close();
});
