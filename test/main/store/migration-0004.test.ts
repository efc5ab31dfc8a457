/**
 * Migration 0004 from a version-3 store: the two owned-run indexes a heartbeat rewrote
 * for nothing are gone; the expired-owner parts of the views still read an index, and a heartbeat still
 * moves the run's owner expiry that the stale view and the counts read.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { unionIdsSql } from '../../../main/store/run-views';
import { createFakeClock, makeTempDir, RUNNER_ACTOR, runnerOwner } from '../../helpers/temp-store';
import { expectInvariants } from './invariants';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const indexNames = (db: Database.Database) =>
  (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index'`).all() as Array<{ name: string }>).map(
    (r) => r.name,
  );

it('0004 from version 3: owned-run indexes dropped, stale detection unchanged', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const db = new Database(file);
  expect(migrate(db, MIGRATIONS.slice(0, 3))).toBe(3);
  expect(indexNames(db)).toEqual(expect.arrayContaining(['runs_owned', 'runs_project_owned']));
  expect(migrate(db, MIGRATIONS.slice(0, 4))).toBe(4);
  expect(indexNames(db)).not.toContain('runs_owned');
  expect(indexNames(db)).not.toContain('runs_project_owned');
  expect(indexNames(db)).toContain('runs_owner_expiry_cover');
  expect(migrate(db, MIGRATIONS.slice(0, 4))).toBe(4);
  const plan = (
    db.prepare(`EXPLAIN QUERY PLAN SELECT count(*) FROM (${unionIdsSql('stale')})`).all({ now: 1 }) as Array<{
      detail: string;
    }>
  ).map((r) => r.detail);
  expect(plan.join(' | ')).toMatch(/runs_owner_expiry_cover/);
  db.close();

  const clock = createFakeClock();
  const store = openStore(file, { clock });
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const run = store.reserveRun({ projectPath: project, workflow: 'w', title: 't' }, RUNNER_ACTOR);
  const { claim } = store.claimRun(run.id, { ...runnerOwner(), leaseMs: 10_000 });
  clock.advance(8_000);
  expect(store.heartbeat(claim, 10_000).ok).toBe(true);
  clock.advance(8_000);
  // Alive only because the heartbeat moved the expiry: the run is not stale and needs nobody.
  expect(store.listRuns({ view: 'stale', limit: 10 }).items).toEqual([]);
  expect(store.attentionSummary(5).counts).toEqual({ running: 1 });
  clock.advance(3_000);
  expect(store.listRuns({ view: 'stale', limit: 10 }).items.map((i) => i.run.id)).toEqual([run.id]);
  expect(store.attentionSummary(5)).toMatchObject({ counts: { stale: 1 }, needsYou: 1 });
  expectInvariants(store);
  store.close();
});
