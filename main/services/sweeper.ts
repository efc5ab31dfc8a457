/**
 * The sweeper (docs/ARCHITECTURE.md#sweeper): the host's timer. `sweep()` is one bounded, idempotent tick over the store;
 * `createSweeper()` wraps it in start()/stop() with an injected scheduler, so tests never sleep.
 * Acting steps run only while this process holds the host lease; the change feed runs in every process,
 * since each one has its own window or browser clients to keep current.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Actor, RunEvent } from '../../shared/domain';
import { isRunwardenError } from '../../shared/errors';
import type { ChangedPush, CounterDrift, Settings } from '../../shared/views';
import {
  SEARCH_MERGE_PAGES,
  type Claim,
  type HygieneWorker,
  type LeaseSummary,
  type LivenessCheck,
  type OwnerInfo,
  type StoreWriter,
  type StoreReader,
} from '../store';

/** Rows handled per step per tick: bounded work, short write transactions. */
export const SWEEP_BATCH = 200;
const FEED_BATCH = 1_000;
/** Finished runs deleted per write transaction by retention (with their events). */
export const PRUNE_PER_TX = 40;
const CHECKPOINT_EVERY_TICKS = 30;
/** Ticks between two recounts while an upgrade's marker lasts: 30 s (docs/ARCHITECTURE.md#upgrades). */
const RECOUNT_EVERY_TICKS = 15;
/** How often the change feed looks for other connections' commits between ticks (docs/ARCHITECTURE.md#change-feed). */
export const FEED_POLL_MS = 40;
/** With nothing committed for this long, the feed looks every FEED_IDLE_POLL_MS (docs/ARCHITECTURE.md#change-feed). */
export const FEED_IDLE_AFTER_MS = 5_000;
/** Still under the change feed's promise of a push within 100 ms of a commit, at half the quick timer's cost. */
export const FEED_IDLE_POLL_MS = 80;
/**
 * A feed woken by the store's files (`createFeedWatcher`) looks at most this often, however fast they are
 * written: a burst of commits is one look per gap, a quiet store none at all.
 */
export const FEED_WATCH_GAP_MS = 15;

/** The host process as a lease owner: the owner's identity (`OwnerInfo`), its type always 'host'. */
export type HostIdentity = Omit<OwnerInfo, 'ownerType' | 'surface'>;

export interface SweeperDeps {
  store: StoreWriter;
  settings: () => Settings;
  host: HostIdentity;
  /** The liveness check (docs/LIVENESS.md); the store's own by default. Tests stand in for a machine. */
  liveness?: LivenessCheck;
  /** The hygiene worker: while it is active the tick only reports the WAL size it last saw. */
  hygieneWorker?: Pick<HygieneWorker, 'active' | 'last'> | null;
}

export interface SweeperState {
  hostClaim: Claim | null;
  lastDataVersion: number;
  lastSeq: number;
  ticks: number;
  /** Set by this process after its own writes: data_version only moves for other connections' commits. */
  dirty: boolean;
  /** The host-lease generation this process has made its first notification pass under (catch-up done). */
  notifiedUnder: number | null;
  /** Where the next look at this host's applying effects starts (RunStore.noticeGoneEffectsOnHost). */
  effectsAfter: number;
}

export interface SweepReport {
  acting: boolean;
  runnersLost: number;
  interactionsExpired: number;
  /** Coding-agent sessions whose agent died without ending them (docs/AGENTS.md#died). */
  agentSessionsDied: number;
  /** Questions withdrawn because their asking process is verifiably gone (docs/LIVENESS.md#questions-and-their-askers). */
  questionsWithdrawn: number;
  presenterClaimsExpired: number;
  autoCancelled: number;
  pruned: number;
  events: RunEvent[];
  changed: ChangedPush | null;
  /** Events to turn into desktop notices: only the acting host gets them, each event once (durable cursor). */
  notifyEvents: RunEvent[];
  /** The first pass of a host that just took the lease: `notifyEvents` happened while no host acted. */
  notifyCatchUp: boolean;
  /** Owners verified alive past their lease and kept live (a suspend, a clock step). */
  ownersVouched: number;
  /** Kept run counts that disagreed with the runs, set right this tick (docs/ARCHITECTURE.md#upgrades). */
  countsRepaired: CounterDrift[];
  /** Runs found orphaned (supervisor gone, command alive) this tick. */
  orphansFound: number;
  /** Applying effects whose process was verified gone, made ambiguous (docs/LIVENESS.md#unknown-outcomes). */
  effectsAmbiguous: number;
  walPages: number | null;
  /** How long the tick held the main process. */
  durationMs: number;
  /** Another process held the write lock past the busy timeout: the acting steps wait for the next tick. */
  busy: boolean;
  /** Unexpected failures of the acting steps; the change feed still ran. */
  errors: unknown[];
}

