/**
 * The app host's other machines (docs/REMOTES.md#in-the-window): one SSH session per attached machine, with
 * its change feed; what needs a person there, read again when it changes; reconnection with backoff; and the
 * window's calls to a machine's own handlers. Nothing is queued: a call to a machine that is not connected
 * is refused at once, and what is shown of an unreachable machine is its last-known state, marked so.
 */
import { hostname } from 'node:os';
import { version as VERSION } from '../../../package.json';
import { DISPLAY_STATUSES } from '../../../shared/display-status';
import type { Actor } from '../../../shared/domain';
import { ERROR_CODES, type ErrorCode, type Result } from '../../../shared/errors';
import type { RemoteCallChannel, RemoteMachineView, RemotesPush } from '../../../shared/remotes';
import { sanitizeLine } from '../../../shared/terminal-text';
import type { Interaction } from '../../../shared/domain';
import { listedItem, type FullRunListItem, type RunListItem, type StatusCounts } from '../../../shared/views';
import type { StoreWriter } from '../../store';
import {
  addRemote,
  DEFAULT_RUNWARDEN_COMMAND,
  listRemotes,
  removeRemote,
  type RemoteMachine,
} from './remotes';
import { connectRemote, RemoteLinkError, type RemoteLink, type RemoteLinkOptions } from './ssh-link';

/** Reconnection waits this long after a failure, doubling up to the maximum. */
export const RECONNECT_FIRST_MS = 1_000;
export const RECONNECT_MAX_MS = 30_000;
/** A machine's pushes beyond this many a second are dropped (a refresh still follows). */
export const MAX_PUSHES_PER_SECOND = 20;
/**
 * What needs you there is read when it changes, one read at a time (a change during a read is read again
 * right after it), and at most this often however often it changes: 20 reads a second at most.
 */
export const REFRESH_EVERY_MS = 50;
/** An attention push is read after this long, unless the `changed` push that comes with it is there first. */
const ATTENTION_ALONE_MS = 30;
/** A machine's `log` pushes are passed on at most this often, for at most this many runs at a time. */
export const LOG_FORWARD_EVERY_MS = 250;
export const LOG_FORWARD_RUNS = 32;
const NEEDS_YOU_ROWS = 20;
const RUN_ID = /^run_[0-9a-z]{1,60}$/;
const QUESTION_RUNS = 10;

export interface RemoteHubOptions {
  store: StoreWriter;
  /** The person at this machine, as the remotes record them (user@host). */
  person: string;
  surface: 'app' | 'browser';
  push: (payload: RemotesPush) => void;
  /** A remote run's output grew (`NAME:run_…`): the window reads what came since, as for a local run. */
  onLog?: (runId: string) => void;
  clock: () => number;
  /** The session opener; the real one starts `ssh`. */
  connect?: (options: RemoteLinkOptions) => Promise<RemoteLink>;
}

export interface RemoteHub {
  start(): void;
  dispose(): void;
  list(): RemoteMachineView[];
  add(
    input: { name: string; dest: string; runwarden?: string | undefined },
    actor: Actor,
  ): RemoteMachineView[];
  remove(name: string, actor: Actor): RemoteMachineView[];
  call(machine: string, channel: RemoteCallChannel, input: unknown): Promise<Result<unknown>>;
  /** Each attached machine's name and whether a call to it would be sent now. */
  machines(): Array<{ name: string; connected: boolean }>;
  /** The rows a machine gave last for a query's first page (shown, marked, while it cannot be reached). */
  lastKnown(name: string, key: string): { items: RunListItem[]; at: number } | null;
  remember(name: string, key: string, items: RunListItem[]): void;
}

/** First pages remembered per machine, to show as last known; the oldest query is forgotten first. */
const REMEMBERED_QUERIES = 16;
/** Reads: a call on these leaves the machine's needs-you view as it is (no read again after it). */
const READ_CHANNELS: ReadonlySet<RemoteCallChannel> = new Set<RemoteCallChannel>([
  'projects:list',
  'runs:list',
  'runs:detail',
  'runs:log',
  'attention:summary',
  'notifications:list',
  'notifications:markRead',
  'runs:previewCancel',
]);

