/**
 * Migration 0013 from a version-12 store: request keys move from the store-wide unique `request_key` to
 * `project_request_key`, unique per project. A key's run is found again from its project with the same
 * command; the same key in another project is another key; another command under the key is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0013 } from '../../../main/store/migrations/0013-request-keys-per-project';
import { createFakeClock, makeTempDir, RUNNER_ACTOR } from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';
import { schemaBackTo } from './schema-back';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('0013 from version 12: keys per project, the same key and command reuse the run, others are refused', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const [here, there] = ['here', 'there'].map((name) => {
    const folder = path.join(dir!, name);
    fs.mkdirSync(folder);
    return fs.realpathSync(folder);
  }) as [string, string];
  const clock = createFakeClock();
  const command = { argv: ['make', 'deploy'], cwd: here };
  const reserve = (
    store: ReturnType<typeof openStore>,
    projectPath: string,
    key: string,
    argv = command.argv,
  ) =>
    store.reserveRun(
      { projectPath, workflow: 'w', title: key, requestKey: key, command: { argv, cwd: projectPath } },
      RUNNER_ACTOR,
    );

  // A version-12 store: the key in the store-wide unique column, no per-project column or index.
  const before = openStore(file, { clock });
  const deploy = reserve(before, here, 'deploy');
  reserve(before, here, 'report', ['./report.sh']);
  before.close();
  const db = new Database(file);
  schemaBackTo(db, migration0013.version);
  db.exec(`UPDATE runs SET request_key = project_request_key;
    DROP INDEX runs_project_request_key;
    ALTER TABLE runs DROP COLUMN project_request_key;
    PRAGMA user_version = ${migration0013.version - 1}`);
  expect(migrate(db, MIGRATIONS.slice(0, migration0013.version))).toBe(migration0013.version);
  expect(db.prepare(`SELECT count(*) FROM runs WHERE request_key IS NOT NULL`).pluck().get()).toBe(0);
  expect(
    db.prepare(`SELECT project_request_key FROM runs ORDER BY project_request_key`).pluck().all(),
  ).toEqual(['deploy', 'report']);
  db.close();

  const store = openStore(file, { clock });
  const runs = () => store.db.prepare(`SELECT count(*) FROM runs`).pluck().get();
  // The same key and command in its project: the same run, its key read back.
  const again = reserve(store, here, 'deploy');
  expect(again.id).toBe(deploy.id);
  expect(again.requestKey).toBe('deploy');
  // The same key in another project is another key there.
  const elsewhere = reserve(store, there, 'deploy');
  expect(elsewhere.id).not.toBe(deploy.id);
  expect(elsewhere.projectPath).toBe(there);
  expect(runs()).toBe(3);
  // Another command under the key in its project: refused, nothing written, the run and both argvs named.
  const revision = store.getRun(deploy.id).revision;
  expect(() => reserve(store, here, 'deploy', ['make', 'clean'])).toThrow(
    expect.objectContaining({
      code: 'CONFLICT',
      message: expect.stringContaining(
        `names run ${deploy.id} (queued) in ${here}, another piece of work: its command is ["make","deploy"], this one ["make","clean"]`,
      ) as string,
    }),
  );
  expect(runs()).toBe(3);
  expect(store.getRun(deploy.id).revision).toBe(revision);
  // The per-project index holds against a write that bypasses reserveRun.
  const report = store.db
    .prepare(`SELECT id FROM runs WHERE project_request_key = 'report'`)
    .pluck()
    .get() as string;
  expect(() =>
    store.db.prepare(`UPDATE runs SET project_request_key = 'deploy' WHERE id = ?`).run(report),
  ).toThrow(/UNIQUE constraint failed/);
  expectInvariants(store);
  expectHealthy(store);
  store.close();
});