const SWEEPER_ACTOR: Actor = { type: 'host', id: 'sweeper', surface: 'sweeper' };
const POLICY_ACTOR: Actor = { type: 'policy', id: 'auto-cancel', surface: 'sweeper' };

export function initialSweeperState(store: StoreReader): SweeperState {
  return {
    hostClaim: null,
    lastDataVersion: store.dataVersion(),
    lastSeq: store.lastEventSeq(),
    ticks: 0,
    dirty: false,
    notifiedUnder: null,
    effectsAfter: 0,
  };
}

function emptyReport(): SweepReport {
  return {
    acting: false,
    runnersLost: 0,
    interactionsExpired: 0,
    agentSessionsDied: 0,
    questionsWithdrawn: 0,
    presenterClaimsExpired: 0,
    autoCancelled: 0,
    pruned: 0,
    events: [],
    changed: null,
    notifyEvents: [],
    notifyCatchUp: false,
    ownersVouched: 0,
    countsRepaired: [],
    orphansFound: 0,
    effectsAmbiguous: 0,
    walPages: null,
    durationMs: 0,
    busy: false,
    errors: [],
  };
}

/** One tick. Mutates `state` (host claim, feed cursor) and reports what it did. */
export function sweep(deps: SweeperDeps, state: SweeperState): SweepReport {
  const { store } = deps;
  const started = performance.now();
  const settings = deps.settings();
  const report = emptyReport();
  state.ticks += 1;

  if (store.mode === 'read-write') {
    try {
      act(deps, state, settings, report);
    } catch (error) {
      if (isRunwardenError(error) && error.code === 'BUSY') report.busy = true;
      else report.errors.push(error);
    }
    const wrote =
      report.runnersLost +
      report.orphansFound +
      report.effectsAmbiguous +
      report.interactionsExpired +
      report.agentSessionsDied +
      report.questionsWithdrawn +
      report.presenterClaimsExpired +
      report.autoCancelled +
      report.countsRepaired.length +
      report.pruned;
    // Our own commits do not move data_version for this connection; a step that failed midway may
    // have committed some batches before it.
    if (wrote > 0 || report.busy || report.errors.length > 0) state.dirty = true;
  }

  // Reads never wait on the write lock (WAL): the window stays current even while acting is blocked.
  const feed = readChangeFeed(store, state);
  report.events = feed.events;
  report.changed = feed.changed;
  report.durationMs = performance.now() - started;
  return report;
}

/**
 * The change feed alone, between ticks: null unless another connection committed new events since the last
 * look (no commit costs one `PRAGMA data_version`; a commit without events, such as a heartbeat, one indexed
 * read), else a report with the feed and, on the acting host, the events to notify. Its only write is the
 * notification cursor.
 */
export function sweepFeed(deps: SweeperDeps, state: SweeperState): SweepReport | null {
  if (!state.dirty && deps.store.dataVersion() === state.lastDataVersion) return null;
  const started = performance.now();
  const feed = readChangeFeed(deps.store, state);
  if (feed.changed === null) return null;
  const report = emptyReport();
  report.events = feed.events;
  report.changed = feed.changed;
  // The acting host notifies at once too (the cursor's compare-and-set still decides who); a busy store
  // leaves it to the next tick.
  if (state.hostClaim !== null && deps.store.mode === 'read-write') {
    try {
      collectNotifyEvents(deps, state, report);
    } catch (error) {
      if (!(isRunwardenError(error) && error.code === 'BUSY')) report.errors.push(error);
    }
  }
  report.durationMs = performance.now() - started;
  return report;
}

