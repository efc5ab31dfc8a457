/**
 * Migration 0005 from a version-4 store (STYLE.md point 9): the search index no longer merges inside the
 * writes of whoever inserts or deletes a run; an explicit merge round still does, and search is unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
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

it('0005 from version 4: automerge off; runs inserted one per transaction leave their segments alone', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const db = new Database(file);
  expect(migrate(db, MIGRATIONS.slice(0, 4))).toBe(4);
  expect(config(db).automerge).toBeUndefined();
  expect(migrate(db, MIGRATIONS.slice(0, 5))).toBe(5);
  expect(config(db).automerge).toBe(0);
  expect(migrate(db, MIGRATIONS.slice(0, 5))).toBe(5);
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
