/**
 * The read operations of the window, each against its baseline: the raw indexed SQLite query that returns
 * the same data with better-sqlite3 and no application code — for a list row, the run, its project path,
 * queue entry and lease, and what its reason line shows of its open questions and ambiguous effects.
 */
import type Database from 'better-sqlite3';
import { LIST_PAGE_SIZE } from '../shared/views';
import type { ListRunsQuery, StoreReader } from '../main/store';
import { readMeasurement, type Measurement } from './report-model';
import { measurePaired, round, summarize, timeMs } from './stats';

/** The UI's page size (renderer RunListState). */
export const PAGE = LIST_PAGE_SIZE;
const UNATTENDED_MS = 5 * 60_000;

/** A run with its project path, queue entry and lease (every lease column the app returns). */
const JOIN_SELECT = `SELECT r.*, p.canonical_path AS project_path,
  q.status AS q_status, q.available_at, q.error_code, q.error_detail, q.consecutive_errors, q.updated_at AS q_updated_at,
  l.name, l.generation, l.owner_type, l.owner_id, l.owner_pid, l.owner_hostname, l.owner_start_id, l.acquired_at,
  l.heartbeat_at, l.expires_at, l.owner_boot_id, l.owner_pid_ns, l.command_pid, l.command_pgid, l.command_start_id,
  l.vouched_at, l.orphaned_at`;
const JOIN_FROM = `FROM runs r JOIN projects p ON p.id = r.project_id JOIN queue_entries q ON q.run_id = r.id
  JOIN leases l ON l.run_id = r.id`;

/**
 * A list row: the join, and the open questions' status, title and deadline and the ambiguous effects' status
 * and summary (what the row's reason line and deadline are made of), read where the run's counters say it
 * has some.
 */
const LIST_SELECT = `${JOIN_SELECT},
  CASE WHEN r.open_interactions > 0 THEN (SELECT json_group_array(json_object('status', i.status, 'title', i.title,
    'deadlineAt', i.deadline_at) ORDER BY i.created_at, i.id) FROM interactions i
    WHERE i.run_id = r.id AND i.status IN ('pending', 'presenting')) END AS questions,
  CASE WHEN r.ambiguous_effects > 0 THEN (SELECT json_group_array(json_object('status', e.status, 'summary',
    e.summary) ORDER BY e.id) FROM effects e WHERE e.run_id = r.id AND e.status = 'ambiguous') END AS effects
  ${JOIN_FROM}`;

/** The raw baseline for a list view: same data, one statement. */
export function baselineListSql(where: string): string {
  return `${LIST_SELECT} WHERE ${where} ORDER BY r.id DESC LIMIT @limit`;
}

const NOT_EXPIRED = `(r.owner_expires_at IS NULL OR r.owner_expires_at > @now)`;
const NEEDS_YOU = `((r.needs_you_static = 1 AND ${NOT_EXPIRED}) OR r.owner_expires_at <= @now OR r.unattended_since <= @unattendedBefore)`;

/** The raw trigram-index query (migration 0003) for a search: the baseline of the search cases. */
const FTS_WHERE = `r.id IN (SELECT k.run_id FROM run_search s JOIN run_search_keys k ON k.key = s.rowid
  WHERE run_search MATCH @match)`;

/**
 * A view of several display statuses, as raw indexed SQL: the newest page of each status from its index,
 * merged (one `display_base IN (…)` walk in id order reads every run to find them).
 */
function newestOf(statuses: readonly string[]): string {
  const branches = statuses.map(
    (s) => `SELECT id FROM (SELECT id FROM runs WHERE display_base = '${s}' ORDER BY id DESC LIMIT @limit)`,
  );
  return `r.id IN (${branches.join(' UNION ALL ')})`;
}

interface ReadCase {
  id: string;
  label: string;
  query: ListRunsQuery;
  where: string;
  params: Record<string, unknown>;
  note?: string;
}

export interface ReadContext {
  store: StoreReader;
  db: Database.Database;
  projectPath: string;
  projectId: number;
  searchCommon: string;
  searchRare: string;
  reps: number;
}

