/**
 * Generous performance guards for `npm test` (ratios and plans, never absolute
 * times). A 20k-run store from the bench's generator; the full figures come from `npm run bench`.
 *
 * Building that store is the cost of this file, so its tests share it, and the sharing is made safe rather
 * than assumed: they read it through a read-only store handle (a write does not compile) and a read-only
 * connection (SQLite refuses a write), a test that needs the store's own connection (to profile or wrap its
 * statements, or to write) works on a copy of its own, and after them all the shared file's bytes must be
 * unchanged, so no test can depend on another's doing.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateStore, type GeneratedStore } from '../../../bench/generate-store';
import { baselineListSql, PAGE } from '../../../bench/read-ops';
import { profileSql } from '../../../bench/sql-profile';
import { measurePaired, summarize } from '../../../bench/stats';
import { openStore, type ReadonlyStore, type RunStore } from '../../../main/store';
import { listRunsSql } from '../../../main/store/run-views';
import { ftsPhrase, indexedMatchesMax, searchPlan } from '../../../main/store/search-plan';
import { createContext } from '../../../main/store/store-context';
import { DEFAULT_DISPLAY_OPTIONS } from '../../../shared/display-status';
import { makeTempDir } from '../../helpers/temp-store';

let dir: string;
const RUNS = 20_000;
let gen: GeneratedStore;
/** The shared store, read-only. */
let store: ReadonlyStore;
/** A read-only connection to it, for the raw SQL the guards compare with. */
let raw: Database.Database;
let bytes: string;
let copies = 0;

/** The file's bytes and its WAL's, hashed. */
function digest(file: string): string {
  const hash = createHash('sha256').update(fs.readFileSync(file));
  if (fs.existsSync(`${file}-wal`)) hash.update(fs.readFileSync(`${file}-wal`));
  return hash.digest('hex');
}

/** A writable store on a copy of the shared file, for a test that needs the store's own connection. */
function ownCopy(): RunStore {
  copies += 1;
  const file = path.join(dir, `copy-${copies}.sqlite`);
  fs.copyFileSync(gen.storePath, file);
  if (fs.existsSync(`${gen.storePath}-wal`)) fs.copyFileSync(`${gen.storePath}-wal`, `${file}-wal`);
  return openStore(file);
}

beforeAll(() => {
  dir = makeTempDir('runwarden-perf-');
  gen = generateStore({
    storePath: path.join(dir, 'state.sqlite'),
    runs: RUNS,
    projects: 50,
    eventsPerRun: 8,
    now: Date.now(),
  });
  bytes = digest(gen.storePath);
  store = openStore(gen.storePath, { readonly: true });
  raw = new Database(gen.storePath, { readonly: true, fileMustExist: true });
}, 120_000);

afterAll(() => {
  store?.close();
  raw?.close();
  // A hook's throw fails the file, whatever order the tests ran in.
  const changed = gen !== undefined && digest(gen.storePath) !== bytes;
  fs.rmSync(dir, { recursive: true, force: true });
  if (changed) throw new Error('a test changed the shared 20k-run store');
});

it('the generated store is valid (the guards below measure real, consistent data)', () => {
  expect(store.doctor().contradictions).toEqual([]);
});

it('the first-page list query walks an index in id order (no scan, no sort)', () => {
  const plan = (
    raw
      .prepare(`EXPLAIN QUERY PLAN ${listRunsSql('all', { project: false, search: false, cursor: true })}`)
      .all({ now: 0, unattendedBefore: 0, cursor: 'run_z', limit: PAGE + 1 }) as Array<{ detail: string }>
  ).map((r) => r.detail);
  expect(plan.join(' | ')).not.toMatch(/^SCAN r$|TEMP B-TREE FOR ORDER BY/m);
  expect(plan.some((d) => /^(SCAN|SEARCH) r USING/.test(d))).toBe(true);
});

