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
  type RunStore,
} from '../store';
import { SLOW_REQUEST_MS, createDispatcher } from './dispatcher';
import type { AppHost, AppHostOptions } from './host-types';
import { WRITE_CHANNELS } from './handlers';
import { watchLogs, type LogWatcher } from './log-watcher';
import { catchUpNotice, coalesce, noticesFor } from './notification-rules';
import { loadSettings } from './settings-service';
import { startSearchCountRequests, type SearchCountRequests } from './search-count-requests';
import { createSweeper, type SweepReport } from './sweeper';

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
 * cached pages (what a cold first window cost is in docs/PERFORMANCE.md, round 4, "First window").
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
export function startHostHygiene(store: RunStore): HygieneWorker | null {
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

export function createAppHost(options: AppHostOptions): AppHost {
  const clock = options.clock ?? Date.now;
  const store: RunStore = openStore(options.storePath, {
    clock,
    ...HOST_STORE_OPTIONS,
  });
  let hygieneWorker: HygieneWorker | null = null;
  let searchCounts: SearchCountRequests | null = null;
  let settings: Settings = loadSettings(store);
  let busy = false;
  let writeError: StoreStatusPush['writeError'] = null;
  let warming = false;
  let ticksSinceAttention = 0;
  /** When the summary last pushed goes out of date with no commit; null when nothing is due. */
  let attentionDueAt: number | null = null;
  const actor: Actor = { type: 'human', id: options.actorId, surface: options.surface };

  const pushStoreStatus = () =>
    options.push('store-status', {
      mode: store.mode,
      modeReason: store.modeReason,
      busy,
      ...(writeError !== null && { writeError }),
    });
  // A full disk or a store turned read-only gets its own banner, not "something went wrong".
  const setWriteError = (next: StoreStatusPush['writeError']) => {
    if ((next?.code ?? null) === (writeError?.code ?? null)) return;
    writeError = next ?? null;
    pushStoreStatus();
  };

  const dispatch = createDispatcher(
    {
      store,
      clock,
      actor,
      onSettingsChanged: (next) => {
        settings = next;
        options.onSettingsChanged?.(next);
      },
      ...(options.openPath !== undefined && { openPath: options.openPath }),
      ...(options.cliPath !== undefined && { cliPath: options.cliPath }),
    },
    {
      onBusy: (nowBusy) => setBusy(nowBusy),
      onWriteError: (error) => setWriteError(error),
      onInternalError: (channel, error) => console.error(`runwarden: ${channel} failed`, error),
      onSlow: (channel, ms) => {
        if (!warming) console.warn(`runwarden: slow request ${channel}: ${Math.round(ms)} ms`);
      },
    },
  );

  /**
   * One read per change feeds both the window's push and the shell's tray: the attention summary and, for
   * the tray, the open questions of the runs it lists, from the same snapshot (main/store/tray-attention.ts).
   */
  const pushAttention = () => {
    const tray = options.attention;
    const read = tray === undefined ? null : store.trayAttention(tray.items);
    const summary = read?.summary ?? store.attentionSummary(1);
    options.push('attention', {
      counts: summary.counts,
      needsYou: summary.needsYou,
      tray: worstTrayState(summary.counts),
    });
    ticksSinceAttention = 0;
    attentionDueAt = store.nextAttentionChangeAt();
    if (tray !== undefined && read !== null) tray.onAttention(read);
  };

  const warmUp = () => {
    warming = true;
    try {
      // Reads only, answers dropped; a failure is the window's own request's to report.
      for (const [channel, input] of WARM_UP_READS) dispatch(channel, input);
    } finally {
      warming = false;
    }
  };
  let warmUpTimer: ReturnType<typeof setTimeout> | null = null;
  let logWatcher: LogWatcher | null = null;

  const setBusy = (nowBusy: boolean) => {
    if (nowBusy === busy) return;
    busy = nowBusy;
    pushStoreStatus();
  };

  const onReport = (report: SweepReport) => {
    ticksSinceAttention += 1;
    if (report.busy) setBusy(true);
    else if (report.acting) setBusy(false);
    const failed = report.errors.find(
      (e): e is RunwardenError => isRunwardenError(e) && (e.code === 'DISK_FULL' || e.code === 'READ_ONLY'),
    );
    if (failed !== undefined)
      setWriteError({ code: failed.code as 'DISK_FULL' | 'READ_ONLY', message: failed.message });
    else if (report.acting && report.errors.length === 0) setWriteError(null);
    if (report.durationMs > SLOW_REQUEST_MS) {
      console.warn(`runwarden: slow sweeper tick: ${Math.round(report.durationMs)} ms`);
    }
    // Attention first: a new question's notification then finds the question in the shell's latest read.
    const due = attentionDueAt !== null && store.now() >= attentionDueAt;
    if (report.changed !== null || due || ticksSinceAttention >= ATTENTION_BACKSTOP_TICKS) pushAttention();
    if (report.changed !== null) options.push('changed', report.changed);
    else if (due) {
      // No commit to announce it, but every list showing that run is out of date (docs/ARCHITECTURE.md#change-feed).
      options.push('changed', { seq: store.lastEventSeq(), runIds: [], at: store.now(), clock: true });
    }
    if (report.notifyEvents.length > 0) {
      // Only the acting host notifies, each event once (the durable cursor: docs/LIVENESS.md#notifications).
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
            { level: n.level, title: fitText(n.title, 'title'), body: fitText(n.body, 'body') },
            NOTICE_ACTOR,
          );
          wrote = true;
        }
        // This connection's own commits do not move data_version: without this, the window would hear of
        // the notification only with the next commit of another process (docs/ARCHITECTURE.md#change-feed).
        if (wrote) sweeper.markDirty();
      }
      const shown = report.notifyCatchUp ? catchUpNotice(notices) : coalesce(notices);
      for (const notice of shown) options.notifier.show(notice);
    }
  };

  const sweeper = createSweeper(
    {
      store,
      settings: () => settings,
      host: {
        ownerId: `${options.surface}:${os.hostname()}:${process.pid}`,
        pid: process.pid,
        hostname: os.hostname(),
        startId: processStartId(process.pid),
        bootId: machineIdentity().bootId,
        pidNs: machineIdentity().pidNs,
      },
      get hygieneWorker() {
        return hygieneWorker;
      },
    },
    onReport,
    (error) => console.error('runwarden: sweeper tick failed', error),
  );

  return {
    get settings() {
      return settings;
    },
    async dispatch<C extends Channel>(channel: C, input: unknown): Promise<Result<Response<C>>> {
      // A search's counts off the main thread, so they never hold up the next keystroke's rows.
      if (channel === 'attention:summary' && searchCounts !== null) {
        const counted = await searchCounts.answer(input);
        if (counted !== null) return counted as Result<Response<C>>;
      }
      const result = dispatch(channel, input);
      if (result.ok && WRITE_CHANNELS.has(channel)) {
        // Show the person the effect of their command at once, not on the next tick.
        sweeper.markDirty();
        sweeper.tickNow();
      }
      return result;
    },
    start() {
      hygieneWorker ??= startHostHygiene(store);
      searchCounts ??= startSearchCountRequests(store);
      pushStoreStatus();
      logWatcher ??= watchLogs(store.logsDir, (runId) => options.push('log', { runId }), {
        create: store.mode === 'read-write',
      });
      sweeper.start();
      pushAttention();
      // After the caller's own start-up work (the window begins loading): not in its way.
      warmUpTimer = setTimeout(() => {
        warmUpTimer = null;
        warmUp();
      }, 0);
    },
    dispose() {
      if (warmUpTimer !== null) clearTimeout(warmUpTimer);
      logWatcher?.close();
      logWatcher = null;
      sweeper.stop();
      // Auto-checkpoint is back on synchronously; the worker closes its connection on its own thread.
      void hygieneWorker?.stop();
      hygieneWorker = null;
      void searchCounts?.stop();
      searchCounts = null;
      store.close();
    },
  };
}