interface Machine {
  remote: RemoteMachine;
  view: RemoteMachineView;
  link: RemoteLink | null;
  backoffMs: number;
  retry: ReturnType<typeof setTimeout> | null;
  refresh: ReturnType<typeof setTimeout> | null;
  /** When the read `refresh` waits for begins (Date.now()). */
  refreshAt: number;
  /** A read is under way; `changedSince`: a change came after it began, so another follows it. */
  reading: boolean;
  changedSince: boolean;
  /**
   * The runs with new events there since the last read (from its `changed` pushes), whose open questions are
   * read again; null: every run's (the first read, a dropped push, a change that names no run).
   */
  changedRuns: Set<string> | null;
  lastRefreshAt: number;
  pushTimes: number[];
  /** Runs whose output grew since the last forward, and the timer that forwards them. */
  logRuns: Set<string>;
  logTimer: ReturnType<typeof setTimeout> | null;
  gone: boolean;
  pages: Map<string, { items: RunListItem[]; at: number }>;
}

export function personHere(user: string): string {
  return `${user}@${hostname()}`;
}

export function createRemoteHub(options: RemoteHubOptions): RemoteHub {
  const machines = new Map<string, Machine>();
  const hub = new Hub(options, machines);
  return {
    start: () => {
      for (const remote of listRemotes(options.store)) hub.attach(remote);
      hub.publish();
    },
    dispose: () => {
      for (const machine of machines.values()) hub.detach(machine);
      machines.clear();
    },
    list: () => hub.views(),
    add: (input, actor) => {
      const remote = { ...input, runwarden: input.runwarden ?? DEFAULT_RUNWARDEN_COMMAND };
      addRemote(options.store, remote, actor);
      hub.attach(remote);
      hub.publish();
      return hub.views();
    },
    remove: (name, actor) => {
      removeRemote(options.store, name, actor);
      const machine = machines.get(name);
      if (machine !== undefined) hub.detach(machine);
      machines.delete(name);
      hub.publish();
      return hub.views();
    },
    call: (machine, channel, input) => hub.call(machine, channel, input),
    machines: () =>
      [...machines.values()].map((m) => ({
        name: m.remote.name,
        connected: m.link !== null && m.view.state === 'connected',
      })),
    lastKnown: (name, key) => machines.get(name)?.pages.get(key) ?? null,
    remember: (name, key, items) => {
      const pages = machines.get(name)?.pages;
      if (pages === undefined) return;
      pages.delete(key);
      pages.set(key, { items, at: options.clock() });
      if (pages.size > REMEMBERED_QUERIES) pages.delete(pages.keys().next().value as string);
    },
  };
}

class Hub {
  constructor(
    private readonly options: RemoteHubOptions,
    private readonly machines: Map<string, Machine>,
  ) {}

  views(): RemoteMachineView[] {
    return [...this.machines.values()].map((m) => ({ ...m.view }));
  }

  publish(): void {
    this.options.push({ machines: this.views() });
  }

  attach(remote: RemoteMachine): void {
    const view: RemoteMachineView = {
      ...remote,
      state: 'connecting',
      since: null,
      error: null,
      kind: null,
      version: null,
      host: null,
      readAt: null,
      needsYou: [],
      questions: [],
      counts: {},
      needsYouTotal: 0,
      dropped: 0,
    };
    const machine: Machine = {
      remote,
      view,
      link: null,
      backoffMs: RECONNECT_FIRST_MS,
      retry: null,
      refresh: null,
      refreshAt: 0,
      reading: false,
      changedSince: false,
      changedRuns: null,
      lastRefreshAt: 0,
      pushTimes: [],
      logRuns: new Set(),
      logTimer: null,
      gone: false,
      pages: new Map(),
    };
    this.machines.set(remote.name, machine);
    this.connect(machine);
  }

