/**
 * The multi-process figures: heartbeat throughput from 8 runner processes at once, change-feed latency
 * (a runner's commit → the host's `changed` push), and main-process memory with the app state loaded.
 */
import { DEFAULT_SETTINGS } from '../shared/views';
import { runnerEnv } from '../main/runner/runner-env';
import { createAppHost } from '../main/services/app-host';
import { FEED_POLL_MS } from '../main/services/sweeper';
import { SEARCH_MERGE_PAGES, type RunStore } from '../main/store';
import type { LiveClaim } from './generate-store';
import { figure, type Measurement } from './report-model';
import { round, summarize } from './stats';
import { CLI_BIN, measureWholeProcess } from './whole-process';
import {
  startWorker,
  type FeedCommit,
  type HeartbeatMode,
  type HeartbeatResult,
  type IdleResult,
  type MemoryResult,
} from './workers';

interface HeartbeatRun {
  perSecond: number;
  ok: number;
  fenced: number;
  busy: number;
  other: number;
  elapsedMs: number;
  worstP95Ms: number;
}

async function heartbeatRun(
  storePath: string,
  claims: readonly LiveClaim[],
  processes: number,
  durationMs: number,
  mode: HeartbeatMode,
): Promise<HeartbeatRun> {
  const perProcess = Math.floor(claims.length / processes);
  const startAt = Date.now() + 1_500;
  const workers = Array.from({ length: processes }, (_, p) =>
    startWorker<HeartbeatResult>({
      kind: 'heartbeat',
      storePath,
      claims: claims.slice(p * perProcess, (p + 1) * perProcess),
      durationMs,
      startAt,
      mode,
    }),
  );
  const results = await Promise.all(workers.map((w) => w.result));
  const sum = (pick: (r: HeartbeatResult) => number) => results.reduce((acc, r) => acc + pick(r), 0);
  const elapsedMs = Math.max(...results.map((r) => r.elapsedMs));
  const ok = sum((r) => r.ok);
  return {
    perSecond: (ok / elapsedMs) * 1_000,
    ok,
    fenced: sum((r) => r.fenced),
    busy: sum((r) => r.busy),
    other: sum((r) => r.otherErrors),
    elapsedMs,
    worstP95Ms: Math.max(...results.map((r) => r.p95Ms)),
  };
}

/**
 * Heartbeat throughput of `processes` runner processes at once, as shipped, beside its baseline (every renewal
 * in its own fsynced commit) and the ceiling (the whole connection NORMAL), measured in turn `repeat` times:
 * each figure is the median of its runs, as the reads and the idle tick are judged (one 4 s window on a
 * shared machine swings by a quarter either way).
 */
