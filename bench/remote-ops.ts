/**
 * `--only remote`: other machines over a real OpenSSH server on 127.0.0.1 (the tests' own fixture,
 * test/helpers/sshd.ts), beside the same figures for this machine, measured in the same run. Three stores of
 * 10,000 runs: this machine's, and two "remotes" reached through sshd with `--runwarden` naming their store.
 * The figures: a commit on a remote reaching the host (its `remotes` push) and the window's list read after
 * it; the first page of the run list over three machines; the idle CPU of an attached machine on each side.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RemotesPush } from '../shared/remotes';
import { LIST_FIRST_PAGE_SIZE, type RunListItem } from '../shared/views';
import { descendantsOf } from '../main/runner/process-tree';
import { createAppHost } from '../main/services/app-host';
import type { AppHost } from '../main/services/host-types';
import { addRemote } from '../main/services/remote/remotes';
import { openStore } from '../main/store';
import { sshdAvailable, startSshd, type SshFixture } from '../test/helpers/sshd';
import type { GeneratedStore, LiveClaim } from './generate-store';
import { timedMeasurement, figure, type Measurement } from './report-model';
import { round, summarize } from './stats';
import { benchStore } from './store-cache';
import { CLI_BIN } from './whole-process';
import { startWorker, type FeedCommit, type IdleResult } from './workers';

const RUNS = 10_000;
const MACHINES = ['box', 'gpu'] as const;
/** The fixture's ssh config knows these Host aliases (both reach 127.0.0.1 with its key). */
const ALIASES: Record<(typeof MACHINES)[number], string> = { box: 'box', gpu: 'other' };
const COMMITS = 40;
const LIST_REPS = 60;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const preciseNow = () => performance.timeOrigin + performance.now();

export interface RemoteBenchOptions {
  cacheDir: string | null;
  idleSeconds: number;
  log: (line: string) => void;
}

interface Stores {
  dir: string;
  here: GeneratedStore;
  remotes: Record<string, GeneratedStore>;
}

