/**
 * Migration 0003 from a version-2 store with rows: the search keys and the trigram index
 * are filled from the existing runs, then kept by the triggers (insert, delete, title change); a search
 * through the store then finds the old and the new runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { createFakeClock, makeTempDir, RUNNER_ACTOR } from '../../helpers/temp-store';
import { expectSearchIndexTrue } from './invariants';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function matches(db: Database.Database, phrase: string): string[] {
  return (
    db
      .prepare(
        `SELECT k.run_id FROM run_search s JOIN run_search_keys k ON k.key = s.rowid
         WHERE run_search MATCH ? ORDER BY k.run_id`,
      )
      .all(`"${phrase}"`) as Array<{ run_id: string }>
  ).map((r) => r.run_id);
}

it('0003 from version 2: index filled from existing runs, kept by triggers, used by search', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const db = new Database(file);
  expect(migrate(db, MIGRATIONS.slice(0, 2))).toBe(2);
  db.prepare(`INSERT INTO projects (id, canonical_path, name, created_at) VALUES (1, '/p', 'p', 0)`).run();
  const insert =
    db.prepare(`INSERT INTO runs (id, project_id, workflow, title, status, execution_mode, input_json,
    output_json, revision, display_base, created_at, updated_at) VALUES (?, 1, ?, ?, 'completed', 'headless', 'null', 'null', 0, 'completed', 0, 0)`);
  insert.run('run_a', 'nightly-etl', 'Load the Warehouse');
  insert.run('run_b', 'deploy', 'Ship WAREHOUSE v2');
  insert.run('run_c', 'deploy', 'Rotate keys');

  expect(migrate(db, MIGRATIONS.slice(0, 3))).toBe(3);
  expect(db.prepare(`SELECT count(*) AS n FROM run_search_keys`).get()).toEqual({ n: 3 });
  expect(matches(db, 'warehouse')).toEqual(['run_a', 'run_b']);
  expect(matches(db, 'ploy')).toEqual(['run_b', 'run_c']);
  expectSearchIndexTrue(db);
  expect(migrate(db, MIGRATIONS.slice(0, 3))).toBe(3);

  // Triggers: a new run is indexed, a title change moves its entry, a delete removes it.
  insert.run('run_d', 'etl', 'Warehouse backfill');
  db.prepare(`UPDATE runs SET title = 'Rotate certificates' WHERE id = 'run_b'`).run();
  db.prepare(`DELETE FROM runs WHERE id = 'run_a'`).run();
  expect(matches(db, 'warehouse')).toEqual(['run_d']);
  expect(matches(db, 'rotate')).toEqual(['run_b', 'run_c']);
  expect(matches(db, 'nightly')).toEqual([]);
  expectSearchIndexTrue(db);
  // A status change (no title/workflow change) leaves the index alone and still finds the run.
  db.prepare(`UPDATE runs SET display_base = 'failed', status = 'failed' WHERE id = 'run_d'`).run();
  expect(matches(db, 'backfill')).toEqual(['run_d']);
  db.prepare(`DELETE FROM runs`).run();
  expectSearchIndexTrue(db);
  db.close();

  // Through the store: reserve, search by index (3+ chars) and by scan (1–2 chars), prune.
  const clock = createFakeClock();
  const store = openStore(file, { clock });
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const a = store.reserveRun(
    { projectPath: project, workflow: 'etl', title: 'Warehouse load' },
    RUNNER_ACTOR,
  );
  const b = store.reserveRun({ projectPath: project, workflow: 'deploy', title: 'Ship it' }, RUNNER_ACTOR);
  expect(store.listRuns({ view: 'all', limit: 10, search: 'WAREHOUSE' }).items.map((i) => i.run.id)).toEqual([
    a.id,
  ]);
  // Search also matches the project path, whose temp folder name is random: both runs share it.
  const pathMatches = project.toLowerCase().includes('et');
  expect(store.listRuns({ view: 'all', limit: 10, search: 'et' }).items.map((i) => i.run.id)).toEqual(
    pathMatches ? [b.id, a.id] : [a.id],
  );
  store.cancelRun(a.id, { reason: 'no', actor: { type: 'human', id: 'me', surface: 'cli' } });
  clock.advance(40 * 86_400_000);
  expect(store.pruneTerminalRuns(30 * 86_400_000, 10)).toBe(1);
  expect(store.listRuns({ view: 'all', limit: 10, search: 'warehouse' }).items).toEqual([]);
  expectSearchIndexTrue(store.db);
  expect(store.doctor().contradictions).toEqual([]);
  store.close();
});
