/**
 * Child processes of the bench (the same bundle, started with `--worker <kind>`): heartbeat runners,
 * a runner that commits progress for the change-feed latency, and a clean process for the memory probe.
 * They talk to the parent over the fork IPC channel.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { isRunwardenError } from '../shared/errors';
import { createAppHost } from '../main/services/app-host';
import { openStore } from '../main/store';
import type { LiveClaim } from './generate-store';
import { percentile } from './stats';

export interface HeartbeatJob {
  kind: 'heartbeat';
  storePath: string;
  claims: LiveClaim[];
  durationMs: number;
  /** Epoch ms when every worker starts, so they really overlap. */
  startAt: number;
  /**
   * `app`: `store.heartbeat` as shipped (an on-time renewal commits without its own fsync,
   * docs/ARCHITECTURE.md#lease-renewals). `fsync-each`, the baseline: the same renewal as raw statements, each
   * in its own `synchronous = FULL` commit, as every renewal was before. `normal`: `store.heartbeat` on a
   * connection set to NORMAL for everything — the ceiling, never a setting of the app.
   */
  mode: HeartbeatMode;
}

export type HeartbeatMode = 'app' | 'fsync-each' | 'normal';

export interface HeartbeatResult {
  ok: number;
  fenced: number;
  busy: number;
  otherErrors: number;
  elapsedMs: number;
  p95Ms: number;
}

export interface FeedJob {
  kind: 'feed';
  storePath: string;
  claim: LiveClaim;
  commits: number;
  minGapMs: number;
  maxGapMs: number;
}

export interface FeedCommit {
  seq: number;
  /** performance.timeOrigin + performance.now() right after COMMIT. */
  at: number;
}

export interface MemoryJob {
  kind: 'memory';
  storePath: string;
}

export interface MemoryResult {
  rssBeforeMb: number;
  rssAfterMb: number;
  heapUsedMb: number;
  externalMb: number;
  loadMs: number;
}

/** The host alone in a fresh process, idle: what it costs when nothing happens. */
export interface IdleJob {
  kind: 'idle';
  storePath: string;
  /** Start-up work (first tick, warm-up reads) that passes before the measurement. */
  settleMs: number;
  durationMs: number;
  /** The baseline: the same process with no host in it (Node, the bench bundle and its IPC channel, idle). */
  bare?: boolean;
  /** Attach the store's remotes (docs/REMOTES.md), or none (false); the store's own setting by default. */
  remotes?: boolean;
}

export interface IdleResult {
  userMs: number;
  systemMs: number;
  wallMs: number;
  /** Pushes the host sent while measured (none expected: nothing changes). */
  pushes: number;
}

type Job = HeartbeatJob | FeedJob | MemoryJob | IdleJob;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const preciseNow = () => performance.timeOrigin + performance.now();
const mb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

/** Runs one job sent by the parent, replies, exits. */
export function runWorker(): void {
  process.once('message', (job: Job) => {
    void handle(job).then(
      (result) => process.send?.({ type: 'done', result }, () => process.exit(0)),
      (error: unknown) => process.send?.({ type: 'error', message: String(error) }, () => process.exit(1)),
    );
  });
}

async function handle(job: Job): Promise<unknown> {
  if (job.kind === 'heartbeat') return heartbeatJob(job);
  if (job.kind === 'feed') return feedJob(job);
  if (job.kind === 'idle') return idleJob(job);
  return memoryJob(job);
}

async function heartbeatJob(job: HeartbeatJob): Promise<HeartbeatResult> {
  const store = openStore(job.storePath);
  if (job.mode === 'normal') store.db.pragma('synchronous = NORMAL');
  const renew =
    job.mode === 'fsync-each' ? rawRenewal(store.db) : (claim: LiveClaim) => store.heartbeat(claim, LEASE_MS);
  const out: HeartbeatResult = { ok: 0, fenced: 0, busy: 0, otherErrors: 0, elapsedMs: 0, p95Ms: 0 };
  const latencies: number[] = [];
  await sleep(Math.max(0, job.startAt - Date.now()));
  const start = performance.now();
  const end = start + job.durationMs;
  let i = 0;
  while (performance.now() < end) {
    const claim = job.claims[i % job.claims.length] as LiveClaim;
    i += 1;
    const t = performance.now();
    try {
      const answer = renew(claim);
      if (answer.ok) out.ok += 1;
      else out.fenced += 1;
    } catch (error) {
      if (isRunwardenError(error) && error.code === 'BUSY') out.busy += 1;
      else out.otherErrors += 1;
    }
    if (i % 8 === 0) latencies.push(performance.now() - t);
  }
  out.elapsedMs = performance.now() - start;
  out.p95Ms = percentile(latencies, 95);
  store.close();
  return out;
}

const LEASE_MS = 2 * 3_600_000;

/**
 * The baseline renewal: the statements of an on-time heartbeat (the run's request flags, the lease checked
 * and moved, the run's expiry column) in one BEGIN IMMEDIATE transaction of the store's FULL connection.
 */
