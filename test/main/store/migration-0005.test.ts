/**
 * Migration 0005 from a version-4 store: the search index no longer merges inside the
 * writes of whoever inserts or deletes a run (an explicit merge round still does), a common word walks an
 * index instead of the table, and search finds the same runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { listRunsSql } from '../../../main/store/run-views';
import { createFakeClock, makeTempDir, RUNNER_ACTOR } from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const config = (db: Database.Database) =>
  Object.fromEntries(
    (db.prepare(`SELECT k, v FROM run_search_config`).all() as Array<{ k: string; v: unknown }>).map((r) => [
      r.k,
      r.v,
    ]),
  );
const leafPages = (db: Database.Database) =>
  (db.prepare(`SELECT count(*) AS n FROM run_search_data WHERE id >= 1 << 37`).get() as { n: number }).n;

const planOf = (db: Database.Database, sql: string, params: Record<string, unknown>) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join(' | ');

it('0005 from version 4: automerge off, the search walk index; search finds the same runs', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const db = new Database(file);
  expect(migrate(db, MIGRATIONS.slice(0, 4))).toBe(4);
  expect(config(db).automerge).toBeUndefined();
  expect(migrate(db, MIGRATIONS.slice(0, 5))).toBe(5);
  expect(config(db).automerge).toBe(0);
  expect(migrate(db, MIGRATIONS.slice(0, 5))).toBe(5);
  // A common word's newest-first walk tests title, workflow and project from the index alone.
  const walk = listRunsSql('all', { project: false, search: true, cursor: false, indexedSearch: false });
  expect(
    planOf(db, walk, {
      now: 1,
      unattendedBefore: 0,
      limit: 201,
      search: 'x',
      idFrom: '',
      projectIds: '[]',
      idTo: '',
    }),
  ).toMatch(/SCAN r USING INDEX runs_search_walk/);
  db.close();

  const store = openStore(file, { clock: createFakeClock() });
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const ids = Array.from(
    { length: 9 },
    (_, i) =>
      store.reserveRun({ projectPath: project, workflow: 'nightly', title: `etl ${i}` }, RUNNER_ACTOR).id,
  );
  const before = leafPages(store.db);
  expect(before).toBeGreaterThanOrEqual(9); // one segment per transaction, none merged
  expect(store.mergeSearchIndex(64)).toBe(true);
  expect(leafPages(store.db)).toBeLessThan(before);
  expect(
    store
      .listRuns({ view: 'all', limit: 20, search: 'ightl' })
      .items.map((i) => i.run.id)
      .sort(),
  ).toEqual([...ids].sort());
  expectInvariants(store);
  expectHealthy(store);
  store.close();
});