  detach(machine: Machine): void {
    machine.gone = true;
    if (machine.retry !== null) clearTimeout(machine.retry);
    if (machine.refresh !== null) clearTimeout(machine.refresh);
    if (machine.logTimer !== null) clearTimeout(machine.logTimer);
    machine.link?.close();
    machine.link = null;
  }

  private connect(machine: Machine): void {
    machine.retry = null;
    const open = this.options.connect ?? connectRemote;
    open({
      remote: machine.remote,
      person: this.options.person,
      surface: this.options.surface,
      feed: true,
      version: VERSION,
      onPush: (event, payload) => this.onPush(machine, event, payload),
      onClose: (error) => this.onDown(machine, error),
    }).then(
      (link) => {
        if (machine.gone) return link.close();
        machine.link = link;
        machine.backoffMs = RECONNECT_FIRST_MS;
        Object.assign(machine.view, {
          state: 'connected',
          since: null,
          error: null,
          kind: null,
          version: link.hello.runwarden,
          host: link.hello.machine,
        });
        this.publish();
        this.scheduleRefresh(machine);
      },
      (error: unknown) => this.onDown(machine, error),
    );
  }

  /** The session failed or ended: unreachable since the first failure, and another try after the backoff. */
  private onDown(machine: Machine, error: unknown): void {
    if (machine.gone) return;
    machine.link = null;
    const message =
      error instanceof RemoteLinkError ? error.message : `${machine.remote.name}: ${String(error)}`;
    if (machine.view.state !== 'unreachable') machine.view.since = this.options.clock();
    Object.assign(machine.view, {
      state: 'unreachable',
      error: message.slice(0, 500),
      kind: error instanceof RemoteLinkError ? error.kind : 'closed',
    });
    this.publish();
    if (machine.retry !== null) return;
    machine.retry = setTimeout(() => this.connect(machine), machine.backoffMs);
    machine.backoffMs = Math.min(machine.backoffMs * 2, RECONNECT_MAX_MS);
  }

  /** Bounded in rate: a flood is dropped, counted, and still ends in one read of the machine's state. */
  private onPush(machine: Machine, event: string, payload?: unknown): void {
    if (event === 'log') return this.onLog(machine, payload);
    const now = Date.now();
    machine.pushTimes = machine.pushTimes.filter((t) => now - t < 1_000);
    if (machine.pushTimes.length >= MAX_PUSHES_PER_SECOND) {
      machine.view.dropped += 1;
      this.scheduleRefresh(machine);
      return;
    }
    machine.pushTimes.push(now);
    // A commit's push names its runs: only their questions need reading again. The attention push comes
    // just before it (the read waits a moment for it, so one read follows both), or alone as a backstop.
    if (event === 'changed') this.scheduleRefresh(machine, changedRunIds(payload));
    else if (event === 'attention') this.scheduleRefresh(machine, [], ATTENTION_ALONE_MS);
  }

  /**
   * A run's output grew there: passed on as `NAME:run_…`, coalesced to one forward per run every 250 ms
   * and at most 32 runs at a time (more are dropped and counted; the next growth of theirs is passed on).
   */
  private onLog(machine: Machine, payload: unknown): void {
    const runId = isObject(payload) ? payload.runId : undefined;
    if (this.options.onLog === undefined || typeof runId !== 'string' || !RUN_ID.test(runId)) return;
    if (machine.logRuns.size >= LOG_FORWARD_RUNS && !machine.logRuns.has(runId)) {
      machine.view.dropped += 1;
      return;
    }
    machine.logRuns.add(runId);
    if (machine.logTimer !== null || machine.gone) return;
    machine.logTimer = setTimeout(() => {
      machine.logTimer = null;
      const runs = [...machine.logRuns];
      machine.logRuns.clear();
      if (machine.link === null) return;
      for (const id of runs) this.options.onLog?.(`${machine.remote.name}:${id}`);
    }, LOG_FORWARD_EVERY_MS);
  }

