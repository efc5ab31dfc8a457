/**
 * Needs you is answered by one of two plans (main/store/run-views.ts, NEEDS_YOU_WINDOW): the union of its
 * three index walks, or a walk of the newest runs down to the static branch's page floor. These tests build
 * stores where each is chosen, at page sizes small enough that a few dozen runs cross every threshold, and
 * hold both to the reducer: every page of every plan, and the two plans against each other at every cursor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY_OPTIONS, displayStatus } from '../../../shared/display-status';
import type { ListRow } from '../../../main/store/list-page';
import {
  listPageSql,
  listRuns,
  NEEDS_YOU_WINDOW,
  needsYouPlanSql,
  timeParams,
  type NeedsYouPlan,
} from '../../../main/store/run-views';
import { createContext, type StoreContext } from '../../../main/store/store-context';
import { createTempStore, reserve, runnerOwner, type TempStore } from '../../helpers/temp-store';
import { expectHealthy } from './invariants';

const DAY = 86_400_000;
const SHORT = 1_000;

let t: TempStore;
afterEach(() => {
  expectHealthy(t.store);
  t.cleanup();
});

/** A claimed, running run in `projectPath` (the temp project unless given). */
function running(leaseMs: number, projectPath?: string) {
  const run = reserve(t, projectPath === undefined ? {} : { projectPath });
  const claim = t.store.claimRun(run.id, { ...runnerOwner(), leaseMs }).claim;
  t.store.markRunning(claim);
  return claim;
}

/** A run waiting on a question with a live owner: needs you by its stored state alone (the static branch). */
function asking(projectPath?: string): string {
  const claim = running(DAY, projectPath);
  t.store.requestInteraction(claim, { kind: 'decision', title: 'Go?', choices: ['y', 'n'] });
  return claim.runId;
}

/** A running run whose owner stops heartbeating: needs you once SHORT has passed (a time range). */
function lapsing(projectPath?: string): string {
  return running(SHORT, projectPath).runId;
}

/** A running run with a live owner: never needs you here. */
function live(): string {
  return running(DAY).runId;
}

/** A queued run: needs you once it has waited unattendedQueueMs (the other time range). */
function queued(): string {
  return reserve(t).id;
}

function repeat(n: number, make: (projectPath?: string) => string, projectPath?: string): void {
  for (let i = 0; i < n; i += 1) make(projectPath);
}

/** Moves the clock past every short lease and the unattended cutoff, but not the day-long leases. */
function laterOn(): void {
  t.clock.advance(DEFAULT_DISPLAY_OPTIONS.unattendedQueueMs + SHORT + 1);
}

/** Needs you by the reducer, newest first, optionally in one project. */
function reducerNeedsYou(projectPath?: string): string[] {
  const ids = (t.store.db.prepare(`SELECT id FROM runs ORDER BY id DESC`).all() as Array<{ id: string }>).map(
    (r) => r.id,
  );
  const now = t.clock.now();
  return ids.filter((id) => {
    const snap = t.store.getSnapshot(id);
    if (projectPath !== undefined && snap.run.projectPath !== projectPath) return false;
    return displayStatus(snap, now).needsYou;
  });
}

function context(): { ctx: StoreContext; pages: string[] } {
  const s = t.store;
  const ctx = createContext(s.db, t.clock, DEFAULT_DISPLAY_OPTIONS, null, { liveness: s.liveness });
  const pages: string[] = [];
  const prep = ctx.prep.bind(ctx);
  ctx.prep = (sql: string) => {
    if (sql.includes('ORDER BY r.id DESC LIMIT @limit'))
      pages.push(sql.includes('+r.needs_you_static') ? 'walk' : 'union');
    return prep(sql);
  };
  return { ctx, pages };
}

interface Paging {
  ids: string[];
  /** The plan each page took, as listRuns ran it. */
  plans: string[];
}

/** Every page of Needs you through listRuns, `limit` at a time. */
function everyPage(ctx: StoreContext, pages: string[], limit: number, projectPath?: string): Paging {
  pages.length = 0;
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 1000; n += 1) {
    const res = listRuns(ctx, { view: 'needs-you', limit, cursor, projectPath }, t.clock.now());
    ids.push(...res.items.map((i) => i.run.id));
    if (res.nextCursor === null) return { ids, plans: [...pages] };
    cursor = res.nextCursor;
  }
  throw new Error('paging did not end');
}

function projectIdOf(projectPath: string): number {
  return (
    t.store.db.prepare(`SELECT id FROM projects WHERE canonical_path = ?`).get(projectPath) as { id: number }
  ).id;
}

/**
 * Both plans' pages at every cursor the union's paging passes, compared with each other: the walk is run
 * down to the plan's floor whatever the plan chose (where the static branch has a floor at all).
 */
