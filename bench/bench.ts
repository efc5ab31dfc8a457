/**
 * `npm run bench`: builds a 100k-run store and measures every operation the issue names against its raw
 * SQLite baseline, then prints a table (met / missed per target) and writes artifacts/bench/latest.json.
 * A script, not a test: absolute times are this machine's; compare runs by their JSON.
 *
 *   node --expose-gc out/cli/bench.js [--runs N[,N...]] [--reps N] [--repeat N] [--no-browser] [--no-cache] ...
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { HOST_STORE_OPTIONS, startHostHygiene } from '../main/services/app-host';
import { PRUNE_PER_TX } from '../main/services/sweeper';
import { openStore } from '../main/store';
import { measureBrowser, type BrowserOptions } from './browser-ops';
import { startMachineLoad } from './machine-load';
import { benchStore } from './store-cache';
import { combineRepeats } from './repeat';
import { growthOf, growthTable, type SizeResult } from './growth';
import { measureAgentHook } from './agent-hook';
import {
  measureChangeFeed,
  measureCliStartup,
  measureHeartbeats,
  measureIdleHost,
  measureMemory,
} from './process-ops';
import { PAGE, measureReads } from './read-ops';
import { formatExtras, formatTable, machineInfo, summaryOf, writeJson, type BenchReport } from './report';
import type { Measurement } from './report-model';
import { measurePruning, measureSize } from './size-ops';
import { profileSql, type OpProfile } from './sql-profile';
import { measureSubreaperCost } from './subreaper-cost';
import { round } from './stats';
import {
  createSweepBench,
  measureDeadlineBurst,
  measureIdleTick,
  measureStaleBurst,
  releaseSweepBench,
} from './sweeper-ops';
import { runWorker } from './workers';
import { measureAnswer, measureStaleCancel } from './write-ops';
import { measureRemote } from './remote-ops';

const HELP = `Usage: npm run bench -- [options]
  --runs N[,N…]   runs in the generated store; several sizes are measured one after another and compared
                  (default 100000; e.g. 10000,100000,1000000)
  --repeat N      times each read, the idle tick and the heartbeat runs are measured; judged on the
                  median (default 3)
  --idle-seconds S  how long the host's idle CPU is measured (default 60)
  --only PART[,…] measure only these parts: reads, writes, sweeper, heartbeats, feed, idle, memory, cli,
                  hook (agents hook, when this build has it), browser, size, remote (other
                  machines over a real sshd on 127.0.0.1, three stores of 10,000 runs; skipped
                  without sshd) (default: all)
  --cpu-prof DIR  the idle host's process writes a V8 CPU profile into DIR
  --cache-dir DIR generated stores are kept here between runs (default .cache/bench)
  --no-cache      always generate, keep nothing
  --projects N    projects (default 200)
  --reps N        repetitions per timed operation (default 300)
  --dir DIR       where to build the store (default: a temp folder, removed afterwards)
  --keep          keep the store afterwards
  --no-browser    skip the Chromium part
  --chromium P    Chromium binary (default $RUNWARDEN_CHROMIUM or /usr/bin/chromium)
  --load N        measure the window twice: quiet, then with a second process keeping N threads busy
                  (default 0: quiet only)
  --vacuum        VACUUM after pruning, to show the file shrink (slow on a big store)
  --out DIR       where the JSON goes (default artifacts/bench)`;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '100000' },
      repeat: { type: 'string', default: '3' },
      'idle-seconds': { type: 'string', default: '60' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'cache-dir': { type: 'string', default: path.join('.cache', 'bench') },
      'no-cache': { type: 'boolean', default: false },
      projects: { type: 'string', default: '200' },
      reps: { type: 'string', default: '300' },
      dir: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'no-browser': { type: 'boolean', default: false },
      chromium: { type: 'string', default: process.env.RUNWARDEN_CHROMIUM ?? '/usr/bin/chromium' },
      load: { type: 'string', default: '0' },
      vacuum: { type: 'boolean', default: false },
      out: { type: 'string', default: path.join('artifacts', 'bench') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    log(HELP);
    return 0;
  }
  const sizes = values.runs.split(',').map((x) => Number(x.trim()));
  const numbers = {
    projects: Number(values.projects),
    reps: Number(values.reps),
    repeat: Number(values.repeat),
  };
  const load = Number(values.load);
  if (!Number.isInteger(load) || load < 0) throw new Error('--load wants a whole number of threads');
  const idleSeconds = Number(values['idle-seconds']);
  for (const [name, n] of [...sizes.map((x) => ['--runs', x] as const), ...Object.entries(numbers)]) {
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`${name} wants a whole number of at least 1, not ${String(n)}`);
  }
  if (!Number.isFinite(idleSeconds) || idleSeconds < 0)
    throw new Error('--idle-seconds wants a number of seconds');
  const only = values.only === undefined ? null : values.only.split(',').map((x) => x.trim());
  const unknown = only?.filter((part) => !(PARTS as readonly string[]).includes(part)) ?? [];
  if (unknown.length > 0) throw new Error(`--only: unknown part ${unknown.join(', ')} (${PARTS.join(', ')})`);
  const parts = new Set((only ?? PARTS) as Part[]);
  const cpuProfDir = values['cpu-prof'] === undefined ? null : path.resolve(values['cpu-prof']);
  const cacheDir = values['no-cache'] ? null : values['cache-dir'];
  const results: SizeResult[] = [];
  const started = performance.now();
  // The remote part has stores of its own: `--only remote` builds no store of --runs.
  const sizeParts = [...parts].filter((part) => part !== 'remote');
  for (const runs of sizeParts.length === 0 ? [] : sizes) {
    results.push(
      await benchSize(
        { ...values, runs, ...numbers, idleSeconds, cacheDir, parts, cpuProfDir, load },
        sizes.length > 1,
      ),
    );
  }
  if (results.length > 1) {
    log(
      `\nGrowth from ${sizes[0]?.toLocaleString('en-US')} to ${sizes.at(-1)?.toLocaleString('en-US')} runs:\n${growthTable(results)}\n`,
    );
    fs.mkdirSync(values.out, { recursive: true });
    const file = path.join(values.out, 'growth.json');
    fs.writeFileSync(
      file,
      `${JSON.stringify({ sizes, load: loadText(), reads: growthOf(results) }, null, 2)}\n`,
    );
    log(`Growth JSON: ${file}`);
  }
  if (parts.has('remote')) await benchRemote({ cacheDir, idleSeconds, out: values.out });
  log(`All sizes: ${round((performance.now() - started) / 1_000, 1)} s`);
  return results.every((r) => r.ok) ? 0 : 1;
}

/** What `--only` can pick; everything by default. */
const PARTS = [
  'reads',
  'writes',
  'sweeper',
  'heartbeats',
  'feed',
  'idle',
  'memory',
  'cli',
  'hook',
  'browser',
  'size',
  'remote',
] as const;
type Part = (typeof PARTS)[number];