/** Steps 1–3 and 5, under the host lease. Each step is bounded; a throw stops the rest until the next tick. */
function act(deps: SweeperDeps, state: SweeperState, settings: Settings, report: SweepReport): void {
  const { store } = deps;
  report.acting = holdHostLease(deps, state, settings);
  if (!report.acting) return;
  // Before the lost-runner step: an agent that died is recorded as such, not as a lost runner.
  report.agentSessionsDied = store.endGoneAgentSessions(SWEEP_BATCH);
  noticeLostRunners(deps, settings, report);
  const effects = store.noticeGoneEffectsOnHost(SWEEPER_ACTOR, SWEEP_BATCH, state.effectsAfter);
  report.effectsAmbiguous = effects.ambiguous;
  state.effectsAfter = effects.next;
  report.interactionsExpired = store.expireInteractionDeadlines(SWEEP_BATCH, SWEEPER_ACTOR);
  report.questionsWithdrawn = store.withdrawGoneAskers(SWEEP_BATCH, SWEEPER_ACTOR);
  report.presenterClaimsExpired = store.expirePresenterClaims(SWEEP_BATCH);
  report.autoCancelled = autoCancel(deps, settings);
  if (settings.retentionDays !== null) {
    // Each run takes its ~20 events with it: small transactions keep the write lock short, and one may
    // stop early for time (PRUNE_BUDGET_MS), so only an empty one says nothing is left.
    for (let done = 0; done < SWEEP_BATCH; done += PRUNE_PER_TX) {
      const n = store.pruneTerminalRuns(settings.retentionDays * 86_400_000, PRUNE_PER_TX);
      report.pruned += n;
      if (n === 0) break;
    }
  }
  if (state.ticks % RECOUNT_EVERY_TICKS === 1)
    report.countsRepaired = store.recountAfterUpgrade(SWEEPER_ACTOR);
  if (state.ticks % CHECKPOINT_EVERY_TICKS === 0) report.walPages = hygiene(deps);
  collectNotifyEvents(deps, state, report);
}

/**
 * The durable notification cursor (docs/LIVENESS.md#notifications): events since the last one any acting
 * host notified, claimed by moving the cursor first (compare-and-set under the host lease), so each event is
 * notified by exactly one host at most once — including what happened while no host acted.
 */
function collectNotifyEvents(deps: SweeperDeps, state: SweeperState, report: SweepReport): void {
  const { store } = deps;
  const claim = state.hostClaim;
  if (claim === null) return;
  const catchUp = state.notifiedUnder !== claim.generation;
  const from = store.notifiedSeq();
  if (from === null) {
    // A store no host ever notified from: start at its present, not at its whole history.
    store.advanceNotifiedSeq(claim, null, store.lastEventSeq());
    state.notifiedUnder = claim.generation;
    return;
  }
  const events = store.eventsAfter(from, FEED_BATCH);
  state.notifiedUnder = claim.generation;
  const last = events.at(-1);
  if (last === undefined) return;
  if (!store.advanceNotifiedSeq(claim, from, last.seq)) return;
  report.notifyEvents = events;
  report.notifyCatchUp = catchUp;
}

/**
 * Step 5 (hygiene): a search-index merge round and a passive checkpoint, here only when no worker thread
 * is doing them (main/store/hygiene-worker.ts).
 */
function hygiene(deps: SweeperDeps): number {
  const background = deps.hygieneWorker;
  if (background?.active === true) return background.last?.walPages ?? 0;
  deps.store.mergeSearchIndex(SEARCH_MERGE_PAGES);
  return deps.store.checkpoint().walPages;
}

/** The host lease: it outlives a few missed ticks, so a busy main process does not hand the sweep to another one. */
export function hostLeaseMs(settings: Settings): number {
  return Math.max(10_000, settings.sweepIntervalMs * 5);
}

function holdHostLease(deps: SweeperDeps, state: SweeperState, settings: Settings): boolean {
  const leaseMs = hostLeaseMs(settings);
  const held = state.hostClaim;
  if (held !== null) {
    const now = deps.store.now();
    // Renewed once half of it is left, not every tick: an idle host writes (and fsyncs) every few ticks, and
    // a host that stops leaves no more than one lease for another to wait out (docs/LIVENESS.md#the-host-lease).
    if (held.expiresAt - now > leaseMs / 2) return true;
    if (deps.store.renewHostLease(held, leaseMs)) {
      // A lower bound: the renewal read the clock after `now`.
      state.hostClaim = { ...held, expiresAt: now + leaseMs };
      return true;
    }
  }
  state.hostClaim = deps.store.claimHostLease({ ownerType: 'host', ...deps.host, leaseMs });
  // Lost and taken again: the next notification pass catches up on what happened meanwhile.
  if (state.hostClaim === null) state.notifiedUnder = null;
  return state.hostClaim !== null;
}

/** How long a vouch keeps an owner live that is alive past its lease; renewed every tick while it lives. */
export function vouchMs(settings: Settings): number {
  return Math.max(10_000, settings.sweepIntervalMs * 5);
}