function expectPlansAgree(ctx: StoreContext, limit: number, projectPath?: string): number {
  const project = projectPath !== undefined;
  let compared = 0;
  let cursor: string | null = null;
  for (let n = 0; n < 1000; n += 1) {
    const shape = { project, search: false, cursor: cursor !== null };
    const params: Record<string, unknown> = { ...timeParams(ctx, t.clock.now()), limit: limit + 1 };
    if (project) params.projectId = projectIdOf(projectPath);
    if (cursor !== null) params.cursor = cursor;
    const union = (ctx.prep(listPageSql('needs-you', shape)).all(params) as ListRow[]).map((r) => r.id);
    const plan = ctx.prep(needsYouPlanSql(shape)).get(params) as NeedsYouPlan | undefined;
    if (plan !== undefined) {
      const walk = ctx
        .prep(listPageSql('needs-you', { ...shape, walk: true, floor: true }))
        .all({ ...params, floor: plan.floor }) as ListRow[];
      expect(
        walk.map((r) => r.id),
        `cursor ${cursor}`,
      ).toEqual(union);
      compared += 1;
    }
    if (union.length <= limit) return compared;
    cursor = union[limit - 1] as string;
  }
  throw new Error('paging did not end');
}

describe('Needs you: the walk and the union', () => {
  it('a dense store walks its newest runs, pages into the union where the static runs run out, and both are exact', () => {
    t = createTempStore();
    // Oldest first: many lapsing and queued runs (the union's time ranges), then needs-you runs packed
    // among live ones at the top (the walk's window).
    repeat(30, lapsing);
    repeat(20, queued);
    for (let i = 0; i < 12; i += 1) {
      asking();
      repeat(2, live);
      lapsing();
    }
    // The newest page is static runs alone: the floor run itself is on it.
    repeat(4, asking);
    laterOn();
    const { ctx, pages } = context();
    for (const limit of [1, 2, 3, 5]) {
      const got = everyPage(ctx, pages, limit);
      expect(got.ids, `limit ${limit}`).toEqual(reducerNeedsYou());
      // The first pages walk; below the last static runs there is no floor, and the union answers.
      expect(got.plans[0], `limit ${limit}`).toBe('walk');
      expect(got.plans, `limit ${limit}`).toContain('union');
      expect(expectPlansAgree(ctx, limit), `limit ${limit}`).toBeGreaterThan(2);
    }
  });

  it('a store whose static page lies deeper than the window takes the union', () => {
    t = createTempStore();
    // Two needs-you runs at the bottom and more than a window of runs above them, many of them lapsing:
    // a walk down to the floor would read every one of them.
    repeat(2, asking);
    repeat(NEEDS_YOU_WINDOW * 2, lapsing);
    repeat(10, live);
    laterOn();
    const { ctx, pages } = context();
    const got = everyPage(ctx, pages, 1);
    expect(got.ids).toEqual(reducerNeedsYou());
    expect(got.plans[0]).toBe('union');
    const plan = ctx
      .prep(needsYouPlanSql({ project: false, cursor: false }))
      .get({ ...timeParams(ctx, t.clock.now()), limit: 2 }) as NeedsYouPlan;
    expect(plan.walk).toBe(0);
    expect(expectPlansAgree(ctx, 1)).toBeGreaterThan(0);
  });

  it('a store with few lapsed or unattended runs takes the union, which walks only those few', () => {
    t = createTempStore();
    for (let i = 0; i < 10; i += 1) {
      asking();
      repeat(3, live);
    }
    lapsing();
    laterOn();
    const { ctx, pages } = context();
    const got = everyPage(ctx, pages, 2);
    expect(got.ids).toEqual(reducerNeedsYou());
    expect(new Set(got.plans)).toEqual(new Set(['union']));
    expect(expectPlansAgree(ctx, 2)).toBeGreaterThan(2);
  });

  it('a project filter plans within the project', () => {
    t = createTempStore();
    const other = path.join(t.dir, 'other');
    fs.mkdirSync(other);
    // The other project is dense at the top; this one has its needs-you runs spread below.
    repeat(20, lapsing);
    for (let i = 0; i < 8; i += 1) {
      asking();
      repeat(3, lapsing, other);
    }
    for (let i = 0; i < 8; i += 1) {
      asking(other);
      lapsing();
    }
    laterOn();
    const { ctx, pages } = context();
    const plans = new Set<string>();
    for (const projectPath of [t.projectDir, other]) {
      for (const limit of [1, 2, 4]) {
        const got = everyPage(ctx, pages, limit, projectPath);
        expect(got.ids, `${projectPath} limit ${limit}`).toEqual(reducerNeedsYou(projectPath));
        expect(expectPlansAgree(ctx, limit, projectPath)).toBeGreaterThan(0);
        for (const plan of got.plans) plans.add(plan);
      }
    }
    expect(plans).toEqual(new Set(['walk', 'union']));
  });
});