interface SizeOptions {
  parts: ReadonlySet<Part>;
  cpuProfDir: string | null;
  runs: number;
  projects: number;
  reps: number;
  repeat: number;
  idleSeconds: number;
  cacheDir: string | null;
  dir?: string | undefined;
  keep: boolean;
  'no-browser': boolean;
  chromium: string;
  /** Threads of the load process the window is measured under a second time; 0 for quiet only. */
  load: number;
  vacuum: boolean;
  out: string;
}

function loadText(): string {
  return os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');
}

/** One store size: generate (or take from the cache), measure everything, print the table, write the JSON. */
async function benchSize(values: SizeOptions, several: boolean): Promise<SizeResult> {
  const { runs, projects, reps, repeat } = values;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const dir = values.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-bench-'));
  const storePath = path.join(dir, `state-${runs}.sqlite`);
  const measurements: Measurement[] = [];
  const plans: Record<string, OpProfile> = {};
  const loadBefore = loadText();

  log(
    `Runwarden bench — ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, load ${loadBefore} (1/5/15 min)`,
  );
  log(`Store of ${runs.toLocaleString('en-US')} runs over ${projects} projects in ${storePath}`);
  const source = benchStore(
    {
      storePath,
      runs,
      projects,
      eventsPerRun: 20,
      now: Date.now(),
      onProgress: (done, total) =>
        process.stdout.write(`\r  ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} runs`),
    },
    values.cacheDir,
    log,
  );
  const gen = source.store;
  log(
    `\n  ${gen.events.toLocaleString('en-US')} events, ${gen.attempts.toLocaleString('en-US')} attempts, ${gen.interactions} questions, ${gen.effects} effects in ${round(gen.ms / 1_000, 1)} s`,
  );

  // The connection the app's main process has: its busy timeout, checkpoints and merges on a worker thread.
  const store = openStore(storePath, HOST_STORE_OPTIONS);
  const hygiene = startHostHygiene(store);
  if (hygiene === null || !(await hygiene.ready)) {
    log('  warning: no hygiene worker; checkpoints and search merges run on the main thread');
  }
  try {
    const doctorStart = performance.now();
    const doctor = store.doctor();
    log(
      `  doctor: ${doctor.contradictions.length} contradictions, integrity ${doctor.integrity}, ${doctor.staleLeases} stale leases (${round((performance.now() - doctorStart) / 1_000, 1)} s)`,
    );
    if (doctor.contradictions.length > 0 || doctor.integrity !== 'ok') {
      for (const c of doctor.contradictions.slice(0, 10)) log(`    ${c.runId}: ${c.problem}`);
      throw new Error('the generated store is not valid; fix the generator before trusting any figure');
    }
    const sqlite = (store.db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;

    // Pools: each scenario gets its own runs, so none sees another's leftovers.
    const stale = new Set(gen.staleRunIds);
    const waiting = gen.pendingInteractions.filter((p) => !stale.has(p.runId));
    const waitingRuns = new Set(waiting.map((p) => p.runId));
    const running = gen.liveClaims.filter((c) => !waitingRuns.has(c.runId));
    const burstSize = Math.min(1_000, Math.floor(running.length / 2), Math.floor(waiting.length / 2));
    const heartbeatClaims = running.slice(0, 64);
    const feedClaim = running[64];
    const staleBurst = running.slice(100, 100 + burstSize).map((c) => c.runId);
    const deadlineBurst = waiting.slice(0, burstSize).map((p) => p.id);
    const answerPool = waiting.slice(burstSize);

    const projectPath = gen.projectPaths[Math.min(20, gen.projectPaths.length - 1)] as string;
    const projectId = (
      store.db.prepare('SELECT id FROM projects WHERE canonical_path = ?').get(projectPath) as { id: number }
    ).id;

    const want = (part: Part) => values.parts.has(part);
    if (want('reads')) {
      log(`\nReads (app vs raw SQL, interleaved; ${repeat} repeats, judged on their median):`);
      const readContext = {
        store,
        db: store.db,
        projectPath,
        projectId,
        searchCommon: gen.searchCommon,
        searchRare: gen.searchRare,
        reps,
      };
      measurements.push(
        ...combineRepeats(Array.from({ length: repeat }, () => measureReads(readContext, log))),
      );

      // Statements per call and full scans, on a second, instrumented connection.
      const probe = openStore(storePath);
      try {
        const profiler = profileSql(probe.db);
        const ops: Record<string, () => unknown> = {
          'list.first': () => probe.listRuns({ view: 'all', limit: PAGE }),
          'list.needs-you': () => probe.listRuns({ view: 'needs-you', limit: PAGE }),
          'list.search': () => probe.listRuns({ view: 'all', limit: PAGE, search: gen.searchCommon }),
          'projects.counts': () => probe.listProjects(),
          'attention.summary': () => probe.attentionSummary(20),
          'detail.first-events': () => probe.getRunDetail(running[0]?.runId as string, { eventsLimit: 200 }),
        };
        for (const [id, op] of Object.entries(ops)) {
          plans[id] = profiler.measure(op);
          const m = measurements.find((x) => x.id === id);
          if (m !== undefined)
            m.extra = {
              ...m.extra,
              statementsPerCall: plans[id].statements,
              fullScans: plans[id].scans.length,
            };
        }
      } finally {
        probe.close();
      }
    }

    if (want('writes')) {
      log('\nWrites:');
      measurements.push(measureStaleCancel(store, gen.staleRunIds, log));
      measurements.push(measureAnswer(store, answerPool, log));
    }

    if (want('sweeper')) {
      log('\nSweeper:');
      const sweepBench = createSweepBench(store, hygiene);
      measurements.push(
        ...combineRepeats(Array.from({ length: repeat }, () => [measureIdleTick(sweepBench, log)])),
      );
      measurements.push(measureStaleBurst(sweepBench, staleBurst, log));
      measurements.push(measureDeadlineBurst(sweepBench, deadlineBurst, log));
      releaseSweepBench(sweepBench);
    }

    log('\nProcesses:');
    if (want('heartbeats')) {
      measurements.push(await measureHeartbeats(storePath, heartbeatClaims, 8, 4_000, repeat, log));
    }
    if (want('feed') && feedClaim !== undefined) {
      const feeds: Measurement[][] = [];
      for (let i = 0; i < repeat; i += 1)
        feeds.push([await measureChangeFeed(storePath, feedClaim, 30, log)]);
      measurements.push(...combineRepeats(feeds));
    }
    if (want('idle') && values.idleSeconds > 0)
      measurements.push(await measureIdleHost(store, values.idleSeconds * 1_000, log, values.cpuProfDir));
    if (want('memory')) measurements.push(await measureMemory(storePath, log));
    const cliClaim = running[65];
    if (want('cli') && cliClaim !== undefined)
      measurements.push(measureCliStartup(storePath, cliClaim, 30, log));
    if (want('cli')) measurements.push(...measureSubreaperCost(20, log));
    // A folder that exists: a hook run from a missing one only says so (the agent goes on).
    if (want('hook')) measurements.push(...measureAgentHook(storePath, path.dirname(storePath), 30, log));

    if (want('browser') && !values['no-browser']) {
      const browser: BrowserOptions = {
        storePath,
        navigations: 20,
        scrollMs: 4_000,
        executablePath: values.chromium,
        searches: [gen.searchCommon, gen.searchRare, 'deploy', 'agent', 'release']
          .map((needle) => ({
            needle,
            firstId: store.listRuns({ view: 'all', limit: 1, search: needle }).items[0]?.run.id ?? '',
          }))
          .filter((s) => s.firstId !== ''),
      };
      measurements.push(...(await measureWindow(browser, values.load)));
    }

    if (want('size')) {
      log('\nSize:');
      measurements.push(measureSize(store, runs, log));
      measurements.push(
        measurePruning(
          store,
          { retentionDays: 30, batch: PRUNE_PER_TX, maxRuns: 20_000, vacuum: values.vacuum },
          log,
        ),
      );
    }

    const loadAfter = loadText();
    const report: BenchReport = {
      startedAt,
      machine: { ...machineInfo(sqlite), loadBefore, loadAfter },
      config: { runs, projects, reps, repeat, pageSize: PAGE, eventsPerRun: 20, storeFrom: source.origin },
      store: {
        runs: gen.runs,
        projects: gen.projects,
        events: gen.events,
        attempts: gen.attempts,
        interactions: gen.interactions,
        effects: gen.effects,
        kinds: gen.kinds,
        generateSeconds: round(gen.ms / 1_000, 1),
      },
      measurements,
      plans,
      summary: summaryOf(measurements),
      seconds: round((performance.now() - started) / 1_000, 1),
    };
    log(
      `\n${runs.toLocaleString('en-US')} runs — machine load ${loadBefore} before, ${loadAfter} after (1/5/15 min averages, ${os.cpus().length} CPUs)`,
    );
    log(`${formatTable(measurements)}\n`);
    log(`Details:\n${formatExtras(measurements)}\n`);
    for (const [id, p] of Object.entries(plans)) {
      for (const scan of p.scans)
        log(`  full scan in ${id}: ${scan.plan.join(' | ')}\n    ${scan.sql.slice(0, 160)}`);
    }
    const file = writeJson(several ? path.join(values.out, `runs-${runs}`) : values.out, report);
    log(
      `\n${report.summary.met} met, ${report.summary.missed} missed, ${report.summary.untargeted} without a target — ${report.seconds} s. JSON: ${file}`,
    );
    return { runs, measurements, ok: true };
  } finally {
    await hygiene?.stop();
    store.close();
    if (!values.keep && values.dir === undefined) fs.rmSync(dir, { recursive: true, force: true });
    else log(`Store kept at ${storePath}`);
  }
}

/** Other machines over a real sshd (bench/remote-ops.ts): its own table and JSON (`<out>/remote/`). */
async function benchRemote(values: {
  cacheDir: string | null;
  idleSeconds: number;
  out: string;
}): Promise<void> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const loadBefore = loadText();
  log(`\nOther machines over ssh on 127.0.0.1 (3 stores of 10,000 runs) — load ${loadBefore}:`);
  const measurements = await measureRemote({ ...values, log });
  if (measurements.length === 0) return;
  const loadAfter = loadText();
  const probe = new Database(':memory:');
  const sqlite = (probe.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  probe.close();
  log(
    `\nOther machines — machine load ${loadBefore} before, ${loadAfter} after (1/5/15 min averages, ${os.cpus().length} CPUs)`,
  );
  log(`${formatTable(measurements)}\n`);
  log(`Details:\n${formatExtras(measurements)}\n`);
  const report: BenchReport = {
    startedAt,
    machine: { ...machineInfo(sqlite), loadBefore, loadAfter },
    config: { runsPerMachine: 10_000, machines: 3, idleSeconds: values.idleSeconds },
    store: {},
    measurements,
    plans: {},
    summary: summaryOf(measurements),
    seconds: round((performance.now() - started) / 1_000, 1),
  };
  const file = writeJson(path.join(values.out, 'remote'), report);
  log(`${report.summary.met} met, ${report.summary.missed} missed — ${report.seconds} s. JSON: ${file}`);
}

/**
 * The window in Chromium, quiet; then, with `--load N`, again while a second process keeps N threads busy
 * (`bench/machine-load.ts`): those figures carry `.loaded` in their id and the load in their label.
 */
async function measureWindow(options: BrowserOptions, load: number): Promise<Measurement[]> {
  const out: Measurement[] = [];
  log(`\nChromium (runwarden serve), quiet — load ${loadText()}:`);
  try {
    out.push(...(await measureBrowser(options, log)));
  } catch (error) {
    log(`  skipped: ${(error as Error).message.split('\n')[0]}`);
    return out;
  }
  if (load === 0) return out;
  const busy = await startMachineLoad(load);
  try {
    log(`\nChromium (runwarden serve), loaded by a process with ${load} busy threads — load ${loadText()}:`);
    const loaded = await measureBrowser(options, log);
    for (const m of loaded) {
      out.push({
        ...m,
        id: `${m.id}.loaded`,
        label: `${m.label} — loaded (${load} busy threads)`,
        extra: { ...m.extra, loadThreads: load, loadAverage: loadText() },
      });
    }
  } catch (error) {
    log(`  loaded run skipped: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    await busy.stop();
  }
  return out;
}

if (process.argv.includes('--worker')) {
  runWorker();
} else {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
