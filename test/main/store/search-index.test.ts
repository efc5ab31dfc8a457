/**
 * Search through the trigram index (migration 0003) returns exactly what the substring scan returned:
 * a case-insensitive (ASCII, as SQLite's lower()) substring of the title or the workflow, or the start of a
 * run id (at least four characters after `run_`, which the needle may leave off). Checked against an independent oracle in JS over a varied store: mixed case, non-ASCII letters,
 * quotes and FTS5 query syntax in titles and needles, 1–2 character needles (the scan path), every view,
 * with and without a project filter, paged by cursor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ListView } from '../../../main/store/store-types';
import { listRunsSql } from '../../../main/store/run-views';
import {
  indexedMatchesMax,
  searchMode,
  searchPlan,
  SEARCH_PLAN_TTL_MS,
  searchWalkRows,
  walkFloorSql,
} from '../../../main/store/search-plan';
import { createContext } from '../../../main/store/store-context';
import { DEFAULT_DISPLAY_OPTIONS } from '../../../shared/display-status';
import { seededRandom } from '../../../bench/random';
import { createTempStore, HUMAN, reserve, runnerOwner, type TempStore } from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';

let t: TempStore;
let otherProject: string;

const WORDS = [
  'Deploy',
  'nightly-ETL',
  'Warehouse',
  'ÉTÉ',
  'été',
  'Straße',
  'İstanbul',
  'ΣΊΣΥΦΟΣ',
  'naïve',
  '日本語',
  'emoji 🚀 launch',
  'say "hi"',
  'a*b',
  'x-y',
  'col:umn',
  '(paren)',
  'NEAR',
  'AND',
  'OR',
  'NOT',
  '^caret',
  'back\\slash',
  'tab\there',
  'MiXeD',
  'zebracanary',
  '  two  spaces ',
  'ab',
  'q',
];
const WORKFLOWS = ['build', 'nightly-etl', 'Deploy-Prod', 'ÉTL', 'db:migrate', 'x'];

/** SQLite's lower(): ASCII only (no ICU). */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

// A store per test, seeded the same way each time: no test sees another's writes.
beforeEach(() => {
  t = createTempStore();
  otherProject = path.join(t.dir, 'other');
  fs.mkdirSync(otherProject);
  const rng = seededRandom(7);
  for (let i = 0; i < 160; i += 1) {
    const title = `${rng.pick(WORDS)} ${rng.pick(WORDS)}${rng.chance(0.3) ? ` ${rng.pick(WORDS)}` : ''}`;
    const run = reserve(t, {
      title,
      workflow: rng.pick(WORKFLOWS),
      projectPath: rng.chance(0.3) ? otherProject : t.projectDir,
    });
    const fate = rng.int(0, 4);
    if (fate === 1) t.store.claimRun(run.id, { ...runnerOwner(), leaseMs: 30_000 });
    if (fate === 2) t.store.cancelRun(run.id, { reason: 'test', actor: HUMAN });
    if (fate === 3) {
      const { claim } = t.store.claimRun(run.id, { ...runnerOwner(), leaseMs: 30_000 });
      t.store.completeRun(claim);
    }
    t.clock.advance(1_000);
  }
});
afterEach(() => {
  expectInvariants(t.store);
  expectHealthy(t.store);
  t.cleanup();
});

function allPages(query: { view: ListView; search?: string; projectPath?: string }, limit = 7): string[] {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = t.store.listRuns({ ...query, limit, ...(cursor !== null && { cursor }) });
    ids.push(...page.items.map((i) => i.run.id));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return ids;
}

/** The oracle's id rule: the id begins with the needle, `run_` optional, four or more characters after it. */
function idStartsWith(id: string, lowered: string): boolean {
  const prefix = lowered.startsWith('run_') ? lowered : `run_${lowered}`;
  return /^run_[0-9a-z]{4,}$/.test(prefix) && id.startsWith(prefix);
}

function expected(view: ListView, needle: string, projectPath: string | undefined): string[] {
  const trimmed = needle.trim();
  const lowered = trimmed.toLowerCase();
  return allPages({ view, ...(projectPath !== undefined && { projectPath }) }).filter((id) => {
    const run = t.store.getRun(id);
    return (
      asciiLower(run.title).includes(lowered) ||
      asciiLower(run.workflow).includes(lowered) ||
      asciiLower(run.projectPath).includes(lowered) ||
      idStartsWith(run.id, lowered)
    );
  });
}

