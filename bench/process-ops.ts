/**
 * The multi-process figures: heartbeat throughput from 8 runner processes at once, change-feed latency
 * (a runner's commit → the host's `changed` push), and main-process memory with the app state loaded.
 */
import { DEFAULT_SETTINGS } from '../shared/views';
import { createAppHost } from '../main/services/app-host';
import type { LiveClaim } from './generate-store';
import { figure, type Measurement } from './report-model';
import { round, summarize } from './stats';
import { startWorker, type FeedCommit, type HeartbeatResult, type MemoryResult } from './workers';

export async function measureHeartbeats(
  storePath: string,
  claims: readonly LiveClaim[],
  processes: number,
  durationMs: number,
  synchronous: 'FULL' | 'NORMAL',
  log: (line: string) => void,
): Promise<Measurement> {
  const perProcess = Math.floor(claims.length / processes);
  const startAt = Date.now() + 1_500;
  const workers = Array.from({ length: processes }, (_, p) =>
    startWorker<HeartbeatResult>({
      kind: 'heartbeat',
      storePath,
      claims: claims.slice(p * perProcess, (p + 1) * perProcess),
      durationMs,
      startAt,
      synchronous,
    }),
  );
  const results = await Promise.all(workers.map((w) => w.result));
  const total = results.reduce(
    (acc, r) => ({
      ok: acc.ok + r.ok,
      fenced: acc.fenced + r.fenced,
      busy: acc.busy + r.busy,
      other: acc.other + r.otherErrors,
    }),
    { ok: 0, fenced: 0, busy: 0, other: 0 },
  );
  const elapsed = Math.max(...results.map((r) => r.elapsedMs));
  const perSecond = (total.ok / elapsed) * 1_000;
  const shipped = synchronous === 'FULL';
  const m = figure(
    shipped ? 'heartbeat.throughput' : 'heartbeat.throughput-normal',
    shipped
      ? `heartbeats/s, ${processes} runner processes at once`
      : `heartbeats/s, ${processes} processes, sync=NORMAL (evidence only)`,
    'concurrency',
    '/s',
    perSecond,
    shipped
      ? {
          text: '> 5,000/s and 0 SQLITE_BUSY',
          met: perSecond > 5_000 && total.busy === 0 && total.other === 0,
        }
      : null,
    {
      heartbeats: total.ok,
      busySurfaced: total.busy,
      fenced: total.fenced,
      otherErrors: total.other,
      worstProcessP95Ms: round(Math.max(...results.map((r) => r.p95Ms))),
      seconds: round(elapsed / 1_000, 2),
    },
    shipped
      ? undefined
      : 'the same run with the per-commit fsync off: what synchronous=FULL (kept) costs here',
  );
  log(`  ${m.label}: ${Math.round(perSecond)}/s, BUSY surfaced ${total.busy}, fenced ${total.fenced}`);
  return m;
}

export async function measureChangeFeed(
  storePath: string,
  claim: LiveClaim,
  commits: number,
  log: (line: string) => void,
): Promise<Measurement> {
  const pushes: Array<{ seq: number; at: number }> = [];
  const host = createAppHost({
    storePath,
    surface: 'app',
    actorId: 'bench',
    notifier: { show: () => {} },
    push: (event, payload) => {
      if (event === 'changed')
        pushes.push({
          seq: (payload as { seq: number }).seq,
          at: performance.timeOrigin + performance.now(),
        });
    },
  });
  host.start();
  try {
    const worker = startWorker<FeedCommit[]>({
      kind: 'feed',
      storePath,
      claim,
      commits,
      minGapMs: 50,
      maxGapMs: 450,
    });
    const done = await worker.result;
    await new Promise((resolve) => setTimeout(resolve, DEFAULT_SETTINGS.sweepIntervalMs + 500));
    const latencies: number[] = [];
    let missed = 0;
    for (const c of done) {
      const push = pushes.find((p) => p.seq >= c.seq);
      if (push === undefined) missed += 1;
      else latencies.push(push.at - c.at);
    }
    const s = summarize(latencies);
    const limit = DEFAULT_SETTINGS.sweepIntervalMs + 50;
    const m = figure(
      'feed.latency',
      'change feed: runner commit → changed push',
      'concurrency',
      'ms',
      s.median,
      { text: `p95 < tick + 50 ms (${limit} ms)`, met: s.p95 < limit && missed === 0 },
      {
        commits: done.length,
        missed,
        p95: round(s.p95),
        max: round(s.max),
        tickMs: DEFAULT_SETTINGS.sweepIntervalMs,
      },
    );
    m.p95 = round(s.p95);
    m.n = latencies.length;
    log(`  ${m.label}: median ${m.median} ms, p95 ${m.p95} ms (${missed} missed)`);
    return m;
  } finally {
    host.dispose();
  }
}

export async function measureMemory(storePath: string, log: (line: string) => void): Promise<Measurement> {
  const worker = startWorker<MemoryResult>({ kind: 'memory', storePath }, ['--expose-gc']);
  const r = await worker.result;
  const m = figure(
    'memory.app-state',
    'main-process memory with the app state loaded (RSS)',
    'memory',
    'MB',
    r.rssAfterMb,
    null,
    { rssBeforeMb: r.rssBeforeMb, heapUsedMb: r.heapUsedMb, externalMb: r.externalMb, loadMs: r.loadMs },
    'a fresh Node process: host services + store opened, projects, first pages and attention loaded',
  );
  log(
    `  ${m.label}: RSS ${r.rssAfterMb} MB (was ${r.rssBeforeMb}), heap ${r.heapUsedMb} MB, load ${r.loadMs} ms`,
  );
  return m;
}