  /**
   * A read now, or when the one under way ends, or when the gap since the last has passed; `runIds`, the
   * runs whose questions it must read again (every run's when not given).
   */
  private scheduleRefresh(machine: Machine, runIds: readonly string[] | null = null, waitMs = 0): void {
    if (machine.gone) return;
    if (runIds === null) machine.changedRuns = null;
    else for (const id of runIds) machine.changedRuns?.add(id);
    if (machine.reading) {
      machine.changedSince = true;
      return;
    }
    const now = Date.now();
    const at = Math.max(now + waitMs, machine.lastRefreshAt + REFRESH_EVERY_MS);
    if (machine.refresh !== null) {
      if (at >= machine.refreshAt) return;
      clearTimeout(machine.refresh);
    }
    machine.refreshAt = at;
    machine.refresh = setTimeout(() => {
      machine.refresh = null;
      machine.lastRefreshAt = Date.now();
      machine.reading = true;
      machine.changedSince = false;
      void this.refresh(machine).finally(() => {
        machine.reading = false;
        // The runs that changed meanwhile are in changedRuns already.
        if (machine.changedSince) this.scheduleRefresh(machine, []);
      });
    }, at - now);
  }

  /**
   * What needs a person on that machine: its own needs-you view, and the open questions of those runs. The
   * requests go out together (one session carries many), so a read costs about one round trip, not one each.
   */
  private async refresh(machine: Machine): Promise<void> {
    const link = machine.link;
    if (link === null) return;
    const changed = machine.changedRuns;
    machine.changedRuns = new Set();
    try {
      const [page, summary] = await Promise.all([
        link.call('runs:list', { view: 'needs-you', limit: NEEDS_YOU_ROWS }),
        link.call('attention:summary', { limit: 0 }),
      ]);
      const rows = page.ok ? listItems(page.value) : [];
      const { counts, needsYouTotal } = attentionCounts(summary.ok ? summary.value : null, rows.length);
      const questions = await this.readQuestions(machine, link, rows, changed);
      Object.assign(machine.view, {
        needsYou: rows,
        questions,
        counts,
        needsYouTotal,
        readAt: this.options.clock(),
      });
      this.publish();
    } catch {
      // The session ended meanwhile (onDown says so): the next read, after the reconnection, reads all.
      machine.changedRuns = null;
    }
  }

  /**
   * The open questions of the rows that have some: read from the run's detail there when the run had events
   * since the last read (`changed`; null for every run), is new among the rows, or its row moved (revision,
   * open questions); else as that last read gave them (nothing of that run changed there since).
   */
  private async readQuestions(
    machine: Machine,
    link: RemoteLink,
    rows: RunListItem[],
    changed: Set<string> | null,
  ): Promise<Interaction[]> {
    const before = new Map(machine.view.needsYou.map((row) => [row.run.id, row]));
    const kept = (row: RunListItem): boolean => {
      const last = before.get(row.run.id);
      return (
        changed !== null &&
        !changed.has(row.run.id) &&
        last !== undefined &&
        last.run.revision === row.run.revision &&
        last.openInteractions === row.openInteractions
      );
    };
    const asking = rows.filter((row) => row.openInteractions > 0).slice(0, QUESTION_RUNS);
    const read = asking.filter((row) => !kept(row));
    const details = await Promise.all(
      read.map((row) => link.call('runs:detail', { runId: row.run.id, eventsLimit: 1 })),
    );
    const fresh = new Map<string, Interaction[]>();
    details.forEach((detail, i) => {
      const runId = (read[i] as RunListItem).run.id;
      fresh.set(runId, detail.ok ? pendingQuestions(detail.value, runId) : []);
      // Not read this time: read again the next time.
      if (!detail.ok) machine.changedRuns?.add(runId);
    });
    return asking.flatMap(
      (row) => fresh.get(row.run.id) ?? machine.view.questions.filter((q) => q.runId === row.run.id),
    );
  }