function needles(): string[] {
  const rng = seededRandom(11);
  const runs = allPages({ view: 'all' }).map((id) => t.store.getRun(id));
  const out = [
    // Project paths: the other project's folder name, and a fragment every temp path shares.
    path.basename(otherProject),
    path.basename(t.dir).slice(0, 6),
    'deploy',
    'DEPLOY',
    'nightly-etl',
    'été',
    'ÉTÉ',
    'straße',
    'STRASSE',
    'i̇st',
    'İst',
    'ist',
    'σίσυφος',
    'ΣΊΣ',
    'naïve',
    '日本',
    '本語',
    '🚀',
    'say "hi"',
    '"hi"',
    '"',
    '""',
    'a*b',
    '*',
    'x-y',
    'col:umn',
    ':umn',
    '(paren',
    'near',
    'and',
    'or ',
    ' not',
    '^car',
    'back\\',
    '\\',
    '\there',
    'mixed',
    ' two  ',
    'o  s',
    'zebracanary',
    'nomatchatall',
    'ab',
    'q',
    'é',
    'ß',
    ' ',
    'db:',
    'etl',
    'ÉTL',
    'étl',
    runs[3]!.id,
    runs[3]!.id.toUpperCase(),
    `  ${runs[10]!.id} `,
    runs[20]!.id.slice(4, 12),
    runs[30]!.id.slice(0, 12),
    runs[40]!.id.slice(4, 7),
    runs[50]!.id.slice(-10),
  ];
  for (let i = 0; i < 40; i += 1) {
    const run = rng.pick(runs);
    const text = rng.chance(0.7) ? run.title : run.workflow;
    const from = rng.int(0, Math.max(0, text.length - 3));
    const piece = text.slice(from, from + rng.int(1, 8));
    out.push(rng.chance(0.5) ? piece.toUpperCase() : piece);
  }
  return out.filter((n) => n.trim() !== '');
}

describe('search by index agrees with the substring scan', () => {
  const views: ListView[] = ['all', 'queued', 'running', 'cancelled', 'completed', 'needs-you', 'parked'];

  it('the needles exercise both paths (index for 3+ characters, scan for 1–2)', () => {
    const modes = needles().map((n) => searchMode(n.trim().toLowerCase()));
    expect(modes.filter((m) => m === 'index').length).toBeGreaterThan(40);
    expect(modes.filter((m) => m === 'scan').length).toBeGreaterThan(5);
  });

  it('in the All view, 3+ character needles take both plans: more than a page of candidates the walk, fewer the index', () => {
    const ctx = createContext(t.store.db, t.clock, DEFAULT_DISPLAY_OPTIONS, null);
    const indexed = needles()
      .map((n) => n.trim().toLowerCase())
      .filter((n) => searchMode(n) === 'index');
    const plans = indexed.map((n) => searchPlan(ctx, 'all', n, 7));
    expect(plans.filter((p) => p === 'walk').length).toBeGreaterThan(10);
    expect(plans.filter((p) => p === 'index').length).toBeGreaterThan(10);
    // A needle only the project path holds (every run of that project) takes the unbounded scan.
    expect(searchPlan(ctx, 'all', path.basename(otherProject).toLowerCase(), 7)).toBe('scan');
    // Other views keep the index: their rows are a subset, so a newest-first walk would not stop early.
    for (const n of indexed) expect(searchPlan(ctx, 'completed', n, 7)).toBe('index');
  });

  it('a walk whose window holds less than a page falls back to the index: same rows at every page size', () => {
    // 160 runs: a window of searchWalkRows(limit) runs is smaller than the store for pages of 1 and 2, so
    // walks fill pages from their window (the page of 7 above always walks the whole store); a window with
    // no match at all is the next describe's.
    expect(searchWalkRows(1)).toBeLessThan(160);
    const ctx = createContext(t.store.db, t.clock, DEFAULT_DISPLAY_OPTIONS, null);
    const floor = t.store.db.prepare(walkFloorSql({ project: false, cursor: false }));
    expect(floor.get({ walkRows: searchWalkRows(1) })).toBeDefined();
    let walked = 0;
    for (const needle of needles()) {
      const lowered = needle.trim().toLowerCase();
      if (searchMode(lowered) === 'index' && searchPlan(ctx, 'all', lowered, 1) === 'walk') walked += 1;
      for (const projectPath of [undefined, otherProject]) {
        const want = expected('all', needle, projectPath);
        for (const limit of [1, 2]) {
          const got = allPages(
            { view: 'all', search: needle, ...(projectPath !== undefined && { projectPath }) },
            limit,
          );
          expect(
            got,
            `search ${JSON.stringify(needle)}, project ${projectPath ?? 'any'}, page ${limit}`,
          ).toEqual(want);
        }
      }
    }
    expect(walked).toBeGreaterThan(10);
  });

  it.each(views)('view %s: every needle, all projects and one project, paged', (view) => {
    let nonEmpty = 0;
    for (const needle of needles()) {
      for (const projectPath of [undefined, otherProject]) {
        const want = expected(view, needle, projectPath);
        const got = allPages({ view, search: needle, ...(projectPath !== undefined && { projectPath }) });
        expect(
          got,
          `view ${view}, search ${JSON.stringify(needle)}, project ${projectPath ?? 'any'}`,
        ).toEqual(want);
        if (want.length > 0) nonEmpty += 1;
      }
    }
    // The comparison means something: most needles find runs in the broad views.
    if (view === 'all') expect(nonEmpty).toBeGreaterThan(60);
  });

  it('the indexed query reads the trigram index and never scans runs', () => {
    for (const view of views) {
      for (const project of [false, true]) {
        const details = (
          t.store.db
            .prepare(
              `EXPLAIN QUERY PLAN ${listRunsSql(view, { project, search: true, cursor: true, indexedSearch: true })}`,
            )
            .all({
              now: 1,
              unattendedBefore: 0,
              view,
              projectId: 1,
              cursor: 'run_z',
              limit: 51,
              search: 'abc',
              idFrom: '',
              projectIds: '[]',
              idTo: '',
              match: '"abc"',
            }) as Array<{ detail: string }>
        ).map((r) => r.detail);
        const plan = details.join(' | ');
        expect(plan, `${view} ${project}`).toMatch(/run_search VIRTUAL TABLE INDEX \d+:M/);
        expect(
          details.filter((d) => /^SCAN (r|runs)\b/.test(d)),
          `${view} ${project}: ${plan}`,
        ).toEqual([]);
      }
    }
  });
});

