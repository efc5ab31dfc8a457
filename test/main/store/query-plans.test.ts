/**
 * Every list / filter / sweeper query uses an index (every query is indexed and paginated).
 * EXPLAIN QUERY PLAN must show no full SCAN of runs (or of leases, interactions, events) for them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DISPLAY_STATUSES } from '../../../shared/display-status';
import { DEADLINE_SQL, EXPIRE_PRESENTERS_SQL } from '../../../main/store/interaction-deadlines';
import { EXPIRED_LEASES_SQL, STALE_LEASES_SQL } from '../../../main/store/leases';
import { triageCountsSql, triagePageSql } from '../../../main/store/needs-you-queue';
import { listRunsSql, unionIdsSql } from '../../../main/store/run-views';
import { CLAIM_NEXT_SQL } from '../../../main/store/runner-transitions';
import type { ListView } from '../../../main/store/store-types';
import { createTempStore, reserve, reserveAndClaim, type TempStore } from '../../helpers/temp-store';
import { expectHealthy } from './invariants';

let t: TempStore;
// A store per test, seeded the same way each time: no test sees another's writes.
beforeEach(() => {
  t = createTempStore();
  // A few rows and ANALYZE-free defaults: the plans must be index plans regardless of statistics.
  for (let i = 0; i < 20; i += 1) reserve(t);
  reserveAndClaim(t);
});
afterEach(() => {
  expectHealthy(t.store);
  t.cleanup();
});

const PARAMS = {
  now: 1,
  unattendedBefore: 0,
  view: 'queued',
  projectId: 1,
  cursor: 'run_x',
  limit: 51,
  search: 'a',
  floor: 'run_0',
  idFrom: '',
  projectIds: '[]',
  idTo: '',
  projects: null,
  exclude: null,
  requireCommand: 0,
  cGroup: 0,
  cDeadline: 0,
  cId: 'run_x',
};

function plan(sql: string, params: unknown = PARAMS): string[] {
  const stmt = t.store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const rows = (Array.isArray(params) ? stmt.all(...(params as unknown[])) : stmt.all(params)) as Array<{
    detail: string;
  }>;
  return rows.map((r) => r.detail);
}

/** A full table scan of one of the big tables (a SCAN that is not a walk of an index). */
function fullScans(details: string[]): string[] {
  return details.filter(
    (d) =>
      /^SCAN (r|x|q|l|runs|leases|interactions|events|queue_entries)\b/.test(d) &&
      !/USING (COVERING )?INDEX/.test(d),
  );
}

it('the scan detector itself catches a full scan (so these tests can fail)', () => {
  expect(fullScans(plan(`SELECT * FROM runs r WHERE r.title = 'x'`, []))).toEqual(['SCAN r']);
  expect(plan(listRunsSql('all', { project: false, search: true, cursor: false })).join(' | ')).toMatch(
    /^SCAN r USING/,
  );
});

describe('listRuns', () => {
  const views: ListView[] = [...DISPLAY_STATUSES, 'needs-you'];
  it.each(
    views.flatMap(
      (v) =>
        [
          [v, false],
          [v, true],
        ] as Array<[ListView, boolean]>,
    ),
  )('view %s (project filter: %s) searches an index, never scans runs', (view, project) => {
    for (const cursor of [false, true]) {
      const details = plan(listRunsSql(view, { project, search: false, cursor }));
      expect(fullScans(details), details.join(' | ')).toEqual([]);
      expect(
        details.some((d) => d.startsWith('SCAN r USING')),
        details.join(' | '),
      ).toBe(false);
      expect(
        details.some((d) => /^SEARCH (r|x) USING (COVERING )?INDEX/.test(d)),
        details.join(' | '),
      ).toBe(true);
    }
  });

  it('view all walks the id index newest first (no sort, no scan of the table)', () => {
    for (const project of [false, true]) {
      const details = plan(listRunsSql('all', { project, search: false, cursor: false }));
      expect(fullScans(details)).toEqual([]);
      expect(details.join(' | ')).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('the needs-you queue reads its runs through the needs-you indexes, a question through its own', () => {
    for (const project of [false, true]) {
      for (const cursor of [false, true]) {
        const filters = { project, search: null };
        for (const sql of [triagePageSql(filters, cursor), triageCountsSql(filters)]) {
          const details = plan(sql);
          expect(fullScans(details), details.join(' | ')).toEqual([]);
          expect(details.join(' | ')).toMatch(/runs_needs_you/);
          expect(details.join(' | ')).toMatch(/runs_owner_expiry/);
          expect(details.join(' | ')).toMatch(/runs_unattended/);
        }
        expect(plan(triagePageSql(filters, cursor)).join(' | ')).toMatch(/interactions_open/);
      }
    }
  });

  it('the needs-you count reads only the needs-you indexes', () => {
    const details = plan(`SELECT count(*) FROM (${unionIdsSql('needs-you')})`);
    expect(fullScans(details), details.join(' | ')).toEqual([]);
    expect(details.join(' | ')).toMatch(/runs_needs_you/);
    expect(details.join(' | ')).toMatch(/runs_owner_expiry/);
    expect(details.join(' | ')).toMatch(/runs_unattended/);
  });
});

describe('sweeper and runner queries', () => {
  it('expired leases use the unnoticed-expiry index', () => {
    const details = plan(EXPIRED_LEASES_SQL, [1, 10]);
    expect(fullScans(details)).toEqual([]);
    expect(details.join(' | ')).toMatch(/SEARCH l USING INDEX leases_unnoticed_expiry/);
  });

  it('stale leases use the expiry index', () => {
    const details = plan(STALE_LEASES_SQL, [1, 10]);
    expect(fullScans(details)).toEqual([]);
    expect(details.join(' | ')).toMatch(/SEARCH l USING INDEX leases_expiry/);
  });

  it('interaction deadlines and presenter expiry use their partial indexes', () => {
    expect(plan(DEADLINE_SQL, [1, 10]).join(' | ')).toMatch(
      /SEARCH interactions USING INDEX interactions_deadline/,
    );
    const presenters = plan(EXPIRE_PRESENTERS_SQL, [1, 10]);
    expect(presenters.join(' | ')).toMatch(/interactions_presenter/);
    expect(fullScans(presenters)).toEqual([]);
  });

  it('claimNext walks the claimable-queue index oldest first', () => {
    const details = plan(CLAIM_NEXT_SQL, { now: 1, projects: null, exclude: null, requireCommand: 0 });
    expect(fullScans(details), details.join(' | ')).toEqual([]);
    expect(details.join(' | ')).toMatch(/SEARCH q USING INDEX queue_claimable/);
  });

  it('events by sequence and by run use the primary key and the run index', () => {
    expect(plan(`SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, [1, 10]).join(' | ')).toMatch(
      /SEARCH events USING INTEGER PRIMARY KEY/,
    );
    expect(
      plan(`SELECT * FROM events WHERE run_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, ['r', 1, 10]).join(
        ' | ',
      ),
    ).toMatch(/SEARCH events USING INDEX events_run/);
  });
});
