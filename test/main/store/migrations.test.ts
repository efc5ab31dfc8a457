import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { APPLICATION_ID, migrate } from '../../../main/store/open-store';
import { MIGRATIONS, SUPPORTED_SCHEMA_VERSION } from '../../../main/store/migrations';
import { makeTempDir } from '../../helpers/temp-store';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('migrations', () => {
  it('are numbered 1..n with user_version = number of the last', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SUPPORTED_SCHEMA_VERSION).toBe(MIGRATIONS.length);
    for (const m of MIGRATIONS) expect(m.name).toMatch(new RegExp(`^${String(m.version).padStart(4, '0')}-`));
  });

  it('0001 from version 0 (empty) → 1: tables, indexes, app id, user_version; idempotent; integrity ok', () => {
    dir = makeTempDir();
    const db = new Database(path.join(dir!, 's.sqlite'));
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(migrate(db, MIGRATIONS.slice(0, 1))).toBe(1);
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    const tables = (
      db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
        )
        .all() as Array<{ name: string }>
    ).map((r) => r.name);
    expect(tables).toEqual([
      'attempts',
      'effects',
      'events',
      'interactions',
      'leases',
      'notifications',
      'projects',
      'queue_entries',
      'runs',
      'settings',
      'submissions',
    ]);
    const strict = db
      .prepare(
        `SELECT name FROM pragma_table_list WHERE strict = 0 AND schema = 'main' AND name NOT LIKE 'sqlite_%'`,
      )
      .all();
    expect(strict).toEqual([]);
    expect(db.prepare(`SELECT name, run_id, generation FROM leases`).all()).toEqual([
      { name: 'host', run_id: null, generation: 0 },
    ]);
    expect(migrate(db, MIGRATIONS.slice(0, 1))).toBe(1);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.close();
  });

  it('refuses to initialise a database that already has tables', () => {
    dir = makeTempDir();
    const db = new Database(path.join(dir!, 's.sqlite'));
    db.exec('CREATE TABLE mine (x)');
    expect(() => migrate(db)).toThrow(/another program/);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    db.close();
  });

  it('rolls a failing migration back entirely', () => {
    dir = makeTempDir();
    const db = new Database(path.join(dir!, 's.sqlite'));
    const broken = [{ version: 1, name: '0001-broken', sql: 'CREATE TABLE a (x); CREATE TABLE a (y);' }];
    expect(() => migrate(db, broken)).toThrow();
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare(`SELECT count(*) AS n FROM sqlite_master`).get()).toEqual({ n: 0 });
    db.close();
  });
});