it('a list page costs a handful of statements, not a few per row (no N+1)', () => {
  const probe = ownCopy();
  try {
    const profiler = profileSql(probe.db);
    for (const view of ['all', 'needs-you', 'running'] as const) {
      const profile = profiler.measure(() => probe.listRuns({ view, limit: PAGE }));
      expect(profile.statements, view).toBeLessThanOrEqual(12);
    }
    const projects = profiler.measure(() => probe.listProjects());
    const attention = profiler.measure(() => probe.attentionSummary(20));
    // Counts come from counters and indexes: no full scan of runs per call.
    const runScans = (scans: typeof projects.scans) =>
      scans.filter((s) => s.plan.some((line) => /^SCAN (r|x|runs)$/.test(line))).map((s) => s.sql);
    expect(runScans(projects.scans)).toEqual([]);
    expect(runScans(attention.scans)).toEqual([]);
  } finally {
    probe.close();
  }
});

it('project and attention counts agree with a full count of the runs', () => {
  const now = store.now();
  const truth = raw
    .prepare(
      `SELECT CASE WHEN owner_expires_at <= ? THEN 'stale' ELSE display_base END AS ds, count(*) AS n FROM runs GROUP BY ds`,
    )
    .all(now) as Array<{ ds: string; n: number }>;
  expect(store.attentionSummary(5).counts).toEqual(Object.fromEntries(truth.map((r) => [r.ds, r.n])));
  const total = store.listProjects().reduce((sum, p) => sum + p.total, 0);
  expect(total).toBe(gen.runs);
});

it('a page query at 20k runs is within 10× of the raw indexed query for the same rows', () => {
  const baseline = raw.prepare(baselineListSql('1'));
  const samples = measurePaired(
    () => store.listRuns({ view: 'all', limit: PAGE }),
    () => baseline.all({ limit: PAGE + 1 }),
    { reps: 40, warmup: 5 },
  );
  const ratio = summarize(samples.app).median / summarize(samples.baseline).median;
  expect(ratio).toBeLessThan(10);
});

it('a rare-word search reads the trigram index (no scan of runs), finds what the scan finds, and beats it', () => {
  const probe = ownCopy();
  try {
    const profiler = profileSql(probe.db);
    const search = () =>
      probe.listRuns({ view: 'all', limit: PAGE, search: gen.searchRare }).items.map((i) => i.run.id);
    let ids: string[] = [];
    const profile = profiler.measure(() => {
      ids = search();
    });
    expect(profile.scans.map((s) => s.sql)).toEqual([]);
    const scanSql = probe.db.prepare(listRunsSql('all', { project: false, search: true, cursor: false }));
    const scanParams = {
      now: probe.now(),
      unattendedBefore: 0,
      limit: PAGE + 1,
      search: gen.searchRare,
      idFrom: '',
      projectIds: '[]',
      idTo: '',
    };
    const scanned = (scanSql.all(scanParams) as Array<{ id: string }>).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(scanned.slice(0, PAGE));
    // Relative, generous: the scan reads all 20k runs, the index a few entries (~20× apart here).
    const samples = measurePaired(search, () => scanSql.all(scanParams), { reps: 20, warmup: 3 });
    expect(summarize(samples.app).median).toBeLessThan(summarize(samples.baseline).median / 2);
  } finally {
    probe.close();
  }
});

