/**
 * Creates the host services over one store: the dispatcher (handlers), the sweeper, notification rules
 * and the change feed, wired to a shell's notifier and push sink. Used by the Electron main process and
 * by `runwarden serve`; contains no Electron and no HTTP.
 */
import os from 'node:os';
import type { Channel } from '../../shared/channel-names';
import type { Response } from '../../shared/contract';
import { worstTrayState } from '../../shared/display-status';
import { fitText } from '../../shared/text-caps';
import { listedItem } from '../../shared/views';
import type { Actor } from '../../shared/domain';
import { isRunwardenError, type Result, type RunwardenError } from '../../shared/errors';
import {
  LIST_FIRST_PAGE_SIZE,
  LIST_PAGE_SIZE,
  NOTIFICATION_HISTORY,
  type Settings,
  type StoreStatusPush,
} from '../../shared/views';
import {
  machineIdentity,
  openStore,
  processStartId,
  startHygieneWorker,
  type HygieneWorker,
  type OpenStoreOptions,
  type StoreWriter,
} from '../store';
import { parseRequest } from '../../shared/contract';
import { SLOW_REQUEST_MS, createDispatcher, type Dispatch } from './dispatcher';
import type { RemoteMachineView } from '../../shared/remotes';
import { answerAcrossMachines } from './remote/machine-requests';
import { remoteQuestionNotices, withRemoteAttention } from './remote/remote-attention';
import { createRemoteHub, personHere, type RemoteHub } from './remote/remote-hub';
import type { AppHost, AppHostOptions, RequestOrigin, ShellAttention } from './host-types';
import { WRITE_CHANNELS } from './handlers';
import { watchLogFolders, type LogWatcher } from './log-watcher';
import { catchUpNotice, coalesce, noticesFor } from './notification-rules';
import { loadSettings } from './settings-service';
import { startSearchCountRequests, type SearchCountRequests } from './search-count-requests';
import { createSweeper, type HostIdentity, type Sweeper, type SweepReport } from './sweeper';

/** How long the app's main thread may wait for the store's write lock. */
export const HOST_BUSY_TIMEOUT_MS = 1_000;
/**
 * Attention is recomputed on every change, and when the clock alone changes it (a lease running out, a queued
 * run waiting too long: `nextAttentionChangeAt`); at least this often as a backstop (a clock step).
 */
const ATTENTION_BACKSTOP_TICKS = 30;
const NOTICE_ACTOR: Actor = { type: 'host', id: 'notifier', surface: 'sweeper' };

/**
 * What a window asks for as soon as it loads (renderer/src/lib/state): read once when the host starts,
 * while the window is still loading, so its first answers come from compiled code, prepared statements and
 * cached pages.
 */
const WARM_UP_READS: ReadonlyArray<readonly [Channel, unknown]> = [
  ['runs:list', { view: 'needs-you', limit: LIST_PAGE_SIZE }],
  ['runs:list', { view: 'all', limit: LIST_FIRST_PAGE_SIZE }],
  ['projects:list', {}],
  ['notifications:list', { limit: NOTIFICATION_HISTORY }],
];

/** How the host opens the store: shared with the benchmark, so it measures the connection the app uses. */
export const HOST_STORE_OPTIONS = {
  // The main thread waits at most this long for another process's write lock, then reports "busy"
  // and tries again on the next tick or click (docs/ARCHITECTURE.md#the-store-file) instead of freezing the window.
  busyTimeoutMs: HOST_BUSY_TIMEOUT_MS,
  busyRetries: 0,
} as const satisfies OpenStoreOptions;

/**
 * Starts the store hygiene worker for a host's store, or returns null for a read-only one. Failures are
 * logged, not thrown: without the worker, the sweeper and SQLite's auto-checkpoint do the work inline.
 */
export function startHostHygiene(store: StoreWriter): HygieneWorker | null {
  if (store.mode !== 'read-write') return null;
  const onError = (error: Error) =>
    console.warn(`runwarden: store hygiene is back on the main thread: ${error.message}`);
  try {
    return startHygieneWorker(store, { onError });
  } catch (error) {
    onError(error as Error);
    return null;
  }
}

/**
 * Everything the host's phases share: the store and the shell's hooks, the dispatcher and the sweeper, and
 * what the host keeps between ticks.
 */