describe('a walk whose window misses every match', () => {
  it('falls back to the index: a word common in old runs is found though the newest runs lack it', () => {
    const s = createTempStore();
    try {
      const ctx = createContext(s.store.db, s.clock, DEFAULT_DISPLAY_OPTIONS, null);
      for (let i = 0; i < 30; i += 1) reserve(s, { title: `wombat ${i}`, workflow: 'w' });
      const old = s.store.listRuns({ view: 'all', limit: 30 }).items.map((i) => i.run.id);
      for (let i = 0; i < 200; i += 1) reserve(s, { title: `newer ${i}`, workflow: 'w' });
      // More matches than the index plan takes for a page of 1, all of them older than the walk's window.
      expect(30).toBeGreaterThan(indexedMatchesMax(1, 230));
      expect(searchWalkRows(1)).toBeLessThan(200);
      expect(searchPlan(ctx, 'all', 'wombat', 1)).toBe('walk');
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page = s.store.listRuns({
          view: 'all',
          limit: 1,
          search: 'wombat',
          ...(cursor !== null && { cursor }),
        });
        paged.push(...page.items.map((i) => i.run.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(paged).toEqual(old);
    } finally {
      s.cleanup();
    }
  });
});

describe('search plans are remembered per needle for a while', () => {
  it('a stale plan costs time, never rows; after SEARCH_PLAN_TTL_MS the needle is counted again', () => {
    const s = createTempStore();
    try {
      const ctx = createContext(s.store.db, s.clock, DEFAULT_DISPLAY_OPTIONS, null);
      const make = (n: number) => {
        for (let i = 0; i < n; i += 1) reserve(s, { title: `quokka ${i}`, workflow: 'w' });
      };
      make(3);
      expect(searchPlan(ctx, 'all', 'quokka', 5)).toBe('index');
      make(10);
      // Remembered: still the index, which now sorts 13 candidates — and the store's own plan agrees.
      expect(searchPlan(ctx, 'all', 'quokka', 5)).toBe('index');
      const newest = s.store.listRuns({ view: 'all', limit: 50 }).items.map((i) => i.run.id);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page = s.store.listRuns({
          view: 'all',
          limit: 5,
          search: 'QUOKKA',
          ...(cursor !== null && { cursor }),
        });
        paged.push(...page.items.map((i) => i.run.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(paged).toEqual(newest);
      s.clock.advance(SEARCH_PLAN_TTL_MS);
      expect(searchPlan(ctx, 'all', 'quokka', 5)).toBe('walk');
      // Per page size: a page of 20 holds all 13.
      expect(searchPlan(ctx, 'all', 'quokka', 20)).toBe('index');
    } finally {
      s.cleanup();
    }
  });
});