  async call(name: string, channel: RemoteCallChannel, input: unknown): Promise<Result<unknown>> {
    const machine = this.machines.get(name);
    if (machine === undefined) {
      return { ok: false, error: { code: 'NOT_FOUND', message: `No remote machine named "${name}".` } };
    }
    const refused = {
      ok: false as const,
      error: {
        code: 'CONFLICT' as const,
        message: `${name} is not connected (${machine.view.error ?? 'connecting'}): nothing was sent to it.`,
      },
    };
    if (machine.link === null || machine.view.state !== 'connected') return refused;
    try {
      const result = await machine.link.call(channel, input);
      if (!READ_CHANNELS.has(channel)) this.scheduleRefresh(machine);
      return result.ok ? { ok: true, value: result.value } : { ok: false, error: remoteError(result.error) };
    } catch {
      return refused;
    }
  }
}

/** The runs a remote's `changed` push names; null (every run) when it names none or is not as expected. */
function changedRunIds(payload: unknown): string[] | null {
  if (!isObject(payload) || payload.clock === true || !Array.isArray(payload.runIds)) return null;
  const ids = payload.runIds.filter((id): id is string => typeof id === 'string' && RUN_ID.test(id));
  return ids.length === 0 || ids.length !== payload.runIds.length ? null : ids;
}

/** An error from a remote: a known code and a plain, bounded message, or a generic one. */
function remoteError(error: unknown): { code: ErrorCode; message: string } {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as Record<
    string,
    unknown
  >;
  return {
    code: (ERROR_CODES as readonly unknown[]).includes(code) ? (code as ErrorCode) : 'INTERNAL',
    message: sanitizeLine(String(message ?? 'The remote refused.')).slice(0, 500),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rows from a remote, checked far enough to be shown, each as this side's list carries it (a remote of an
 * older version sends whole runs); anything else is left out.
 */
export function listItems(value: unknown): RunListItem[] {
  const items = isObject(value) && Array.isArray(value.items) ? value.items : [];
  return items
    .filter((item): item is RunListItem | FullRunListItem => {
      if (!isObject(item) || !isObject(item.run) || !isObject(item.display)) return false;
      const { run, display } = item;
      const beat =
        'lease' in item ? (isObject(item.lease) ? item.lease.heartbeatAt : null) : item.heartbeatAt;
      return (
        typeof run.id === 'string' &&
        RUN_ID.test(run.id) &&
        typeof run.title === 'string' &&
        typeof run.workflow === 'string' &&
        typeof run.projectPath === 'string' &&
        typeof run.createdAt === 'number' &&
        typeof display.status === 'string' &&
        typeof item.openInteractions === 'number' &&
        (beat === undefined || beat === null || typeof beat === 'number')
      );
    })
    .map(listedItem);
}

const STATUSES: ReadonlySet<string> = new Set(DISPLAY_STATUSES);

/** A remote's counts, checked: numbers only, each status a plain name; what needs you at least its rows. */
function attentionCounts(value: unknown, rows: number): { counts: StatusCounts; needsYouTotal: number } {
  const summary = isObject(value) ? value : {};
  const counts: StatusCounts = {};
  if (isObject(summary.counts)) {
    for (const [status, n] of Object.entries(summary.counts)) {
      if (STATUSES.has(status) && typeof n === 'number' && Number.isSafeInteger(n) && n >= 0)
        (counts as Record<string, number>)[status] = n;
    }
  }
  const total = summary.needsYou;
  const needsYouTotal =
    typeof total === 'number' && Number.isSafeInteger(total) && total >= rows ? total : rows;
  return { counts, needsYouTotal };
}

function pendingQuestions(detail: unknown, runId: string): Interaction[] {
  const snapshot = isObject(detail) && isObject(detail.snapshot) ? detail.snapshot : {};
  const list = Array.isArray(snapshot.interactions) ? snapshot.interactions : [];
  return list.filter((q): q is Interaction => {
    if (!isObject(q)) return false;
    return (
      q.status === 'pending' &&
      q.runId === runId &&
      typeof q.id === 'string' &&
      /^int_[0-9a-z]{1,60}$/.test(q.id) &&
      typeof q.title === 'string' &&
      typeof q.prompt === 'string' &&
      typeof q.revision === 'number' &&
      (q.choices === null || (Array.isArray(q.choices) && q.choices.every((c) => typeof c === 'string')))
    );
  });
}
