/**
 * A list page is one statement (main/store/list-page.ts): its rows' queue entries, leases, open questions and
 * ambiguous effects are joined into the page query. These tests hold it to what the per-row reads return
 * (`loadDisplaySnapshot`: four statements per run, every column of every open question and ambiguous
 * effect), for every view, with and without a project filter, a search or a cursor.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { profileSql } from '../../../bench/sql-profile';
import { DEFAULT_DISPLAY_OPTIONS, DISPLAY_STATUSES, displayStatus } from '../../../shared/display-status';
import { isRunwardenError } from '../../../shared/errors';
import type { FullRunListItem } from '../../../shared/views';
import { listRowSnapshot, type ListRow } from '../../../main/store/list-page';
import { findRunRow, loadDisplaySnapshot, ownerLiveness } from '../../../main/store/run-state';
import { listPageSql, listRunsSql } from '../../../main/store/run-views';
import { createContext, type WritableDB } from '../../../main/store/store-context';
import type { Claim, ListView } from '../../../main/store/store-types';
import {
  createTempStore,
  HUMAN,
  reserve,
  RUNNER_ACTOR,
  runnerOwner,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';

const LEASE = 30_000;
const VIEWS: ListView[] = ['all', 'needs-you', ...DISPLAY_STATUSES];

let t: TempStore;
let other: string;
let ctx: WritableDB;

/** What a page row was before: the per-row reads, mapped the way listRuns maps them. */
function perRowItem(id: string, now: number): FullRunListItem {
  const row = findRunRow(ctx, id);
  if (row === undefined) throw new Error(`no run ${id}`);
  const snapshot = loadDisplaySnapshot(ctx, row);
  let nextDeadlineAt: number | null = null;
  for (const i of snapshot.interactions) {
    if (i.deadlineAt !== null) nextDeadlineAt = Math.min(nextDeadlineAt ?? i.deadlineAt, i.deadlineAt);
  }
  return {
    run: snapshot.run,
    queue: snapshot.queue,
    lease: snapshot.lease,
    display: displayStatus(snapshot, now, ctx.displayOptions, ownerLiveness(ctx, snapshot)),
    openInteractions: row.open_interactions,
    ambiguousEffects: row.ambiguous_effects,
    nextDeadlineAt,
    askedAt: snapshot.interactions[0]?.createdAt ?? null,
  };
}

function everyPage(view: ListView, more: { projectPath?: string; search?: string } = {}): FullRunListItem[] {
  const out: FullRunListItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page += 1) {
    const res = t.store.listRuns({ view, limit: 4, cursor, ...more });
    out.push(...res.items);
    if (res.nextCursor === null) return out;
    cursor = res.nextCursor;
  }
  throw new Error('paging did not end');
}

/** The seeded store every test here reads: a fresh one for each test that writes (see each describe). */
function seedStore(): void {
  t = createTempStore();
  other = path.join(t.dir, 'other');
  fs.mkdirSync(other);
  const s = t.store;
  ctx = createContext(s.db, t.clock, DEFAULT_DISPLAY_OPTIONS, null, { liveness: s.liveness });
  const claimed = (title: string, projectPath = t.projectDir, leaseMs = LEASE): Claim => {
    const run = s.reserveRun({ projectPath, workflow: 'w', title }, RUNNER_ACTOR);
    return s.claimRun(run.id, { ...runnerOwner(), leaseMs }).claim;
  };
  const ambiguous = (claim: Claim, key: string, summary: string) => {
    const e = s.reserveEffect(claim, { type: 't', idempotencyKey: key, summary });
    s.beginEffect(claim, e.id);
    s.settleEffect(claim, e.id, 'ambiguous');
    return e;
  };

  reserve(t, { title: 'queued' });
  s.markRunning(claimed('running'));
  // Two open questions (one being presented) and a settled one: the reason names the oldest open one, the
  // deadline is the soonest of the open ones, and the settled one counts for nothing.
  const asking = claimed('two questions');
  const settled = s.requestInteraction(asking, {
    kind: 'decision',
    title: 'Already answered',
    choices: ['y'],
    deadlineAt: t.clock.now() + 500,
  });
  s.answerInteraction(settled.id, {
    interactionRevision: 1,
    idempotencyKey: 'a',
    payload: 'y',
    actor: HUMAN,
  });
  t.clock.advance(10);
  s.requestInteraction(asking, {
    kind: 'decision',
    title: 'First: go "now"?',
    choices: ['y', 'n'],
    deadlineAt: t.clock.now() + 90_000,
  });
  t.clock.advance(10);
  const second = s.requestInteraction(asking, {
    kind: 'input',
    title: 'Second — ünïcode',
    fields: [{ name: 'a', type: 'string' }],
    deadlineAt: t.clock.now() + 60_000,
  });
  s.presentInteraction(second.id, 'window-1', 30_000);
  const noDeadline = claimed('question without deadline', other);
  s.requestInteraction(noDeadline, { kind: 'decision', title: 'Whenever', choices: ['ok'] });
  // Ambiguous effects beside settled ones, on a live run, a parked run and a finished one.
  const liveAmb = claimed('live, two ambiguous effects');
  ambiguous(liveAmb, 'k1', 'deploy one');
  const applied = s.reserveEffect(liveAmb, { type: 't', idempotencyKey: 'k2', summary: 'applied' });
  s.beginEffect(liveAmb, applied.id);
  s.settleEffect(liveAmb, applied.id, 'applied');
  ambiguous(liveAmb, 'k3', 'deploy two');
  const parked = claimed('parked, ambiguous', other);
  ambiguous(parked, 'k', 'charge the card');
  s.park(parked, 'effectAmbiguous');
  const resolvedLater = claimed('ambiguous, then resolved');
  const r = ambiguous(resolvedLater, 'k', 'resolved');
  s.park(resolvedLater, 'effectAmbiguous');
  s.resolveEffect(r.id, {
    resolution: 'applied',
    note: 'seen',
    expectedRevision: s.getRun(resolvedLater.runId).revision,
    actor: HUMAN,
  });
  const cancelledMidEffect = claimed('cancelled mid-effect');
  const e = s.reserveEffect(cancelledMidEffect, { type: 'bank', idempotencyKey: 'k', summary: 'pay' });
  s.beginEffect(cancelledMidEffect, e.id);
  s.cancelOwnRun(cancelledMidEffect, 'asked to');
  const lost = claimed('runner lost');
  s.markRunnerGone(lost.runId, lost.generation, 'pid gone', SWEEPER);
  const orphan = claimed('orphaned command');
  s.markOrphaned(orphan.runId, orphan.generation, SWEEPER);
  claimed('short lease', other, 5_000);
  s.completeRun(claimed('completed'));
  s.failRun(claimed('failed'), 'boom\nsecond line');
  s.timeOutRun(claimed('timed out'));
  const paused = reserve(t, { title: 'paused' });
  s.pauseRun(paused.id, { expectedRevision: 1, reason: 'hold', actor: HUMAN });
  for (let i = 0; i < 6; i += 1)
    reserve(t, { title: `filler ${i}`, projectPath: i % 2 === 0 ? other : t.projectDir });
  expectInvariants(s);
}