/** The remote part, or nothing (said why) when sshd cannot be started here. */
export async function measureRemote(options: RemoteBenchOptions): Promise<Measurement[]> {
  const { log } = options;
  if (!sshdAvailable()) {
    log('  skipped: no OpenSSH server here (/usr/sbin/sshd, ssh and ssh-keygen are needed)');
    return [];
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-bench-remote-'));
  let sshd: SshFixture | null = null;
  const oldPath = process.env.PATH;
  try {
    try {
      sshd = await startSshd(dir);
    } catch (error) {
      log(`  skipped: sshd does not start here (${(error as Error).message.split('\n')[0]})`);
      return [];
    }
    const stores = prepareStores(dir, options);
    // The host starts `ssh` from PATH: the fixture's wrapper, which adds its own config (never ~/.ssh).
    process.env.PATH = sshd.env.PATH;
    const out: Measurement[] = [];
    out.push(...(await measureLatencyAndPages(stores, log)));
    if (options.idleSeconds > 0) out.push(...(await measureIdle(stores, sshd, options.idleSeconds, log)));
    return out;
  } finally {
    process.env.PATH = oldPath;
    sshd?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function prepareStores(dir: string, options: RemoteBenchOptions): Stores {
  const make = (name: string): GeneratedStore =>
    benchStore(
      {
        storePath: path.join(dir, `${name}.sqlite`),
        runs: RUNS,
        projects: 200,
        eventsPerRun: 20,
        now: Date.now(),
      },
      options.cacheDir,
      options.log,
    ).store;
  const here = make('here');
  const remotes: Record<string, GeneratedStore> = {};
  for (const name of MACHINES) remotes[name] = make(name);
  const store = openStore(here.storePath);
  try {
    for (const name of MACHINES) {
      addRemote(
        store,
        {
          name,
          dest: ALIASES[name],
          runwarden: `env RUNWARDEN_STORE=${(remotes[name] as GeneratedStore).storePath} ${process.execPath} ${CLI_BIN}`,
        },
        { type: 'human', id: 'bench', surface: 'cli' },
      );
    }
  } finally {
    store.close();
  }
  return { dir, here, remotes };
}

/** A host over this machine's store with the remotes attached, recording when each push arrived. */
interface WatchedHost {
  host: AppHost;
  machines: RemotesPush['machines'];
  onPush: Array<(event: string, payload: unknown) => void>;
}

function startWatchedHost(storePath: string): WatchedHost {
  const watched: WatchedHost = { host: null as never, machines: [], onPush: [] };
  watched.host = createAppHost({
    storePath,
    surface: 'browser',
    actorId: 'bench',
    notifier: { show: () => {} },
    push: (event, payload) => {
      if (event === 'remotes') watched.machines = (payload as RemotesPush).machines;
      for (const listener of watched.onPush) listener(event, payload);
    },
  });
  watched.host.start();
  return watched;
}

async function waitUntil(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function connectedAndRead(watched: WatchedHost): boolean {
  return (
    watched.machines.length === MACHINES.length &&
    watched.machines.every((m) => m.state === 'connected' && m.readAt !== null)
  );
}

async function measureLatencyAndPages(stores: Stores, log: (line: string) => void): Promise<Measurement[]> {
  const watched = startWatchedHost(stores.here.storePath);
  try {
    const started = performance.now();
    await waitUntil('both remotes connected and read', () => connectedAndRead(watched));
    log(`  two remotes connected and read in ${Math.round(performance.now() - started)} ms`);
    await sleep(1_000);
    const local = await commitLatency(watched, stores.here, null, log);
    const remote = await commitLatency(watched, stores.remotes.box as GeneratedStore, 'box', log);
    const pages = await firstPages(watched.host, log);
    return [...pairLatency(local, remote), ...pages];
  } finally {
    watched.host.dispose();
  }
}

/** A run of `gen` that needs a person and whose lease the bench holds: among the first rows of Needs you. */
function waitingClaim(gen: GeneratedStore): LiveClaim {
  const claims = new Map(gen.liveClaims.map((c) => [c.runId, c]));
  const store = openStore(gen.storePath, { readonly: true });
  try {
    const page = store.listRuns({ view: 'needs-you', limit: 20 });
    const item = page.items.find((i) => claims.has(i.run.id));
    if (item === undefined) throw new Error('no run of the first page of Needs you has a live lease');
    return claims.get(item.run.id) as LiveClaim;
  } finally {
    store.close();
  }
}

interface Latency {
  /** Commit → the host knows (this machine: the `changed` push; a remote: its `remotes` push with the row). */
  host: number[];
  /** Commit → the window's list read after that push returns the row as committed. */
  page: number[];
  missed: number;
}

/** The number in "feed N" a row shows, or -1. */
function feedNumber(item: RunListItem | undefined): number {
  const match = /^feed (\d+)$/.exec(item?.run.statusDetail ?? '');
  return match === null ? -1 : Number(match[1]);
}

/**
 * A forked runner commits progress on one run COMMITS times at random 50–450 ms gaps (as the change-feed
 * figure does); each commit counts as arrived at the first push, and the first list read after a push,
 * that show it or a later one.
 */
async function commitLatency(
  watched: WatchedHost,
  gen: GeneratedStore,
  machine: string | null,
  log: (line: string) => void,
): Promise<Latency> {
  const claim = waitingClaim(gen);
  const id = machine === null ? claim.runId : `${machine}:${claim.runId}`;
  const hostSeen: Array<{ n: number; at: number }> = [];
  const pageSeen: Array<{ n: number; at: number }> = [];
  let reading = false;
  let again = false;
  // The window's reaction: one list read at a time, another after it when a push came meanwhile; the list
  // shows the run's machine alone (the Machine filter): the three stores are copies, and a merged page of
  // Needs you would put every question of this machine, due as soon, before the remote's.
  const readList = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    do {
      again = false;
      const page = await watched.host.dispatch('runs:list', {
        view: 'needs-you',
        limit: LIST_FIRST_PAGE_SIZE,
        machine: machine ?? 'this',
      });
      const item = page.ok ? page.value.items.find((i) => i.run.id === id) : undefined;
      pageSeen.push({ n: feedNumber(item), at: preciseNow() });
    } while (again);
    reading = false;
  };
  const listener = (event: string, payload: unknown): void => {
    const at = preciseNow();
    if (machine === null && event === 'changed') {
      const runIds = (payload as { runIds?: string[] }).runIds ?? [];
      if (runIds.includes(claim.runId)) hostSeen.push({ n: Number.NaN, at });
    } else if (machine !== null && event === 'remotes') {
      const view = (payload as RemotesPush).machines.find((m) => m.name === machine);
      hostSeen.push({ n: feedNumber(view?.needsYou.find((r) => r.run.id === claim.runId)), at });
    } else return;
    void readList();
  };
  watched.onPush.push(listener);
  try {
    const commits = await startWorker<FeedCommit[]>({
      kind: 'feed',
      storePath: gen.storePath,
      claim,
      commits: COMMITS,
      minGapMs: 50,
      maxGapMs: 450,
    }).result;
    await sleep(3_000);
    return matchCommits(commits, hostSeen, pageSeen, machine, log);
  } finally {
    watched.onPush.splice(watched.onPush.indexOf(listener), 1);
  }
}

function matchCommits(
  commits: FeedCommit[],
  hostSeen: Array<{ n: number; at: number }>,
  pageSeen: Array<{ n: number; at: number }>,
  machine: string | null,
  log: (line: string) => void,
): Latency {
  const out: Latency = { host: [], page: [], missed: 0 };
  commits.forEach((commit, i) => {
    // This machine's `changed` push names the run, not its text: the first one after the commit.
    const host = hostSeen.find((s) => (Number.isNaN(s.n) ? s.at >= commit.at : s.n >= i));
    const page = pageSeen.find((s) => s.n >= i && s.at >= commit.at);
    if (host === undefined || page === undefined) out.missed += 1;
    if (host !== undefined) out.host.push(host.at - commit.at);
    if (page !== undefined) out.page.push(page.at - commit.at);
  });
  const h = summarize(out.host);
  const p = summarize(out.page);
  log(
    `  ${machine ?? 'this machine'}: commit → host median ${round(h.median, 1)} / p95 ${round(h.p95, 1)} ms, → list read median ${round(p.median, 1)} / p95 ${round(p.p95, 1)} ms (${out.missed} missed of ${commits.length})`,
  );
  return out;
}

function pairLatency(local: Latency, remote: Latency): Measurement[] {
  const note =
    "a forked runner commits progress at 50–450 ms gaps; the window: one read of Needs you, filtered to the run's machine, through the host after each push";
  const host = timedMeasurement(
    'remote.commit-to-host',
    'remote commit → host (remotes push), over ssh',
    'concurrency',
    { app: remote.host, baseline: local.host },
    250,
    `baseline: this machine's commit → changed push, same host, same run; ${note}`,
  );
  const page = timedMeasurement(
    'remote.commit-to-list',
    'remote commit → window list read shows it, over ssh',
    'concurrency',
    { app: remote.page, baseline: local.page },
    250,
    `baseline: this machine's commit → list read, same host; ${note}`,
  );
  host.extra = { missed: remote.missed, localMissed: local.missed, localP95: host.baselineP95 };
  page.extra = { missed: remote.missed, localMissed: local.missed, localP95: page.baselineP95 };
  if (remote.missed > 0) host.met = false;
  if (remote.missed > 0) page.met = false;
  return [host, page];
}

/** The run list's first page over three machines against this machine's alone, interleaved. */
async function firstPages(host: AppHost, log: (line: string) => void): Promise<Measurement[]> {
  const out: Measurement[] = [];
  for (const view of ['all', 'needs-you'] as const) {
    const all: number[] = [];
    const here: number[] = [];
    for (let i = 0; i < LIST_REPS; i += 1) {
      for (const [machine, into] of [
        [undefined, all],
        ['this', here],
      ] as const) {
        const t = performance.now();
        const page = await host.dispatch('runs:list', {
          view,
          limit: LIST_FIRST_PAGE_SIZE,
          ...(machine !== undefined && { machine }),
        });
        into.push(performance.now() - t);
        if (!page.ok) throw new Error(`runs:list failed: ${page.error.message}`);
        if (
          machine === undefined &&
          !MACHINES.every((m) => page.value.items.some((x) => x.run.id.startsWith(`${m}:`)))
        )
          if (view === 'all') throw new Error('the first page over three machines has no remote rows');
      }
    }
    const m = timedMeasurement(
      `remote.first-page.${view}`,
      `first page (${view}), 3 machines × 10k runs, at the host`,
      'concurrency',
      { app: all, baseline: here },
      300,
      `baseline: this machine's page alone (machine=this), interleaved; ${LIST_FIRST_PAGE_SIZE} rows, ${LIST_REPS} each`,
    );
    log(
      `  ${m.label}: median ${m.median} / p95 ${m.p95} ms; this machine alone ${m.baselineMedian} / ${m.baselineP95} ms`,
    );
    out.push(m);
  }
  return out;
}

/**
 * The time a process (every thread of it) has spent on a CPU, in ms, from the scheduler's own count in ns
 * (/proc/PID/task/TID/schedstat): utime and stime count whole 10 ms ticks, too coarse for an idle process.
 */
function cpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended meanwhile.
      }
    }
  } catch {
    return 0;
  }
  return ns / 1e6;
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