/** The lease fields the liveness check reads. */
function recorded(lease: LeaseSummary) {
  return {
    runId: lease.runId,
    ownerType: 'runner' as const,
    ownerPid: lease.ownerPid,
    ownerHostname: lease.ownerHostname,
    ownerStartId: lease.ownerStartId,
    ownerBootId: lease.ownerBootId ?? null,
    ownerPidNs: lease.ownerPidNs ?? null,
    commandPid: lease.commandPid ?? null,
    commandPgid: lease.commandPgid ?? null,
    commandStartId: lease.commandStartId ?? null,
  };
}

/**
 * Step 1, judged by the one liveness check (docs/LIVENESS.md): an expired lease whose owner is verifiably
 * alive is kept live (vouched), one whose supervisor is gone while its command lives is orphaned, one
 * verifiably gone is lost; an unknown one is lost by the clock. A live lease on this machine whose
 * supervisor is gone is orphaned or lost at once. An orphan whose command ended becomes plain stale.
 */
function noticeLostRunners(deps: SweeperDeps, settings: Settings, report: SweepReport): void {
  const { store } = deps;
  const check = deps.liveness ?? store.liveness;
  const byClock: LeaseSummary[] = [];
  const alive: LeaseSummary[] = [];
  const expired = store.listExpiredLeases({ graceMs: settings.staleGraceMs, limit: SWEEP_BATCH });
  for (const lease of expired) {
    const verdict = check.judge(recorded(lease));
    if (verdict.supervisor === 'alive') alive.push(lease);
    else if (verdict.supervisor === 'unknown') byClock.push(lease);
    else judgeGone(deps, lease, verdict.command === 'alive', report);
  }
  if (alive.length > 0) report.ownersVouched = store.vouchForOwners(alive, vouchMs(settings));
  // Many at once in few short transactions (a burst of 1,000 stale runs must not be 1,000 commits).
  if (byClock.length > 0)
    report.runnersLost += store.markLapsedRunnersLost(byClock, 'lease expired', SWEEPER_ACTOR);
  for (const lease of store.listLiveLeasesOnHost(deps.host.hostname, SWEEP_BATCH)) {
    if (lease.ownerPid === null || lease.ownerPid === deps.host.pid) continue;
    const verdict = check.judge(recorded(lease));
    if (verdict.supervisor !== 'gone') continue;
    judgeGone(deps, lease, verdict.command === 'alive', report);
  }
  for (const orphan of store.listOrphans(SWEEP_BATCH)) {
    if (check.judge(orphan.lease).command !== 'gone') continue;
    if (store.markCommandGone(orphan.runId, orphan.generation, SWEEPER_ACTOR)) report.runnersLost += 1;
  }
}

function judgeGone(deps: SweeperDeps, lease: LeaseSummary, commandAlive: boolean, report: SweepReport): void {
  if (commandAlive) {
    if (deps.store.markOrphaned(lease.runId, lease.generation, SWEEPER_ACTOR)) report.orphansFound += 1;
    return;
  }
  if (deps.store.markRunnerGone(lease.runId, lease.generation, 'runner process is gone', SWEEPER_ACTOR))
    report.runnersLost += 1;
}

/** Step 3: optional policy, off by default; acts as `policy`, never on a live lease. */
function autoCancel(deps: SweeperDeps, settings: Settings): number {
  if (settings.autoCancelStaleAfterMin === null) return 0;
  let cancelled = 0;
  const olderThanMs = settings.autoCancelStaleAfterMin * 60_000;
  for (const lease of deps.store.listStaleLeases({ olderThanMs, limit: SWEEP_BATCH })) {
    try {
      deps.store.cancelRun(lease.runId, {
        reason: `Auto-cancelled: stale for more than ${settings.autoCancelStaleAfterMin} min`,
        actor: POLICY_ACTOR,
      });
      cancelled += 1;
    } catch (error) {
      // LIVE_OWNER / CONFLICT: the run recovered or finished since it was listed. Not an error.
      if (!isRunwardenError(error)) throw error;
    }
  }
  return cancelled;
}

