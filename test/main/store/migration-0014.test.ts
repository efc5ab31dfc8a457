/**
 * Migration 0014 from a version-13 store: effects get a `performer` column. An effect begun before keeps
 * its recorded process (performer NULL) and is judged as before; one begun after by the run itself records
 * 'run'; any other value is refused by the schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0014 } from '../../../main/store/migrations/0014-effect-performer';
import { createFakeClock, makeTempDir, runnerOwner } from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';
import { schemaBackTo } from './schema-back';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('0014 from version 13: performer NULL for effects begun before, run for those the run performs', () => {
  dir = makeTempDir();
  const file = path.join(dir, 's.sqlite');
  const project = path.join(dir, 'proj');
  fs.mkdirSync(project);
  const clock = createFakeClock();
  const owner = { ...runnerOwner(), leaseMs: 30_000 };
  const input = { projectPath: project, workflow: 'w', title: 't' };

  const before = openStore(file, { clock });
  const { claim } = before.reserveAndClaim(input, { type: 'runner', id: 'r', surface: 'cli' }, owner);
  const old = before.reserveEffect(claim, { type: 'x', idempotencyKey: 'old', summary: 'old' });
  before.close();
  const db = new Database(file);
  // Back to version 13: the column goes (an effect begun then had only its process).
  schemaBackTo(db, migration0014.version - 1);
  expect(migrate(db, MIGRATIONS.slice(0, migration0014.version))).toBe(migration0014.version);
  expect(db.prepare(`SELECT performer FROM effects WHERE id = ?`).get(old.id)).toEqual({ performer: null });
  expect(() => db.prepare(`UPDATE effects SET performer = 'someone' WHERE id = ?`).run(old.id)).toThrow(
    /CHECK/,
  );
  db.close();

  const store = openStore(file, { clock });
  store.beginEffect(claim, old.id, 'run');
  const raw = new Database(file, { readonly: true });
  expect(raw.prepare(`SELECT performer, process_pid FROM effects WHERE id = ?`).get(old.id)).toEqual({
    performer: 'run',
    process_pid: owner.pid,
  });
  raw.close();
  expectInvariants(store);
  expectHealthy(store);
  store.close();
});