function rawRenewal(db: Database.Database): (claim: LiveClaim) => { ok: boolean } {
  const flags = db.prepare(`SELECT cancel_requested, pause_requested FROM runs WHERE id = ?`);
  const where = `run_id = @runId AND token_hash = @hash AND generation = @generation AND owner_type = @ownerType
    AND (expires_at > @now OR owner_gone_at IS NULL)`;
  const before = db.prepare(
    `SELECT expires_at, generation, lost_generation, vouched_at FROM leases WHERE ${where}`,
  );
  const lease = db.prepare(`UPDATE leases SET heartbeat_at = @now, expires_at = @expiresAt, vouched_at = NULL,
    lost_generation = CASE WHEN expires_at <= @now THEN NULL ELSE lost_generation END WHERE ${where}`);
  const run = db.prepare(`UPDATE runs SET owner_expires_at = ? WHERE id = ?`);
  const tx = db.transaction((claim: LiveClaim) => {
    const now = Date.now();
    const hash = createHash('sha256').update(claim.token).digest('hex');
    const p = { runId: claim.runId, hash, generation: claim.generation, ownerType: claim.ownerType, now };
    flags.get(claim.runId);
    if (before.get(p) === undefined) return { ok: false };
    lease.run({ ...p, expiresAt: now + LEASE_MS });
    run.run(now + LEASE_MS, claim.runId);
    return { ok: true };
  });
  return (claim) => tx.immediate(claim);
}

async function feedJob(job: FeedJob): Promise<FeedCommit[]> {
  const store = openStore(job.storePath);
  const lastSeq = store.db.prepare(`SELECT max(seq) AS seq FROM events WHERE run_id = ?`);
  const commits: FeedCommit[] = [];
  for (let i = 0; i < job.commits; i += 1) {
    await sleep(job.minGapMs + Math.random() * (job.maxGapMs - job.minGapMs));
    store.setProgress(job.claim, `feed ${i}`);
    const at = preciseNow();
    commits.push({ seq: (lastSeq.get(job.claim.runId) as { seq: number }).seq, at });
  }
  store.close();
  return commits;
}

async function memoryJob(job: MemoryJob): Promise<MemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const start = performance.now();
  const host = createAppHost({
    storePath: job.storePath,
    surface: 'app',
    actorId: 'bench',
    notifier: { show: () => {} },
    push: () => {},
  });
  host.start();
  // What the window loads on open: projects, the default view's first page, attention.
  await host.dispatch('projects:list', {});
  await host.dispatch('runs:list', { view: 'needs-you', limit: 200 });
  await host.dispatch('runs:list', { view: 'all', limit: 200 });
  await host.dispatch('attention:summary', { limit: 20 });
  const loadMs = performance.now() - start;
  gc?.();
  const after = process.memoryUsage();
  host.dispose();
  return {
    rssBeforeMb: mb(before.rss),
    rssAfterMb: mb(after.rss),
    heapUsedMb: mb(after.heapUsed),
    externalMb: mb(after.external),
    loadMs: Math.round(loadMs),
  };
}

async function idleJob(job: IdleJob): Promise<IdleResult> {
  if (job.bare === true) {
    await sleep(job.settleMs);
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    await sleep(job.durationMs);
    const cpu = process.cpuUsage(cpuBefore);
    return {
      userMs: cpu.user / 1_000,
      systemMs: cpu.system / 1_000,
      wallMs: performance.now() - wallBefore,
      pushes: 0,
    };
  }
  let pushes = 0;
  const host = createAppHost({
    storePath: job.storePath,
    surface: 'app',
    actorId: 'bench',
    notifier: { show: () => {} },
    push: () => {
      pushes += 1;
    },
    ...(job.remotes === false && { remotes: false as const }),
  });
  host.start();
  try {
    await sleep(job.settleMs);
    const pushesBefore = pushes;
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    await sleep(job.durationMs);
    const cpu = process.cpuUsage(cpuBefore);
    return {
      userMs: cpu.user / 1_000,
      systemMs: cpu.system / 1_000,
      wallMs: performance.now() - wallBefore,
      pushes: pushes - pushesBefore,
    };
  } finally {
    host.dispose();
  }
}

/** Starts a worker (this bundle with `--worker`) and resolves with its result. */
export function startWorker<T>(
  job: Job,
  execArgv: string[] = [],
): { child: ChildProcess; result: Promise<T> } {
  const entry = process.argv[1] as string;
  const child = fork(entry, ['--worker'], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const result = new Promise<T>((resolve, reject) => {
    child.once('message', (message: { type: string; result?: T; message?: string }) => {
      if (message.type === 'done') resolve(message.result as T);
      else reject(new Error(`bench worker ${job.kind} failed: ${message.message}`));
    });
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`bench worker ${job.kind} exited with ${code}`));
    });
  });
  child.send(job);
  return { child, result };
}