function listCases(ctx: ReadContext, deepCursor: string): ReadCase[] {
  return [
    {
      id: 'list.first',
      label: 'list runs: first page (All)',
      query: { view: 'all', limit: PAGE },
      where: '1',
      params: {},
    },
    {
      id: 'list.deep',
      label: 'list runs: deep keyset page (50k in)',
      query: { view: 'all', limit: PAGE, cursor: deepCursor },
      where: 'r.id < @cursor',
      params: { cursor: deepCursor },
    },
    {
      id: 'list.project',
      label: 'list runs: one project',
      query: { view: 'all', limit: PAGE, projectPath: ctx.projectPath },
      where: 'r.project_id = @projectId',
      params: { projectId: ctx.projectId },
    },
    {
      id: 'list.needs-you',
      label: 'list runs: Needs you (default view)',
      query: { view: 'needs-you', limit: PAGE },
      where: NEEDS_YOU,
      params: {},
    },
    {
      id: 'list.running',
      label: 'list runs: status Running',
      query: { view: 'running', limit: PAGE },
      where: `${newestOf(['running', 'waiting'])} AND ${NOT_EXPIRED}`,
      params: {},
    },
    {
      id: 'list.failed',
      label: 'list runs: status Failed',
      query: { view: 'failed', limit: PAGE },
      where: newestOf(['failed', 'timed_out']),
      params: {},
    },
    {
      id: 'list.search',
      label: `list runs: search "${ctx.searchCommon}"`,
      query: { view: 'all', limit: PAGE, search: ctx.searchCommon },
      where: FTS_WHERE,
      params: { match: `"${ctx.searchCommon}"` },
    },
    {
      id: 'list.search-rare',
      label: `list runs: search "${ctx.searchRare}" (~10 hits)`,
      query: { view: 'all', limit: PAGE, search: ctx.searchRare },
      where: FTS_WHERE,
      params: { match: `"${ctx.searchRare}"` },
      note: 'baseline: the raw trigram-index query (before migration 0003 both scanned every run)',
    },
  ];
}

/**
 * The CPU time (user + system, this process) of the app and of its baseline, per call: the median of `rounds`
 * batches of 10 calls each, the two interleaved. On a loaded machine a call's wall time includes the time
 * its process waited for a core, which lengthens a longer call more than a shorter one (it is more often
 * preempted part-way); the CPU time does not, so its ratio is the steadier of the two there.
 */
function cpuPaired(
  app: () => unknown,
  baseline: () => unknown,
  rounds: number,
): { cpuMs: number; cpuRawMs: number; cpuRatio: number } {
  const batch = (fn: () => unknown) => {
    const start = process.cpuUsage();
    for (let i = 0; i < 10; i += 1) fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 10_000;
  };
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    if (i % 2 === 0) {
      a.push(batch(app));
      b.push(batch(baseline));
    } else {
      b.push(batch(baseline));
      a.push(batch(app));
    }
  }
  const cpuMs = summarize(a).median;
  const cpuRawMs = summarize(b).median;
  return { cpuMs: round(cpuMs), cpuRawMs: round(cpuRawMs), cpuRatio: round(cpuMs / cpuRawMs, 2) };
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/** Runs every read case; throws if the app and its baseline disagree on the rows (the baseline must be fair). */
export function measureReads(ctx: ReadContext, log: (line: string) => void): Measurement[] {
  const { store, db } = ctx;
  const deepCursor =
    (
      db.prepare(`SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET 50000`).get() as
        { id: string } | undefined
    )?.id ?? (db.prepare(`SELECT id FROM runs ORDER BY id LIMIT 1`).get() as { id: string }).id;
  const out: Measurement[] = [];
  for (const c of listCases(ctx, deepCursor)) {
    const stmt = db.prepare(baselineListSql(c.where));
    const params = () => {
      const now = Date.now();
      return { ...c.params, now, unattendedBefore: now - UNATTENDED_MS, limit: PAGE + 1 };
    };
    const appIds = store.listRuns(c.query).items.map((i) => i.run.id);
    const baseIds = (stmt.all(params()) as Array<{ id: string }>).slice(0, PAGE).map((r) => r.id);
    if (!sameIds(appIds, baseIds))
      throw new Error(`${c.id}: the baseline returns different rows than the app`);
    const samples = measurePaired(
      () => store.listRuns(c.query),
      () => stmt.all(params()),
      { reps: ctx.reps, warmup: 20 },
    );
    const m = readMeasurement(c.id, c.label, samples, c.note);
    const cpu = cpuPaired(
      () => store.listRuns(c.query),
      () => stmt.all(params()),
      Math.max(10, Math.floor(ctx.reps / 10)),
    );
    m.extra = { rows: appIds.length, ...cpu };
    if (c.query.search !== undefined) {
      // The list remembers a needle's plan (refreshes and pages ask again): a needle's first query, too.
      const first: number[] = [];
      for (let i = 0; i < Math.max(30, Math.floor(ctx.reps / 3)); i += 1) {
        store.forgetSearchPlans();
        first.push(timeMs(() => store.listRuns(c.query)));
      }
      const f = summarize(first);
      m.extra.firstQueryMedianMs = round(f.median);
      m.extra.firstQueryP95Ms = round(f.p95);
    }
    out.push(m);
    log(
      `  ${c.label}: median ${m.median} ms, p95 ${m.p95} ms (×${m.ratio}); CPU ${cpu.cpuMs} vs ${cpu.cpuRawMs} ms (×${cpu.cpuRatio})`,
    );
  }

  out.push(measureProjects(ctx, log));
  out.push(measureAttention(ctx, log));
  out.push(measureDetail(ctx, log));
  return out;
}