interface HostState {
  readonly options: AppHostOptions;
  readonly store: StoreWriter;
  readonly dispatch: Dispatch;
  readonly sweeper: Sweeper;
  settings: Settings;
  hygieneWorker: HygieneWorker | null;
  searchCounts: SearchCountRequests | null;
  busy: boolean;
  writeError: StoreStatusPush['writeError'];
  warming: boolean;
  ticksSinceAttention: number;
  /** When the summary last pushed goes out of date with no commit; null when nothing is due. */
  attentionDueAt: number | null;
  warmUpTimer: ReturnType<typeof setTimeout> | null;
  logWatcher: LogWatcher | null;
  remotes: RemoteHub | null;
  /** This machine's latest tray read, which each change of another machine is added to again. */
  trayRead: ShellAttention | null;
  /** Each machine's questions already announced (remote-attention.ts). */
  remoteQuestionsSeen: Map<string, Set<string>>;
}

/**
 * The host, wired in phases: the store, the dispatcher over it, this process's identity as a lease owner,
 * the sweeper with its report handler; `start` and `dispose` are phases of their own.
 */
export function createAppHost(options: AppHostOptions): AppHost {
  const clock = options.clock ?? Date.now;
  const store: StoreWriter = openStore(options.storePath, {
    clock,
    ...HOST_STORE_OPTIONS,
  });
  if (store.migrated !== null) options.onMigrated?.(store.migrated);
  const actor: Actor = { type: 'human', id: options.actorId, surface: options.surface };
  // The hub's pushes reach the state, built below: read when they come, after the host is made.
  let onRemotes = (_machines: RemoteMachineView[]): void => {};
  const remotes = options.remotes === false ? null : hostRemotes(store, options, clock, (m) => onRemotes(m));
  // The dispatcher's and the sweeper's hooks reach the state, which holds both: built once, read later.
  const host: HostState = {
    options,
    store,
    settings: loadSettings(store),
    dispatch: createDispatcher(
      {
        store,
        clock,
        actor,
        onSettingsChanged: (next) => {
          host.settings = next;
          options.onSettingsChanged?.(next);
        },
        ...(options.openPath !== undefined && { openPath: options.openPath }),
        ...(options.cliPath !== undefined && { cliPath: options.cliPath }),
        ...(options.updates !== undefined && { updates: options.updates }),
        ...(remotes !== null && { remotes }),
      },
      {
        onBusy: (nowBusy) => setBusy(host, nowBusy),
        onWriteError: (error) => setWriteError(host, error),
        onInternalError: (channel, error) => console.error(`runwarden: ${channel} failed`, error),
        onSlow: (channel, ms) => {
          if (!host.warming) console.warn(`runwarden: slow request ${channel}: ${Math.round(ms)} ms`);
        },
      },
    ),
    sweeper: createSweeper(
      {
        store,
        settings: () => host.settings,
        host: hostIdentity(options.surface),
        get hygieneWorker() {
          return host.hygieneWorker;
        },
      },
      (report) => onSweepReport(host, report),
      (error) => console.error('runwarden: sweeper tick failed', error),
      undefined,
      undefined,
      options.feedWatch === true ? store.path : null,
    ),
    hygieneWorker: null,
    searchCounts: null,
    busy: false,
    writeError: null,
    warming: false,
    ticksSinceAttention: 0,
    attentionDueAt: null,
    warmUpTimer: null,
    logWatcher: null,
    remotes,
    trayRead: null,
    remoteQuestionsSeen: new Map(),
  };
  onRemotes = (machines) => onMachinesChanged(host, machines);
  return {
    get settings() {
      return host.settings;
    },
    dispatch: (channel, input, origin) => dispatchForShell(host, channel, input, origin),
    markRunRead: (runId) => dispatchForShell(host, 'notifications:markRead', { runId }),
    setNotificationsPaused: (paused) =>
      dispatchForShell(host, 'settings:set', { patch: { notificationsPaused: paused } }),
    start: () => startHost(host),
    dispose: () => disposeHost(host),
  };
}

/** The other machines, each pushed to the window as it changes (docs/REMOTES.md#in-the-window). */
function hostRemotes(
  store: StoreWriter,
  options: AppHostOptions,
  clock: () => number,
  changed: (machines: RemoteMachineView[]) => void,
): RemoteHub {
  return createRemoteHub({
    store,
    person: personHere(options.actorId),
    surface: options.surface === 'browser' ? 'browser' : 'app',
    push: (payload) => {
      options.push('remotes', payload);
      changed(payload.machines);
    },
    // A remote run's output is followed as a local one's is: the window reads what came since.
    onLog: (runId) => options.push('log', { runId }),
    clock,
  });
}

/**
 * Another machine changed: the tray shows its runs and questions with this machine's, and a question first
 * seen there is announced as a local one is (docs/REMOTES.md#tray-and-notifications).
 */