function processName(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

interface IdleSides {
  hostPct: number;
  sshPct: number[];
  servePct: number[];
  sessionPct: number[];
  wallMs: number;
  /** Pushes the host sent while idle (its own, and `remotes` after a remote's change). */
  pushes: number;
}

/**
 * A fresh host process (the bench's idle worker) over this machine's store, idle for `seconds`: its own CPU,
 * and with the remotes attached, each `ssh` it started, each remote's `serve --stdio` and sshd's session
 * process for it, read from /proc at the start and the end of the same window.
 */
async function idleSides(
  storePath: string,
  sshd: SshFixture,
  seconds: number,
  withRemotes: boolean,
): Promise<IdleSides> {
  const settleMs = 8_000;
  const worker = startWorker<IdleResult>({
    kind: 'idle',
    storePath,
    settleMs,
    durationMs: seconds * 1_000 + 4_000,
    remotes: withRemotes,
  });
  const pid = worker.child.pid as number;
  await sleep(settleMs + 1_000);
  const sshdPid = sshd.pid() ?? -1;
  const ssh = descendantsOf(pid).filter((p) => processName(p) === 'ssh');
  const sessions = descendantsOf(sshdPid);
  const serve = sessions.filter(
    (p) => commandLine(p).startsWith(`${process.execPath} `) && commandLine(p).includes('serve --stdio'),
  );
  const sshdSessions = sessions.filter((p) => processName(p).startsWith('sshd'));
  const pids = [pid, ...ssh, ...serve, ...sshdSessions];
  const before = pids.map(cpuMs);
  const t0 = performance.now();
  await sleep(seconds * 1_000);
  const after = pids.map(cpuMs);
  const wallMs = performance.now() - t0;
  const { pushes } = await worker.result;
  const pct = (i: number) => (((after[i] as number) - (before[i] as number)) / wallMs) * 100;
  const slice = (from: number, n: number) => Array.from({ length: n }, (_, k) => pct(from + k));
  return {
    hostPct: pct(0),
    sshPct: slice(1, ssh.length),
    servePct: slice(1 + ssh.length, serve.length),
    sessionPct: slice(1 + ssh.length + serve.length, sshdSessions.length),
    wallMs,
    pushes,
  };
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const shares = (xs: number[]) => xs.map((x) => round(x, 3)).join(' / ');

async function measureIdle(
  stores: Stores,
  sshd: SshFixture,
  seconds: number,
  log: (line: string) => void,
): Promise<Measurement[]> {
  const alone = await idleSides(stores.here.storePath, sshd, seconds, false);
  const attached = await idleSides(stores.here.storePath, sshd, seconds, true);
  if (attached.servePct.length !== MACHINES.length || attached.sshPct.length !== MACHINES.length) {
    throw new Error(
      `expected ${MACHINES.length} ssh and serve --stdio processes, found ${attached.sshPct.length} and ${attached.servePct.length}`,
    );
  }
  // This side: what the host process spends more with the remotes attached, shared out, and each ssh client.
  const hostExtra = (attached.hostPct - alone.hostPct) / MACHINES.length;
  const localSide = hostExtra + mean(attached.sshPct);
  const remoteSide = Math.max(...attached.servePct);
  const note = `baseline: a host over this machine's store with no remote attached (${round(alone.hostPct, 3)} %), measured just before`;
  const local = figure(
    'remote.idle.local',
    `idle attached machine, this side (host's extra share + its ssh), ${seconds} s`,
    'concurrency',
    '%',
    localSide,
    { text: '< 0.5 % of a core', met: localSide < 0.5 },
    {
      hostWithRemotes: round(attached.hostPct, 3),
      hostAlone: round(alone.hostPct, 3),
      hostExtraPerMachine: round(hostExtra, 3),
      sshClients: shares(attached.sshPct),
      pushesWithRemotes: attached.pushes,
      pushesAlone: alone.pushes,
    },
    note,
  );
  const remote = figure(
    'remote.idle.remote',
    `idle attached machine, remote side (serve --stdio, the busier), ${seconds} s`,
    'concurrency',
    '%',
    remoteSide,
    { text: '< 0.5 % of a core', met: remoteSide < 0.5 },
    { serveStdio: shares(attached.servePct), sshdSessions: shares(attached.sessionPct) },
    `local equivalent: the host alone over this machine's store, ${round(alone.hostPct, 3)} %`,
  );
  local.baselineMedian = round(alone.hostPct, 3);
  remote.baselineMedian = round(alone.hostPct, 3);
  log(
    `  idle, this side: ${round(localSide, 3)} % per machine (host ${round(attached.hostPct, 3)} % with remotes, ${round(alone.hostPct, 3)} % alone; ssh ${shares(attached.sshPct)} %)`,
  );
  log(
    `  idle, remote side: serve --stdio ${shares(attached.servePct)} %, sshd session ${shares(attached.sessionPct)} %`,
  );
  return [local, remote];
}