export async function measureHeartbeats(
  storePath: string,
  claims: readonly LiveClaim[],
  processes: number,
  durationMs: number,
  repeat: number,
  log: (line: string) => void,
): Promise<Measurement> {
  const runs: Array<Record<HeartbeatMode, HeartbeatRun>> = [];
  for (let i = 0; i < Math.max(1, repeat); i += 1) {
    const base = await heartbeatRun(storePath, claims, processes, durationMs, 'fsync-each');
    const app = await heartbeatRun(storePath, claims, processes, durationMs, 'app');
    const ceiling = await heartbeatRun(storePath, claims, processes, durationMs, 'normal');
    runs.push({ 'fsync-each': base, app, normal: ceiling });
    log(
      `  heartbeats, run ${i + 1}: ${Math.round(app.perSecond)}/s (BUSY ${app.busy}); fsync each ${Math.round(base.perSecond)}/s; whole connection NORMAL ${Math.round(ceiling.perSecond)}/s`,
    );
  }
  const medianOf = (mode: HeartbeatMode) => summarize(runs.map((r) => r[mode].perSecond)).median;
  const total = (pick: (r: HeartbeatRun) => number) => runs.reduce((acc, r) => acc + pick(r.app), 0);
  const app = medianOf('app');
  const base = medianOf('fsync-each');
  const busy = total((r) => r.busy);
  const other = total((r) => r.other);
  const m = figure(
    'heartbeat.throughput',
    `heartbeats/s, ${processes} runner processes at once`,
    'concurrency',
    '/s',
    app,
    { text: '> 5,000/s and 0 SQLITE_BUSY', met: app > 5_000 && busy === 0 && other === 0 },
    {
      runs: runs.length,
      perRun: runs.map((r) => Math.round(r.app.perSecond)).join(' / '),
      heartbeats: total((r) => r.ok),
      busySurfaced: busy,
      fenced: total((r) => r.fenced),
      otherErrors: other,
      worstProcessP95Ms: round(Math.max(...runs.map((r) => r.app.worstP95Ms))),
      secondsEach: round(durationMs / 1_000, 2),
      fsyncEachPerSecond: Math.round(base),
      fsyncEachBusy: runs.reduce((acc, r) => acc + r['fsync-each'].busy, 0),
      connectionNormalPerSecond: Math.round(medianOf('normal')),
    },
    'medians of the runs; baseline: the same renewals as raw statements, each in its own fsynced (FULL) commit; connectionNormal: the whole connection at synchronous=NORMAL (ceiling, not shipped)',
  );
  m.baselineMedian = round(base);
  m.ratio = round(app / base, 2);
  log(
    `  ${m.label}: median ${Math.round(app)}/s of ${runs.length} runs, BUSY surfaced ${busy}; baseline (fsync each) ${Math.round(base)}/s, ×${m.ratio}`,
  );
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
    const m = figure(
      'feed.latency',
      'change feed: runner commit → changed push',
      'concurrency',
      'ms',
      s.median,
      { text: 'p95 < 100 ms, median < 50 ms', met: s.p95 < 100 && s.median < 50 && missed === 0 },
      {
        commits: done.length,
        missed,
        p95: round(s.p95),
        max: round(s.max),
        tickMs: DEFAULT_SETTINGS.sweepIntervalMs,
        feedPollMs: FEED_POLL_MS,
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
    { text: '< 120 MB', met: r.rssAfterMb < 120 },
    { rssBeforeMb: r.rssBeforeMb, heapUsedMb: r.heapUsedMb, externalMb: r.externalMb, loadMs: r.loadMs },
    'a fresh Node process: host services + store opened, projects, first pages and attention loaded',
  );
  log(
    `  ${m.label}: RSS ${r.rssAfterMb} MB (was ${r.rssBeforeMb}), heap ${r.heapUsedMb} MB, load ${r.loadMs} ms`,
  );
  return m;
}

/**
 * What the host costs when nothing happens: the CPU time (all threads: the sweeper, the feed timer, the
 * hygiene worker, GC) of a fresh process that runs only the host, over `durationMs`, as a share of one core.
 * With `cpuProfDir` that process also writes a V8 CPU profile there (`node --cpu-prof`).
 */
export async function measureIdleHost(
  store: RunStore,
  durationMs: number,
  log: (line: string) => void,
  cpuProfDir: string | null = null,
): Promise<Measurement> {
  // Search-index merge work a freshly generated store still holds is the hygiene worker's to finish once, not
  // an idle cost: done here first, as the app's worker would have done long before.
  let rounds = 0;
  while (store.mergeSearchIndex(SEARCH_MERGE_PAGES)) rounds += 1;
  store.checkpoint();
  const storePath = store.path;
  const execArgv = cpuProfDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', cpuProfDir];
  const r = await startWorker<IdleResult>({ kind: 'idle', storePath, settleMs: 3_000, durationMs }, execArgv)
    .result;
  const share = ((r.userMs + r.systemMs) / r.wallMs) * 100;
  // The baseline, right after: the same worker process with no host in it, for the machine's own share.
  const bare = await startWorker<IdleResult>({
    kind: 'idle',
    storePath,
    settleMs: 3_000,
    durationMs,
    bare: true,
  }).result;
  const bareShare = ((bare.userMs + bare.systemMs) / bare.wallMs) * 100;
  const m = figure(
    'host.idle-cpu',
    `host idle CPU over ${Math.round(r.wallMs / 1_000)} s (share of one core)`,
    'concurrency',
    '%',
    share,
    { text: '< 1 % of one core', met: share < 1 },
    {
      userMs: round(r.userMs),
      systemMs: round(r.systemMs),
      pushes: r.pushes,
      tickMs: DEFAULT_SETTINGS.sweepIntervalMs,
      feedPollMs: FEED_POLL_MS,
      mergeRoundsBefore: rounds,
    },
    'a fresh process running only the host (its own hygiene worker included); baseline: the same worker process with no host, idle as long',
  );
  m.baselineMedian = round(bareShare, 3);
  log(
    `  ${m.label}: ${round(share, 3)} % (${r.pushes} pushes meanwhile); baseline, no host: ${round(bareShare, 3)} %`,
  );
  return m;
}

/**
 * A runner calls `runwarden notify` (and `progress`, `step`) often: the whole process, start to exit, against
 * `node -e 0` measured interleaved in the same run.
 */
export function measureCliStartup(
  storePath: string,
  claim: LiveClaim,
  reps: number,
  log: (line: string) => void,
): Measurement {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    ...runnerEnv(storePath, {
      runId: claim.runId,
      token: claim.token,
      generation: claim.generation,
      ownerType: 'runner',
    }),
  };
  return measureWholeProcess(
    {
      id: 'cli.notify',
      label: 'CLI start-up: runwarden notify, whole process',
      env,
      args: (i) => [CLI_BIN, 'notify', '--level', 'info', `bench ${i}`],
    },
    reps,
    log,
  );
}