function onMachinesChanged(host: HostState, machines: RemoteMachineView[]): void {
  const tray = host.options.attention;
  if (tray !== undefined && host.trayRead !== null)
    tray.onAttention(withRemoteAttention(host.trayRead, machines, tray.items));
  const notices = remoteQuestionNotices(machines, host.remoteQuestionsSeen);
  if (host.settings.notificationsPaused || !host.settings.notificationRules.defaults.needsAnswer) return;
  for (const notice of notices) host.options.notifier.show(notice);
}

/** This process as the owner of the host lease (docs/LIVENESS.md#the-host-lease). */
function hostIdentity(surface: AppHostOptions['surface']): HostIdentity {
  return {
    ownerId: `${surface}:${os.hostname()}:${process.pid}`,
    pid: process.pid,
    hostname: os.hostname(),
    startId: processStartId(process.pid),
    bootId: machineIdentity().bootId,
    pidNs: machineIdentity().pidNs,
  };
}

function pushStoreStatus(host: HostState): void {
  const { store, busy, writeError } = host;
  host.options.push('store-status', {
    mode: store.mode,
    modeReason: store.modeReason,
    busy,
    ...(writeError !== null && { writeError }),
  });
}

// A full disk or a store turned read-only gets its own banner, not "something went wrong".
function setWriteError(host: HostState, next: StoreStatusPush['writeError']): void {
  if ((next?.code ?? null) === (host.writeError?.code ?? null)) return;
  host.writeError = next ?? null;
  pushStoreStatus(host);
}

function setBusy(host: HostState, nowBusy: boolean): void {
  if (nowBusy === host.busy) return;
  host.busy = nowBusy;
  pushStoreStatus(host);
}

/**
 * One read per change feeds both the window's push and the shell's tray: the attention summary and, for
 * the tray, the open questions of the runs it lists, from the same snapshot (main/store/tray-attention.ts).
 */
function pushAttention(host: HostState): void {
  const { options, store } = host;
  const tray = options.attention;
  const read = tray === undefined ? null : store.trayAttention(tray.items, tray.watching?.() ?? []);
  const summary = read?.summary ?? store.attentionSummary(1);
  options.push('attention', {
    counts: summary.counts,
    needsYou: summary.needsYou,
    tray: worstTrayState(summary.counts),
  });
  host.ticksSinceAttention = 0;
  host.attentionDueAt = store.nextAttentionChangeAt();
  if (tray !== undefined && read !== null) {
    const shell = { ...read, summary: { ...read.summary, items: read.summary.items.map(listedItem) } };
    host.trayRead = shell;
    tray.onAttention(
      host.remotes === null ? shell : withRemoteAttention(shell, host.remotes.list(), tray.items),
    );
  }
}

function warmUp(host: HostState): void {
  host.warming = true;
  try {
    // Reads only, answers dropped; a failure is the window's own request's to report.
    for (const [channel, input] of WARM_UP_READS) host.dispatch(channel, input);
  } finally {
    host.warming = false;
  }
}

/** A sweeper tick's report, in phases: the store's health, what changed, then notifications. */
function onSweepReport(host: HostState, report: SweepReport): void {
  host.ticksSinceAttention += 1;
  reportStoreHealth(host, report);
  announceChanges(host, report);
  if (report.notifyEvents.length > 0) notifyEvents(host, report);
}

/** Busy, a full disk or a read-only store, a slow tick: what the tick says about the store itself. */
function reportStoreHealth(host: HostState, report: SweepReport): void {
  if (report.busy) setBusy(host, true);
  else if (report.acting) setBusy(host, false);
  const failed = report.errors.find(
    (e): e is RunwardenError => isRunwardenError(e) && (e.code === 'DISK_FULL' || e.code === 'READ_ONLY'),
  );
  if (failed !== undefined)
    setWriteError(host, { code: failed.code as 'DISK_FULL' | 'READ_ONLY', message: failed.message });
  else if (report.acting && report.errors.length === 0) setWriteError(host, null);
  if (report.durationMs > SLOW_REQUEST_MS) {
    console.warn(`runwarden: slow sweeper tick: ${Math.round(report.durationMs)} ms`);
  }
}

/** The attention summary and the `changed` push, after a commit or when the clock alone moved the views. */
function announceChanges(host: HostState, report: SweepReport): void {
  const { options, store } = host;
  // Attention first: a new question's notification then finds the question in the shell's latest read.
  const due = host.attentionDueAt !== null && store.now() >= host.attentionDueAt;
  if (report.changed !== null || due || host.ticksSinceAttention >= ATTENTION_BACKSTOP_TICKS)
    pushAttention(host);
  if (report.changed !== null) options.push('changed', report.changed);
  else if (due) {
    // No commit to announce it, but every list showing that run is out of date (docs/ARCHITECTURE.md#change-feed).
    options.push('changed', { seq: store.lastEventSeq(), runIds: [], at: store.now(), clock: true });
  }
}