function dropStore(): void {
  expectHealthy(t.store);
  t.cleanup();
}

describe('a page row against the per-row reads', () => {
  beforeEach(seedStore);
  afterEach(dropStore);

  it('the extras are the open questions and ambiguous effects, in the per-row order', () => {
    const rows = ctx
      .prep(listPageSql('all', { project: false, search: false, cursor: false }))
      .all({ now: t.clock.now(), unattendedBefore: 0, limit: 1000 }) as ListRow[];
    let questions = 0;
    let effects = 0;
    for (const row of rows) {
      const before = loadDisplaySnapshot(
        ctx,
        findRunRow(ctx, row.id) as NonNullable<ReturnType<typeof findRunRow>>,
      );
      const now = listRowSnapshot(row);
      expect(now.run).toEqual(before.run);
      expect(now.queue).toEqual(before.queue);
      expect(now.lease).toEqual(before.lease);
      expect(now.interactions, row.title).toEqual(
        before.interactions.map((i) => ({
          status: i.status,
          title: i.title,
          deadlineAt: i.deadlineAt,
          createdAt: i.createdAt,
        })),
      );
      expect(now.effects, row.title).toEqual(
        before.effects.map((x) => ({ status: x.status, summary: x.summary })),
      );
      questions += now.interactions.length;
      effects += now.effects.length;
    }
    // The seeded store has what this compares: several questions on one run, several effects on another.
    expect(questions).toBe(3);
    expect(effects).toBe(4);
    expect(rows.find((r) => r.title === 'two questions')?.open_json).toContain('First: go \\"now\\"?');
  });

  it('every view, at several times, lists what the per-row reads give, with and without filters', () => {
    const asking = t.store.listRuns({ view: 'all', limit: 100, search: 'two questions' }).items[0];
    expect(asking?.display.reason).toBe('2 questions waiting');
    expect(asking?.openInteractions).toBe(2);
    expect(asking?.nextDeadlineAt).toBe(perRowItem(asking?.run.id ?? '', t.clock.now()).nextDeadlineAt);
    expect(asking?.nextDeadlineAt).not.toBeNull();
    const projects = [fs.realpathSync(t.projectDir), fs.realpathSync(other)];
    for (const step of [0, 6_000, 5 * 60_000]) {
      t.clock.advance(step);
      const now = t.clock.now();
      let compared = 0;
      for (const view of VIEWS) {
        const filters: Array<{ projectPath?: string; search?: string }> = [
          {},
          ...projects.map((projectPath) => ({ projectPath })),
          // A 3+ character needle takes the trigram index, a short one the scan.
          { search: 'question' },
          { search: 'ambiguous' },
          { search: 'e' },
          { search: 'deploy', projectPath: projects[0] as string },
        ];
        for (const filter of filters) {
          for (const { triageGroup: _group, ...item } of everyPage(view, filter)) {
            expect(item, `${view} ${JSON.stringify(filter)} ${item.run.title}`).toEqual(
              perRowItem(item.run.id, now),
            );
            compared += 1;
          }
        }
      }
      expect(compared).toBeGreaterThan(150);
    }
  });

  it('a page is one statement, whatever its view (Needs you reads its queue order, then its counts)', () => {
    const probe = t.reopen();
    try {
      const profiler = profileSql(probe.db);
      for (const view of VIEWS) {
        for (const limit of [1, 50]) {
          const profile = profiler.measure(() => probe.listRuns({ view, limit }));
          // Needs you: its keys in queue order, the page's rows, and (first page) the group counts: never
          // one statement per row (needs-you-queue.ts).
          expect(profile.statements, `${view}, limit ${limit}`).toBe(view === 'needs-you' ? 3 : 1);
        }
      }
    } finally {
      probe.close();
    }
  });

  it('a run without its queue entry or lease row is refused with INTERNAL, not left out', () => {
    const s = createTempStore();
    try {
      const refusal = () => {
        try {
          s.store.listRuns({ view: 'all', limit: 10 });
        } catch (error) {
          return isRunwardenError(error) ? `${error.code}: ${error.message}` : String(error);
        }
        return 'listed';
      };
      const run = reserve(s);
      expect(refusal()).toBe('listed');
      const queue = s.store.db.prepare(`SELECT * FROM queue_entries WHERE run_id = ?`).get(run.id);
      s.store.db.prepare(`DELETE FROM queue_entries WHERE run_id = ?`).run(run.id);
      expect(refusal()).toBe(`INTERNAL: Run ${run.id} has no queue entry.`);
      s.store.db
        .prepare(
          `INSERT INTO queue_entries VALUES (@run_id, @status, @available_at, @error_code, @error_detail, @consecutive_errors, @updated_at)`,
        )
        .run(queue);
      expect(refusal()).toBe('listed');
      s.store.db.prepare(`DELETE FROM leases WHERE run_id = ?`).run(run.id);
      expect(refusal()).toBe(`INTERNAL: Run ${run.id} has no lease row.`);
    } finally {
      s.cleanup();
    }
  });
});

