/**
 * Store invariants checked after every transition in the store tests:
 * valid (run, queue) status pairs, at most one active attempt per run, lease owner columns all-null or
 * all-set, events append-only with each run's revisions +1 each, denormalised counters true.
 */
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { RunStore } from '../../../main/store/run-store';
import { VALID_STATUS_PAIRS } from '../../../main/store/doctor';
import type { QueueStatus, RunStatus } from '../../../shared/domain';

interface EventRowLite {
  seq: number;
  run_id: string | null;
  run_revision: number | null;
  type: string;
  payload_json: string;
  at: number;
}

export function expectInvariants(store: RunStore): void {
  const db = store.db;
  const pairs = db
    .prepare(
      `SELECT r.id, r.status AS rs, q.status AS qs FROM runs r JOIN queue_entries q ON q.run_id = r.id`,
    )
    .all() as Array<{
    id: string;
    rs: RunStatus;
    qs: QueueStatus;
  }>;
  for (const p of pairs) {
    expect(VALID_STATUS_PAIRS[p.rs], `run ${p.id} ${p.rs}/${p.qs}`).toContain(p.qs);
  }
  const active = db
    .prepare(
      `SELECT run_id, count(*) AS n FROM attempts WHERE status IN ('pending','running','waiting') GROUP BY run_id HAVING n > 1`,
    )
    .all();
  expect(active, 'at most one active attempt per run').toEqual([]);
  const badLeases = db
    .prepare(
      `SELECT name FROM leases WHERE NOT (
         (owner_type IS NULL AND owner_id IS NULL AND token_hash IS NULL AND owner_pid IS NULL AND owner_hostname IS NULL
          AND owner_start_id IS NULL AND acquired_at IS NULL AND heartbeat_at IS NULL AND expires_at IS NULL)
         OR (owner_type IS NOT NULL AND owner_id IS NOT NULL AND token_hash IS NOT NULL AND owner_pid IS NOT NULL
          AND owner_hostname IS NOT NULL AND acquired_at IS NOT NULL AND heartbeat_at IS NOT NULL AND expires_at IS NOT NULL))`,
    )
    .all();
  expect(badLeases, 'lease owner columns all-null or all-set').toEqual([]);
  const terminalOwned = db
    .prepare(
      `SELECT r.id FROM runs r JOIN leases l ON l.run_id = r.id
       WHERE r.status IN ('completed','failed','timed_out','cancelled') AND l.owner_type IS NOT NULL`,
    )
    .all();
  expect(terminalOwned, 'finished runs hold no lease').toEqual([]);
  // Each run's events carry revisions 1, 2, ..., run.revision in sequence order.
  const runs = db.prepare(`SELECT id, revision FROM runs`).all() as Array<{ id: string; revision: number }>;
  for (const run of runs) {
    const revisions = (
      db
        .prepare(`SELECT run_revision FROM events WHERE run_id = ? AND run_revision IS NOT NULL ORDER BY seq`)
        .all(run.id) as Array<{ run_revision: number }>
    ).map((r) => r.run_revision);
    expect(revisions, `revisions of ${run.id}`).toEqual(
      Array.from({ length: run.revision }, (_, i) => i + 1),
    );
  }
  expectSearchIndexTrue(db);
  expectRunCountsTrue(store);
  expect(store.doctor().contradictions).toEqual([]);
}

/** `run_counts` (kept by the code that moves a run's display status, migration 0012) agrees with the runs. */
export function expectRunCountsTrue(store: Pick<RunStore, 'doctor'>): void {
  expect(store.doctor().counterDrift, 'run_counts agrees with the runs').toEqual([]);
}

/**
 * The search index (migration 0003) holds exactly one entry per run, under that run's key, with its title
 * and workflow: each run is found by its own title and workflow (3+ characters; the index folds case).
 */
export function expectSearchIndexTrue(db: Database.Database): void {
  const keyed = db
    .prepare(
      `SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM run_search_keys) AS keys,
         (SELECT count(*) FROM run_search_keys k JOIN runs r ON r.id = k.run_id) AS joined,
         (SELECT count(*) FROM run_search) AS indexed`,
    )
    .get() as { runs: number; keys: number; joined: number; indexed: number };
  expect(keyed, 'one search key and one index entry per run').toEqual({
    runs: keyed.runs,
    keys: keyed.runs,
    joined: keyed.runs,
    indexed: keyed.runs,
  });
  db.prepare(`INSERT INTO run_search (run_search) VALUES ('integrity-check')`).run();
  // No `rowid = ?` next to MATCH: FTS5 (3.53) ignores a bound rowid constraint there and returns every match.
  const found = db.prepare(`SELECT rowid AS key FROM run_search WHERE run_search MATCH ?`).pluck();
  const rows = db
    .prepare(`SELECT r.id, r.title, r.workflow, k.key FROM runs r JOIN run_search_keys k ON k.run_id = r.id`)
    .all() as Array<{ id: string; title: string; workflow: string; key: number }>;
  for (const row of rows) {
    for (const [column, text] of [
      ['title', row.title],
      ['workflow', row.workflow],
    ] as const) {
      if ([...text].length < 3) continue;
      const phrase = `${column} : "${text.replaceAll('"', '""')}"`;
      expect(found.all(phrase), `${row.id} found by its ${column}`).toContain(row.key);
    }
  }
}

/** Watches the event log: earlier events never change, new ones only append with larger seq. */
export class EventLogWatch {
  #seen: EventRowLite[] = [];
  constructor(private readonly store: RunStore) {
    this.#seen = this.#all();
  }

  #all(): EventRowLite[] {
    return this.store.db
      .prepare(`SELECT seq, run_id, run_revision, type, payload_json, at FROM events ORDER BY seq`)
      .all() as EventRowLite[];
  }

  /** Checks append-only and returns the types appended since the last check. */
  check(): string[] {
    const now = this.#all();
    assert.deepEqual(now.slice(0, this.#seen.length), this.#seen, 'events are append-only');
    const added = now.slice(this.#seen.length);
    this.#seen = now;
    return added.map((e) => e.type);
  }
}

/** integrity_check + foreign_key_check; the end of every store test file. */
export function expectHealthy(store: RunStore): void {
  expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(store.db.pragma('foreign_key_check')).toEqual([]);
}