/** Only the acting host notifies, each event once (the durable cursor: docs/LIVENESS.md#notifications). */
function notifyEvents(host: HostState, report: SweepReport): void {
  const { options, store, settings } = host;
  const label = (runId: string) => store.runLabel(runId);
  const notices = noticesFor(report.notifyEvents, settings, label);
  if (store.mode === 'read-write') {
    // The acting host keeps the history the notifications panel shows; pausing desktop notifications
    // silences the desktop only, so the history is decided as if they were on.
    const history = settings.notificationsPaused
      ? noticesFor(report.notifyEvents, { ...settings, notificationsPaused: false }, label)
      : notices;
    let wrote = false;
    for (const n of history) {
      if (n.recorded) continue;
      store.notify(
        n.runId,
        // Composed from a run's title: cut to fit rather than refused.
        {
          level: n.level,
          title: fitText(n.title, 'title'),
          body: fitText(n.body, 'body'),
          ...(n.interactionId !== undefined && { interactionId: n.interactionId }),
          ...(n.effectIds !== undefined && { effectIds: n.effectIds }),
        },
        NOTICE_ACTOR,
      );
      wrote = true;
    }
    // This connection's own commits do not move data_version: without this, the window would hear of
    // the notification only with the next commit of another process (docs/ARCHITECTURE.md#change-feed).
    if (wrote) host.sweeper.markDirty();
  }
  const shown = report.notifyCatchUp ? catchUpNotice(notices) : coalesce(notices);
  for (const notice of shown) options.notifier.show(notice);
}

async function dispatchForShell<C extends Channel>(
  host: HostState,
  channel: C,
  input: unknown,
  origin?: RequestOrigin,
): Promise<Result<Response<C>>> {
  if (channel === 'remotes:call' && host.remotes !== null) {
    const parsed = parseRequest('remotes:call', input);
    if (!parsed.ok) return parsed;
    const { machine, channel: remoteChannel, input: remoteInput } = parsed.value;
    return (await host.remotes.call(machine, remoteChannel, remoteInput)) as Result<Response<C>>;
  }
  if (host.remotes !== null) {
    const local = (query: unknown) => host.dispatch('runs:list', query);
    const across = await answerAcrossMachines(host.remotes, local, channel, input);
    if (across !== null) return across;
  }
  // A search's counts off the main thread, so they never hold up the next keystroke's rows.
  if (channel === 'attention:summary' && host.searchCounts !== null) {
    const counted = await host.searchCounts.answer(input);
    if (counted !== null) return counted as Result<Response<C>>;
  }
  const result = host.dispatch(channel, input, origin);
  if (result.ok && WRITE_CHANNELS.has(channel)) {
    // Show the person the effect of their command at once, not on the next tick.
    host.sweeper.markDirty();
    host.sweeper.tickNow();
  }
  return result;
}

/** Logs of ended runs leave the folder stores once shared (docs/RUN-OUTPUT.md#files); a failure waits for the next start. */
function adoptLegacyLogs(store: HostState['store']): void {
  try {
    store.adoptLegacyLogs();
  } catch {
    // Busy or not writable now: the next start, or the next run's log, moves them.
  }
}

function startHost(host: HostState): void {
  const { options, store } = host;
  host.hygieneWorker ??= startHostHygiene(store);
  host.searchCounts ??= startSearchCountRequests(store);
  pushStoreStatus(host);
  adoptLegacyLogs(store);
  host.logWatcher ??= watchLogFolders(
    // The store's own folder, and the folder stores shared before: an older runner still writing a live
    // run's log there is followed live too (docs/RUN-OUTPUT.md#files).
    [
      { dir: store.logsDir, create: store.mode === 'read-write' },
      { dir: store.legacyLogsDir, create: false },
    ],
    (runId) => options.push('log', { runId }),
  );
  host.sweeper.start();
  pushAttention(host);
  host.remotes?.start();
  // After the caller's own start-up work (the window begins loading): not in its way.
  host.warmUpTimer = setTimeout(() => {
    host.warmUpTimer = null;
    warmUp(host);
  }, 0);
}

function disposeHost(host: HostState): void {
  if (host.warmUpTimer !== null) clearTimeout(host.warmUpTimer);
  host.remotes?.dispose();
  host.logWatcher?.close();
  host.logWatcher = null;
  host.sweeper.stop();
  // Auto-checkpoint is back on synchronously; the worker closes its connection on its own thread.
  void host.hygieneWorker?.stop();
  host.hygieneWorker = null;
  void host.searchCounts?.stop();
  host.searchCounts = null;
  host.store.close();
}
