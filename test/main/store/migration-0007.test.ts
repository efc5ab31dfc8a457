/**
 * Migration 0007 from a version-6 store: a run_logs table (where each claim's output log is; the output
 * itself stays in files), rows going with their run, and bad sizes or unknown runs refused with nothing written.
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

it('0007 from version 6: run_logs rows per claim, deleted with their run; bad input refused', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const db = new Database(file);
  expect(migrate(db, MIGRATIONS.slice(0, 6))).toBe(6);
  expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'run_logs'`).get()).toBeUndefined();
  expect(migrate(db, MIGRATIONS.slice(0, 7))).toBe(7);
  expect(migrate(db, MIGRATIONS.slice(0, 7))).toBe(7);
  db.close();

  const clock = createFakeClock();
  const store = openStore(file, { clock });
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const run = store.reserveRun({ projectPath: project, workflow: 'w', title: 't' }, RUNNER_ACTOR);
  const logPath = path.join(store.logsDir, `${run.id}.log`);
  store.recordRunLog({ runId: run.id, generation: 1, path: logPath, bytes: 0, truncated: false });
  clock.advance(1000);
  store.recordRunLog({ runId: run.id, generation: 1, path: logPath, bytes: 42, truncated: true });
  store.recordRunLog({ runId: run.id, generation: 2, path: `${logPath}.2`, bytes: 7, truncated: false });
  expect(
    store.listRunLogs(run.id).map((l) => [l.generation, l.bytes, l.truncated, l.updatedAt - l.startedAt]),
  ).toEqual([
    [1, 42, true, 1000],
    [2, 7, false, 0],
  ]);
  // Metadata only: no event and no revision for the run.
  expect(store.getRun(run.id).revision).toBe(run.revision);
  expect(() =>
    store.recordRunLog({ runId: run.id, generation: 3, path: logPath, bytes: -1, truncated: false }),
  ).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
  expect(() =>
    store.recordRunLog({ runId: 'run_missing', generation: 1, path: logPath, bytes: 0, truncated: false }),
  ).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  expect(store.listRunLogs(run.id)).toHaveLength(2);
  expect(store.markLogRemoved(run.id, logPath)).toBe(true);
  expect(store.markLogRemoved(run.id, logPath)).toBe(false);
  expect(store.listRunLogs(run.id)[0]?.removedAt).toBe(clock.now());
  expectInvariants(store);
  expectHealthy(store);
  store.db.prepare(`DELETE FROM runs WHERE id = ?`).run(run.id);
  expect(store.listRunLogs(run.id)).toEqual([]);
  store.close();
});