/** The plan's lines about the page query (not the joined queue entry, lease, questions and effects). */
/** The store file's bytes, hashed. */
function digest(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function pagePlan(db: Database.Database, sql: string, params: Record<string, unknown>): string[] {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>;
  return rows
    .map((r) => r.detail.replace(/(SUBQUERY |subquery-)\d+/g, '$1n'))
    .filter(
      (d) =>
        !/^(SEARCH|SCAN) (q|l|i|e)\b/.test(d) &&
        !d.startsWith('CORRELATED SCALAR SUBQUERY') &&
        !d.includes('json_group_array') &&
        !/^(CO-ROUTINE|MATERIALIZE|SCAN) page\b/.test(d),
    );
}

describe('the joins leave the page query as it was', () => {
  // These 150 tests only EXPLAIN statements. They share one seeded file instead of seeding it 150 times,
  // each through its own read-only connection (SQLite refuses it any write), and the file's bytes are
  // checked unchanged after them all, so no test can see another's doing.
  let file: string;
  let bytes: string;
  let db: Database.Database;
  beforeAll(() => {
    seedStore();
    t.store.checkpoint();
    file = t.path;
    bytes = digest(file);
  });
  afterAll(() => {
    // A hook's throw fails the file, whatever order the tests ran in.
    if (digest(file) !== bytes) throw new Error('a plan test changed the shared store file');
    dropStore();
  });
  beforeEach(() => {
    db = new Database(file, { readonly: true, fileMustExist: true });
  });
  afterEach(() => db.close());
  const params = {
    now: 1,
    unattendedBefore: 0,
    projectId: 1,
    cursor: 'run_z',
    limit: 51,
    search: 'abc',
    idFrom: '',
    projectIds: '[]',
    idTo: '',
    match: '"abc"',
    floor: 'run_0',
  };
  const shapes = VIEWS.flatMap((view) =>
    [false, true].flatMap((project) =>
      (['none', 'scan', 'index', 'floor'] as const).map((mode) => ({ view, project, mode })),
    ),
  );

  it.each(shapes)(
    '$view, project $project, search $mode: same plan for the page',
    ({ view, project, mode }) => {
      const shape = {
        project,
        search: mode !== 'none',
        cursor: true,
        indexedSearch: mode === 'index',
        floor: mode === 'floor',
      };
      const page = pagePlan(db, listRunsSql(view, shape), params);
      const full = pagePlan(db, listPageSql(view, shape), params);
      expect(full).toEqual(page);
      const details = (
        db.prepare(`EXPLAIN QUERY PLAN ${listPageSql(view, shape)}`).all(params) as Array<{
          detail: string;
        }>
      ).map((r) => r.detail);
      // The joined rows are looked up by run id, never scanned.
      expect(details.filter((d) => /^SCAN (q|l|i|e)\b/.test(d))).toEqual([]);
      // A search's page is taken first (its plan may sort many candidates); the extras follow for its rows.
      if (shape.search) expect(details.join(' | ')).toMatch(/(CO-ROUTINE|MATERIALIZE) page/);
    },
  );
});
