/**
 * Migration 0002 from a version-1 store with rows: the run counters are filled from the
 * existing runs, then kept exact by the triggers through every kind of write; the new indexes exist.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { createFakeClock, makeTempDir, RUNNER_ACTOR, runnerOwner } from '../../helpers/temp-store';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function countersMatch(db: Database.Database): void {
  const counters = db
    .prepare(`SELECT project_id, display_base, n FROM run_counts WHERE n > 0 ORDER BY 1, 2`)
    .all();
  const actual = db
    .prepare(`SELECT project_id, display_base, count(*) AS n FROM runs GROUP BY 1, 2 ORDER BY 1, 2`)
    .all();
  expect(counters).toEqual(actual);
}

it('0002 from version 1: counters filled from existing runs, kept by triggers, indexes added', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const db = new Database(file);
  expect(migrate(db, MIGRATIONS.slice(0, 1))).toBe(1);
  db.prepare(`INSERT INTO projects (id, canonical_path, name, created_at) VALUES (1, '/p', 'p', 0)`).run();
  const insert =
    db.prepare(`INSERT INTO runs (id, project_id, workflow, title, status, execution_mode, input_json,
    output_json, revision, display_base, created_at, updated_at) VALUES (?, 1, 'w', 't', ?, 'headless', 'null', 'null', 0, ?, 0, 0)`);
  insert.run('run_a', 'queued', 'queued');
  insert.run('run_b', 'queued', 'queued');
  insert.run('run_c', 'completed', 'completed');

  expect(migrate(db, MIGRATIONS.slice(0, 2))).toBe(2);
  expect(db.prepare(`SELECT display_base, n FROM run_counts ORDER BY display_base`).all()).toEqual([
    { display_base: 'completed', n: 1 },
    { display_base: 'queued', n: 2 },
  ]);
  const indexes = (
    db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index'`).all() as Array<{ name: string }>
  ).map((r) => r.name);
  expect(indexes).toEqual(
    expect.arrayContaining([
      'effects_attempt',
      'interactions_attempt',
      'runs_owner_expiry_cover',
      'runs_needs_you_project',
    ]),
  );
  expect(indexes).not.toContain('runs_project_display');
  db.prepare(`DELETE FROM runs WHERE id = 'run_c'`).run();
  countersMatch(db);
  expect(migrate(db, MIGRATIONS.slice(0, 2))).toBe(2);
  // The hand-made v1 rows have no queue entry or lease; the store's own runs follow.
  db.prepare(`DELETE FROM runs`).run();
  countersMatch(db);
  db.close();

  // Through the store: reserve, claim, complete, cancel, prune — every path that moves display_base.
  const clock = createFakeClock();
  const store = openStore(file, { clock });
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const runs = Array.from({ length: 4 }, (_, i) =>
    store.reserveRun({ projectPath: project, workflow: 'w', title: `t${i}` }, RUNNER_ACTOR),
  );
  const claimed = store.claimRun(runs[0]!.id, { ...runnerOwner(), leaseMs: 30_000 });
  countersMatch(store.db);
  store.completeRun(claimed.claim);
  store.cancelRun(runs[1]!.id, { reason: 'no', actor: { type: 'human', id: 'me', surface: 'cli' } });
  countersMatch(store.db);
  clock.advance(40 * 86_400_000);
  expect(store.pruneTerminalRuns(30 * 86_400_000, 10)).toBe(2);
  countersMatch(store.db);
  expect(store.doctor().contradictions).toEqual([]);
  store.close();
});