/** Step 4: new events since the cursor, only when some connection committed. */
function readChangeFeed(
  store: StoreReader,
  state: SweeperState,
): { events: RunEvent[]; changed: ChangedPush | null } {
  const version = store.dataVersion();
  if (version === state.lastDataVersion && !state.dirty) return { events: [], changed: null };
  state.lastDataVersion = version;
  state.dirty = false;
  const events = store.eventsAfter(state.lastSeq, FEED_BATCH);
  if (events.length === 0) return { events, changed: null };
  const last = events[events.length - 1] as RunEvent;
  state.lastSeq = last.seq;
  // More than a batch behind: come back next tick for the rest.
  if (events.length === FEED_BATCH) state.dirty = true;
  const runIds = [...new Set(events.map((e) => e.runId).filter((id): id is string => id !== null))];
  return { events, changed: { seq: last.seq, runIds, at: last.at } };
}

export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** A repeating timer for the feed (one timer object for all its looks); without it the feed re-arms a timeout. */
  setInterval?(fn: () => void, ms: number): unknown;
  clearInterval?(handle: unknown): void;
}

export interface Sweeper {
  start(): void;
  stop(): void;
  /** Runs one tick now (used after a person's command, so the UI updates without waiting). */
  tickNow(): SweepReport | null;
  markDirty(): void;
  readonly state: SweeperState;
}

/** Node's own timers. */
const SYSTEM_SCHEDULER: Scheduler = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as never),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as never),
};

/** The change feed's timer (`createFeedTimer`): started and stopped with the sweeper, told of every commit seen. */
interface FeedTimer {
  start(): void;
  stop(): void;
  /** A look or a tick saw a commit (true) or none (false): commits keep the feed quick, quiet slows it. */
  note(active: boolean): void;
}

/**
 * The feed's timer (docs/ARCHITECTURE.md#change-feed): `look` every `feedPollMs` while the store is in use,
 * every FEED_IDLE_POLL_MS after FEED_IDLE_AFTER_MS of looks that saw no commit; null for no feed at all.
 * `look` returns whether it saw a commit.
 */
function createFeedTimer(scheduler: Scheduler, feedPollMs: number | null, look: () => boolean): FeedTimer {
  const idlePollMs = feedPollMs === null ? null : Math.max(feedPollMs, FEED_IDLE_POLL_MS);
  const quietLooksToIdle = feedPollMs === null ? 0 : Math.ceil(FEED_IDLE_AFTER_MS / feedPollMs);
  // Up to 25 looks a second: one repeating timer when the scheduler has one, so a look allocates nothing.
  const repeating = scheduler.setInterval !== undefined && scheduler.clearInterval !== undefined;
  let running = false;
  let handle: unknown = null;
  let period = feedPollMs;
  let quietLooks = 0;

  const clear = (): void => {
    if (handle === null) return;
    if (repeating) scheduler.clearInterval?.(handle);
    else scheduler.clearTimeout(handle);
    handle = null;
  };
  const arm = (): void => {
    if (period === null) return;
    handle =
      repeating && scheduler.setInterval !== undefined
        ? scheduler.setInterval(onTimer, period)
        : scheduler.setTimeout(onTimer, period);
  };
  const setPeriod = (ms: number | null): void => {
    if (ms === period) return;
    period = ms;
    if (!running || handle === null) return;
    clear();
    arm();
  };
  const note = (active: boolean): void => {
    if (active) {
      quietLooks = 0;
      setPeriod(feedPollMs);
    } else if ((quietLooks += 1) >= quietLooksToIdle) {
      setPeriod(idlePollMs);
    }
  };
  function onTimer(): void {
    if (!running) return;
    // A timeout has fired: nothing to clear if the look changes the period, the line below arms the next.
    if (!repeating) handle = null;
    note(look());
    if (running && !repeating && handle === null) arm();
  }

  return {
    start() {
      running = true;
      period = feedPollMs;
      quietLooks = 0;
      arm();
    },
    stop() {
      running = false;
      clear();
    },
    note,
  };
}

/**
 * The feed woken by the store's own files instead of a timer (docs/ARCHITECTURE.md#change-feed): every
 * commit, by any process, writes the store's WAL (or its file), and the folder's watch says so at once, so
 * `look` runs within FEED_WATCH_GAP_MS of a commit and not at all while nothing writes. The sweeper's tick
 * reads the feed too, so an event the watch missed waits for the next tick, never longer. Where the folder
 * cannot be watched, the timer (`fallback`) runs instead.
 */
