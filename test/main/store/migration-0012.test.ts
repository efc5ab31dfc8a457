/**
 * Migration 0012 from a version-11 store: the `run_counts_update` trigger goes, the counters are rebuilt
 * from the runs (whatever they held), and from then on the code that moves a run's display status keeps
 * them — one transition at a time and a burst of deadlines alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0012 } from '../../../main/store/migrations/0012-run-counts-in-code';
import {
  createFakeClock,
  HUMAN,
  makeTempDir,
  RUNNER_ACTOR,
  runnerOwner,
  SWEEPER,
} from '../../helpers/temp-store';
import { expectHealthy, expectInvariants, expectRunCountsTrue } from './invariants';
import { schemaBackTo } from './schema-back';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const TRIGGER_V11 = `CREATE TRIGGER run_counts_update AFTER UPDATE OF project_id, display_base ON runs
  WHEN OLD.project_id != NEW.project_id OR OLD.display_base != NEW.display_base
BEGIN
  UPDATE run_counts SET n = n - 1 WHERE project_id = OLD.project_id AND display_base = OLD.display_base;
  INSERT INTO run_counts (project_id, display_base, n) VALUES (NEW.project_id, NEW.display_base, 1)
    ON CONFLICT (project_id, display_base) DO UPDATE SET n = n + 1;
END`;

it('0012 from version 11: the trigger goes, the counters are rebuilt and then kept by the transitions', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const clock = createFakeClock();
  const reserve = (store: ReturnType<typeof openStore>, title: string) =>
    store.reserveRun({ projectPath: project, workflow: 'w', title }, RUNNER_ACTOR);

  // A version-11 store: the trigger back, and counters that have drifted.
  const before = openStore(file, { clock });
  for (let i = 0; i < 3; i += 1) reserve(before, `queued ${i}`);
  before.close();
  const db = new Database(file);
  schemaBackTo(db, migration0012.version);
  db.exec(
    `${TRIGGER_V11}; UPDATE run_counts SET n = n + 5; PRAGMA user_version = ${migration0012.version - 1}`,
  );
  expect(migrate(db, MIGRATIONS.slice(0, migration0012.version))).toBe(migration0012.version);
  expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'run_counts_update'`).get()).toBeUndefined();
  db.close();

  const store = openStore(file, { clock });
  expectRunCountsTrue(store);
  // Single transitions: queued → running → needs-answer → running → (its runner gone) cancelled.
  const display = (id: string) =>
    store.db.prepare(`SELECT display_base FROM runs WHERE id = ?`).pluck().get(id);
  const run = reserve(store, 'moves');
  const claim = store.claimRun(run.id, { ...runnerOwner(), leaseMs: 30_000 }).claim;
  const question = store.requestInteraction(claim, {
    kind: 'decision',
    title: 'Go?',
    choices: ['yes', 'no'],
  });
  expect(display(run.id)).toBe('needs-answer');
  expectRunCountsTrue(store);
  store.answerInteraction(question.id, {
    interactionRevision: question.revision,
    idempotencyKey: 'k',
    payload: 'yes',
    actor: HUMAN,
  });
  expectRunCountsTrue(store);
  clock.advance(60_000);
  store.cancelRun(run.id, { reason: 'not needed', actor: HUMAN });
  expect(display(run.id)).toBe('cancelled');
  expectRunCountsTrue(store);

  // A burst: 30 questions on runs whose runners are gone park their runs in one pass.
  for (let i = 0; i < 30; i += 1) {
    const c = store.claimRun(reserve(store, `burst ${i}`).id, { ...runnerOwner(), leaseMs: 1_000 }).claim;
    store.requestInteraction(c, {
      kind: 'decision',
      title: `Q${i}`,
      choices: ['yes', 'no'],
      deadlineAt: clock.now() + 5_000,
    });
  }
  clock.advance(10_000);
  expect(store.expireInteractionDeadlines(100, SWEEPER)).toBe(30);
  expect(store.db.prepare(`SELECT n FROM run_counts WHERE display_base = 'parked'`).pluck().get()).toBe(30);
  expectInvariants(store);
  expectHealthy(store);
  store.close();
});