it('a broad search in All takes the newest-first walk; a ~3 % word, rare words and other views the index; same rows', () => {
  const probe = ownCopy();
  try {
    const ctx = createContext(probe.db, () => probe.now(), DEFAULT_DISPLAY_OPTIONS, null);
    const needle = gen.searchCommon.toLowerCase();
    const matches = (text: string) =>
      (
        probe.db
          .prepare(`SELECT count(*) AS n FROM run_search WHERE run_search MATCH ?`)
          .get(ftsPhrase(text)) as {
          n: number;
        }
      ).n;
    // At 20k runs and a page of 200, the index is the cheaper plan up to ~775 matches (indexedMatchesMax): the
    // common word (~3 %, ~600) is read from the index, "agent" (~10 % of the workflows) walks.
    const max = indexedMatchesMax(PAGE, RUNS);
    expect(matches(needle)).toBeGreaterThan(PAGE);
    expect(matches(needle)).toBeLessThanOrEqual(max);
    expect(matches('agent')).toBeGreaterThan(max);
    expect(searchPlan(ctx, 'all', needle, PAGE)).toBe('index');
    expect(searchPlan(ctx, 'all', 'agent', PAGE)).toBe('walk');
    expect(searchPlan(ctx, 'all', gen.searchRare.toLowerCase(), PAGE)).toBe('index');
    expect(searchPlan(ctx, 'failed', 'agent', PAGE)).toBe('index');
    const params = {
      now: probe.now(),
      unattendedBefore: 0,
      limit: PAGE + 1,
      search: needle,
      idFrom: '',
      projectIds: '[]',
      idTo: '',
      match: ftsPhrase(needle),
    };
    const indexed = probe.db.prepare(
      listRunsSql('all', { project: false, search: true, cursor: false, indexedSearch: true }),
    );
    const want = (indexed.all(params) as Array<{ id: string }>).map((r) => r.id).slice(0, PAGE);
    const search = () =>
      probe.listRuns({ view: 'all', limit: PAGE, search: gen.searchCommon }).items.map((i) => i.run.id);
    expect(want).toHaveLength(PAGE);
    expect(search()).toEqual(want);
    // The walk's rows are the index's too (no timing here: docs/PERFORMANCE.md round 7 measures both plans).
    const agentIndexed = (
      indexed.all({ ...params, search: 'agent', match: ftsPhrase('agent') }) as Array<{ id: string }>
    ).map((r) => r.id);
    const agentPage = probe
      .listRuns({ view: 'all', limit: PAGE, search: 'agent' })
      .items.map((i) => i.run.id);
    expect(agentPage).toEqual(agentIndexed.slice(0, PAGE));
  } finally {
    probe.close();
  }
});

it('a transition that moves no view column names none in its UPDATE of runs (no index rewritten for nothing)', () => {
  const probe = ownCopy();
  try {
    // A fresh connection prepares each statement on first use: record what this call prepares.
    const prepared: string[] = [];
    const prepare = probe.db.prepare.bind(probe.db);
    Object.defineProperty(probe.db, 'prepare', {
      configurable: true,
      value: (source: string) => {
        prepared.push(source.replace(/\s+/g, ' '));
        return prepare(source);
      },
    });
    probe.setProgress(gen.liveClaims[0]!, 'step 2 of 3');
    const updates = prepared.filter((sql) => sql.startsWith('UPDATE runs SET revision'));
    expect(updates).toHaveLength(1);
    expect(updates[0]).not.toMatch(
      /display_base|needs_you_static|owner_expires_at|unattended_since|open_interactions|ambiguous_effects/,
    );
    expect(probe.doctor().contradictions).toEqual([]);
  } finally {
    probe.close();
  }
});

it('no UPDATE trigger on runs names a view column (it would turn every view move into a two-pass UPDATE)', () => {
  // Migration 0012: with such a trigger, an UPDATE moving display_base and needs_you_static cost ~4× one without.
  const VIEW =
    /display_base|needs_you_static|owner_expires_at|unattended_since|open_interactions|ambiguous_effects/;
  const triggers = raw
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'runs'`)
    .all() as Array<{ name: string; sql: string }>;
  expect(triggers.length).toBeGreaterThan(0);
  const onUpdate = triggers.filter((t) => /\bUPDATE\b/i.test(t.sql.split(/\bBEGIN\b/i)[0] ?? ''));
  for (const trigger of onUpdate) {
    const head = (trigger.sql.split(/\bBEGIN\b/i)[0] ?? '').replace(/\bWHEN\b[\s\S]*/i, '');
    expect(head, trigger.name).toMatch(/UPDATE OF /i);
    expect(head, trigger.name).not.toMatch(VIEW);
  }
});