function createFeedWatcher(
  storePath: string,
  scheduler: Scheduler,
  look: () => boolean,
  fallback: () => FeedTimer,
): FeedTimer {
  const base = path.basename(storePath);
  let watcher: FSWatcher | null = null;
  let timer: FeedTimer | null = null;
  let pending: unknown = null;
  let lastLook = -Infinity;
  // A commit's last write to the WAL is seen before the commit is visible: SQLite then marks it in the -shm
  // index, a mapped page no watch reports. So every look woken by a write is followed by one more a gap later;
  // else a commit it just missed would wait for the next write or tick (docs/ARCHITECTURE.md#change-feed).
  let woken = false;
  const run = (): void => {
    pending = null;
    lastLook = performance.now();
    const followUp = woken;
    woken = false;
    look();
    if (followUp && watcher !== null) pending = scheduler.setTimeout(run, FEED_WATCH_GAP_MS);
  };
  const wake = (name: string | null): void => {
    // The store's file, its -wal, -shm or -journal; the logs and anything else in the folder are not commits.
    if ((name !== null && !name.startsWith(base)) || watcher === null) return;
    woken = true;
    if (pending !== null) return;
    pending = scheduler.setTimeout(run, Math.max(0, lastLook + FEED_WATCH_GAP_MS - performance.now()));
  };
  const useTimer = (): void => {
    watcher?.close();
    watcher = null;
    timer ??= fallback();
    timer.start();
  };
  return {
    start() {
      try {
        watcher = watch(path.dirname(storePath), { persistent: false }, (_event, name) =>
          wake(name === null ? null : String(name)),
        );
        watcher.on('error', useTimer);
      } catch {
        useTimer();
      }
    },
    stop() {
      watcher?.close();
      watcher = null;
      timer?.stop();
      if (pending !== null) scheduler.clearTimeout(pending);
      pending = null;
    },
    note(active) {
      timer?.note(active);
    },
  };
}

/** The feed between ticks: a look at the change feed, on the timer or on the watch of the store's files. */
function createFeed(
  deps: SweeperDeps,
  state: SweeperState,
  onReport: (report: SweepReport) => void,
  onError: (error: unknown) => void,
  scheduler: Scheduler,
  feedPollMs: number | null,
  watchStore: string | null,
): FeedTimer {
  const look = (): boolean => {
    try {
      const seen = state.lastDataVersion;
      const report = sweepFeed(deps, state);
      if (report !== null) {
        for (const error of report.errors) onError(error);
        onReport(report);
      }
      return report !== null || state.lastDataVersion !== seen;
    } catch (error) {
      onError(error);
      return false;
    }
  };
  return watchStore !== null && feedPollMs !== null
    ? createFeedWatcher(watchStore, scheduler, look, () => createFeedTimer(scheduler, feedPollMs, look))
    : createFeedTimer(scheduler, feedPollMs, look);
}

/**
 * Wraps `sweep` in a timer that re-arms itself, and `sweepFeed` in a shorter one (`feedPollMs`, null for
 * none; `createFeedTimer`) or in a watch of the store's files (`watchStore`, `createFeedWatcher`);
 * `onReport` gets every tick's report and every feed report that found something.
 */
export function createSweeper(
  deps: SweeperDeps,
  onReport: (report: SweepReport) => void,
  onError: (error: unknown) => void,
  scheduler: Scheduler = SYSTEM_SCHEDULER,
  feedPollMs: number | null = FEED_POLL_MS,
  watchStore: string | null = null,
): Sweeper {
  const state = initialSweeperState(deps.store);
  let handle: unknown = null;
  let running = false;

  const feed = createFeed(deps, state, onReport, onError, scheduler, feedPollMs, watchStore);

  const tick = (): SweepReport | null => {
    try {
      const seen = state.lastDataVersion;
      const report = sweep(deps, state);
      if (report.changed !== null || state.lastDataVersion !== seen) feed.note(true);
      for (const error of report.errors) onError(error);
      onReport(report);
      return report;
    } catch (error) {
      onError(error);
      return null;
    }
  };
  const arm = () => {
    handle = scheduler.setTimeout(() => {
      if (!running) return;
      tick();
      if (running) arm();
    }, deps.settings().sweepIntervalMs);
  };

  return {
    state,
    start() {
      if (running) return;
      running = true;
      feed.start();
      tick();
      arm();
    },
    stop() {
      running = false;
      if (handle !== null) scheduler.clearTimeout(handle);
      handle = null;
      feed.stop();
      if (state.hostClaim !== null) {
        try {
          deps.store.releaseHostLease(state.hostClaim);
        } catch (error) {
          onError(error);
        }
        state.hostClaim = null;
      }
    },
    tickNow: tick,
    markDirty() {
      state.dirty = true;
      feed.note(true);
    },
  };
}