function measureProjects(ctx: ReadContext, log: (line: string) => void): Measurement {
  const stmt = ctx.db.prepare(
    `SELECT p.id, p.canonical_path, p.name, p.created_at, c.ds, c.n FROM projects p LEFT JOIN
       (SELECT project_id, CASE WHEN owner_expires_at <= @now THEN 'stale' ELSE display_base END AS ds, count(*) AS n
        FROM runs GROUP BY project_id, ds) c ON c.project_id = p.id ORDER BY p.canonical_path`,
  );
  const samples = measurePaired(
    () => ctx.store.listProjects(),
    () => stmt.all({ now: Date.now() }),
    { reps: Math.max(30, Math.floor(ctx.reps / 4)), warmup: 5 },
  );
  const m = readMeasurement(
    'projects.counts',
    'project list with per-status counts',
    samples,
    'baseline: a full count of the runs (no counters)',
    'naive',
  );
  log(`  ${m.label}: median ${m.median} ms, p95 ${m.p95} ms (×${m.ratio})`);
  return m;
}

function measureAttention(ctx: ReadContext, log: (line: string) => void): Measurement {
  const counts = ctx.db.prepare(
    `SELECT CASE WHEN owner_expires_at <= @now THEN 'stale' ELSE display_base END AS ds, count(*) AS n FROM runs GROUP BY ds`,
  );
  const needs = ctx.db.prepare(`SELECT count(*) AS n FROM runs r WHERE ${NEEDS_YOU}`);
  const items = ctx.db.prepare(baselineListSql(NEEDS_YOU));
  const samples = measurePaired(
    () => ctx.store.attentionSummary(20),
    () => {
      const now = Date.now();
      const p = { now, unattendedBefore: now - UNATTENDED_MS };
      counts.all(p);
      needs.get(p);
      items.all({ ...p, limit: 21 });
    },
    { reps: Math.max(30, Math.floor(ctx.reps / 4)), warmup: 5 },
  );
  const m = readMeasurement(
    'attention.summary',
    'attention ("needs you") summary, 20 items',
    samples,
    'baseline: a full count of the runs (no counters)',
    'naive',
  );
  log(`  ${m.label}: median ${m.median} ms, p95 ${m.p95} ms (×${m.ratio})`);
  return m;
}

function measureDetail(ctx: ReadContext, log: (line: string) => void): Measurement {
  const { db, store } = ctx;
  // A spread of runs (finished, live, waiting), not one hot row.
  const ids = (
    db.prepare(`SELECT id FROM runs ORDER BY random() LIMIT 200`).all() as Array<{ id: string }>
  ).map((r) => r.id);
  const q = {
    run: db.prepare(`${JOIN_SELECT} ${JOIN_FROM} WHERE r.id = ?`),
    interactions: db.prepare(`SELECT * FROM interactions WHERE run_id = ? ORDER BY created_at, id`),
    effects: db.prepare(`SELECT * FROM effects WHERE run_id = ? ORDER BY id`),
    attempts: db.prepare(`SELECT * FROM attempts WHERE run_id = ? ORDER BY id`),
    submissions: db.prepare(
      `SELECT s.* FROM submissions s JOIN interactions i ON i.id = s.interaction_id WHERE i.run_id = ? ORDER BY s.id`,
    ),
    events: db.prepare(`SELECT * FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT ?`),
  };
  const samples = measurePaired(
    (i) => store.getRunDetail(ids[i % ids.length] as string, { eventsLimit: 200 }),
    (i) => {
      const id = ids[i % ids.length] as string;
      q.run.get(id);
      q.interactions.all(id);
      q.effects.all(id);
      q.attempts.all(id);
      q.submissions.all(id);
      q.events.all(id, 201);
    },
    { reps: ctx.reps, warmup: 20 },
  );
  const m = readMeasurement('detail.first-events', 'run detail with its first events page', samples);
  log(`  ${m.label}: median ${m.median} ms, p95 ${m.p95} ms (×${m.ratio})`);
  return m;
}
