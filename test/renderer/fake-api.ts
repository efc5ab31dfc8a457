/**
 * An in-memory RunwardenApi for renderer tests: real display statuses (shared reducer), keyset paging,
 * revision checks, the stale-cancel cascade, answers with idempotency, and pushes the test can emit.
 */
import type { Pushes, RunwardenApi } from '../../shared/contract';
import type { PushEvent } from '../../shared/channel-names';
import { displayStatus, isTerminal } from '../../shared/display-status';
import type {
  Attempt,
  Effect,
  Interaction,
  Lease,
  Notification,
  QueueEntry,
  Run,
  EventType,
  RunEvent,
  RunSnapshot,
} from '../../shared/domain';
import type { ErrorInfo, Result } from '../../shared/errors';
import {
  DEFAULT_SETTINGS,
  type BulkItemResult,
  type CancelCascade,
  type LogRecord,
  type ProjectSummary,
  type RunListItem,
  type Settings,
  type StatusCounts,
  type StoreInfo,
} from '../../shared/views';

export const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

export interface FakeRun {
  run: Run;
  queue: QueueEntry;
  lease: Lease | null;
  interactions: Interaction[];
  effects: Effect[];
  attempts: Attempt[];
  events: RunEvent[];
}

let counter = 0;
/** Sortable ids: a zero-padded counter, so later runs sort after earlier ones. */
export function nextRunId(): string {
  counter += 1;
  return `run_${counter.toString().padStart(6, '0')}`;
}

export function makeRun(overrides: Partial<Run> = {}): Run {
  const id = overrides.id ?? nextRunId();
  return {
    id,
    projectId: 1,
    projectPath: '/home/dev/alpha',
    workflow: 'deploy',
    title: `Run ${id}`,
    status: 'queued',
    paused: false,
    statusDetail: null,
    executionMode: 'interactive',
    originSession: null,
    parentRunId: null,
    lineage: null,
    input: null,
    output: null,
    error: null,
    command: null,
    requestKey: null,
    cancelRequested: false,
    pauseRequested: false,
    currentStep: null,
    revision: 1,
    createdAt: NOW - 60_000,
    updatedAt: NOW - 60_000,
    finishedAt: null,
    ...overrides,
  };
}

export function makeLease(runId: string, overrides: Partial<Lease> = {}): Lease {
  return {
    runId,
    name: 'run',
    generation: 1,
    ownerType: 'runner',
    ownerId: 'worker-1',
    ownerPid: 4242,
    ownerHostname: 'devbox',
    ownerStartId: null,
    acquiredAt: NOW - 50_000,
    heartbeatAt: NOW - 1_000,
    expiresAt: NOW + 30_000,
    ...overrides,
  };
}

export function makeInteraction(runId: string, overrides: Partial<Interaction> = {}): Interaction {
  return {
    id: `int_${runId}`,
    runId,
    attemptId: null,
    kind: 'decision',
    title: 'Deploy to production?',
    prompt: 'All checks passed.\nShip it?',
    choices: ['yes', 'no'],
    fields: null,
    defaultResponse: null,
    hasDefault: false,
    deadlineAt: NOW + 5 * 60_000,
    status: 'pending',
    revision: 1,
    presenterId: null,
    presenterExpiresAt: null,
    response: null,
    provenance: null,
    createdAt: NOW - 30_000,
    settledAt: null,
    ...overrides,
  };
}

export function makeEffect(runId: string, overrides: Partial<Effect> = {}): Effect {
  return {
    id: Math.floor(Math.random() * 1e9) + 1,
    runId,
    attemptId: null,
    type: 'http.post',
    idempotencyKey: `key-${runId}`,
    summary: 'POST /deployments',
    status: 'applying',
    attemptCount: 1,
    resolution: null,
    resolutionNote: null,
    resolvedBy: null,
    createdAt: NOW - 20_000,
    updatedAt: NOW - 20_000,
    ...overrides,
  };
}

export function makeQueue(runId: string, overrides: Partial<QueueEntry> = {}): QueueEntry {
  return {
    runId,
    status: 'queued',
    availableAt: NOW - 1000,
    errorCode: null,
    errorDetail: null,
    consecutiveErrors: 0,
    updatedAt: NOW,
    ...overrides,
  };
}

/** Builders for the usual kinds of run. */
export const scenario = {
  needsAnswer(overrides: Partial<Run> = {}, interaction: Partial<Interaction> = {}): FakeRun {
    const run = makeRun({ status: 'waiting', ...overrides });
    return {
      run,
      queue: makeQueue(run.id, { status: 'running' }),
      lease: makeLease(run.id),
      interactions: [makeInteraction(run.id, interaction)],
      effects: [],
      attempts: [],
      events: [],
    };
  },
  stale(overrides: Partial<Run> = {}, effects: Array<Partial<Effect>> = []): FakeRun {
    const run = makeRun({ status: 'running', currentStep: 'build', ...overrides });
    return {
      run,
      queue: makeQueue(run.id, { status: 'running' }),
      lease: makeLease(run.id, { expiresAt: NOW - 10_000, heartbeatAt: NOW - 40_000 }),
      interactions: [],
      effects: effects.map((e) => makeEffect(run.id, e)),
      attempts: [
        {
          id: 1,
          runId: run.id,
          step: 'build',
          number: 1,
          status: 'running',
          deadlineAt: null,
          startedAt: NOW - 50_000,
          finishedAt: null,
          error: null,
        },
      ],
      events: [],
    };
  },
  running(overrides: Partial<Run> = {}): FakeRun {
    const run = makeRun({ status: 'running', currentStep: 'test', ...overrides });
    return {
      run,
      queue: makeQueue(run.id, { status: 'running' }),
      lease: makeLease(run.id),
      interactions: [],
      effects: [],
      attempts: [],
      events: [],
    };
  },
  ambiguous(overrides: Partial<Run> = {}): FakeRun {
    const run = makeRun({ status: 'waiting', ...overrides });
    return {
      run,
      queue: makeQueue(run.id, { status: 'parked', errorCode: 'effectAmbiguous' }),
      lease: makeLease(run.id, { ownerType: null, ownerId: null, expiresAt: null }),
      interactions: [],
      effects: [makeEffect(run.id, { status: 'ambiguous' })],
      attempts: [],
      events: [],
    };
  },
  completed(overrides: Partial<Run> = {}): FakeRun {
    const run = makeRun({ status: 'completed', finishedAt: NOW - 1000, ...overrides });
    return {
      run,
      queue: makeQueue(run.id, { status: 'done' }),
      lease: null,
      interactions: [],
      effects: [],
      attempts: [],
      events: [],
    };
  },
};

type Listener = (payload: unknown) => void;

function ok<T>(value: T): Promise<Result<T>> {
  return Promise.resolve({ ok: true, value });
}
function err<T>(error: ErrorInfo): Promise<Result<T>> {
  return Promise.resolve({ ok: false, error });
}

const VIEW_STATUSES: Record<string, readonly string[]> = {
  running: ['running'],
  queued: ['queued'],
  parked: ['parked', 'paused'],
  stale: ['stale'],
  failed: ['failed', 'timed_out'],
};

export class FakeApi {
  runs = new Map<string, FakeRun>();
  notifications: Notification[] = [];
  settings: Settings = structuredClone(DEFAULT_SETTINGS);
  storeInfo: StoreInfo = {
    path: '/home/dev/.local/share/runwarden/state.sqlite',
    mode: 'read-write',
    modeReason: null,
    schemaVersion: 1,
    supportedVersion: 1,
    sizeBytes: 4096,
    walBytes: 0,
  };
  now = NOW;
  /** Each run's output log (one generation), as the store's log files would hold it. */
  logs = new Map<string, LogRecord[]>();
  /** Log files "opened" with the desktop's viewer; null: no desktop (browser mode). */
  openedLogs: string[] | null = null;
  /** Every call, in order: [method, input]. */
  calls: Array<[string, unknown]> = [];
  /** Force the next call of a method to fail with this error. */
  failNext = new Map<string, ErrorInfo>();
  readonly listeners = new Map<string, Set<Listener>>();
  #seq = 100;
  #answerKeys = new Map<string, string>();

  constructor(runs: FakeRun[] = []) {
    for (const r of runs) this.runs.set(r.run.id, r);
  }

  add(...runs: FakeRun[]): void {
    for (const r of runs) this.runs.set(r.run.id, r);
  }

  /** Appends lines to a run's log and pushes `log`, as the host's watch on the logs folder does. */
  appendLog(runId: string, lines: Array<Omit<LogRecord, 'seq' | 'at'>>): void {
    const log = this.logs.get(runId) ?? [];
    for (const line of lines) log.push({ ...line, seq: log.length + 1, at: this.now });
    this.logs.set(runId, log);
    this.emit('log', { runId });
  }

  emit<E extends PushEvent>(event: E, payload: Pushes[E]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(payload);
  }

  snapshot(r: FakeRun): RunSnapshot {
    return { run: r.run, queue: r.queue, lease: r.lease, interactions: r.interactions, effects: r.effects };
  }

  item(r: FakeRun): RunListItem {
    const snap = this.snapshot(r);
    return {
      run: r.run,
      queue: r.queue,
      lease: r.lease,
      display: displayStatus(snap, this.now),
      openInteractions: r.interactions.filter((i) => i.status === 'pending' || i.status === 'presenting')
        .length,
      ambiguousEffects: r.effects.filter((e) => e.status === 'ambiguous').length,
      nextDeadlineAt:
        r.interactions
          .filter((i) => (i.status === 'pending' || i.status === 'presenting') && i.deadlineAt !== null)
          .map((i) => i.deadlineAt as number)
          .toSorted((a, b) => a - b)[0] ?? null,
    };
  }

  #event(r: FakeRun, type: EventType, payload: unknown, actorType: RunEvent['actorType'] = 'human'): void {
    this.#seq += 1;
    r.events.push({
      seq: this.#seq,
      runId: r.run.id,
      runRevision: r.run.revision,
      type,
      actorType,
      actorId: actorType === 'human' ? 'dev' : 'worker-1',
      surface: actorType === 'human' ? 'browser' : 'sdk',
      leaseGeneration: r.lease?.generation ?? null,
      payload,
      at: this.now,
    });
  }

  #bump(r: FakeRun): void {
    r.run = { ...r.run, revision: r.run.revision + 1, updatedAt: this.now };
  }

  #check(method: string, input: unknown): ErrorInfo | null {
    this.calls.push([method, input]);
    const forced = this.failNext.get(method);
    if (forced !== undefined) {
      this.failNext.delete(method);
      return forced;
    }
    return null;
  }

  #find(runId: string): FakeRun | ErrorInfo {
    return this.runs.get(runId) ?? { code: 'NOT_FOUND', message: `No run ${runId}.` };
  }

  #guard(runId: string, expectedRevision: number): FakeRun | ErrorInfo {
    const r = this.#find(runId);
    if ('code' in r) return r;
    if (r.run.revision !== expectedRevision)
      return { code: 'STALE_VIEW', message: 'The run changed since you looked.', fresh: this.snapshot(r) };
    return r;
  }

  #cascade(r: FakeRun, apply: boolean): CancelCascade {
    const cascade: CancelCascade = {
      attemptsCancelled: r.attempts.filter((a) => ['pending', 'running', 'waiting'].includes(a.status))
        .length,
      attemptsInterrupted: 0,
      effectsCancelled: r.effects.filter((e) => e.status === 'pending').length,
      effectsAmbiguous: r.effects.filter((e) => e.status === 'applying').length,
      interactionsCancelled: r.interactions.filter((i) => i.status === 'pending' || i.status === 'presenting')
        .length,
    };
    if (apply) {
      r.attempts = r.attempts.map((a) =>
        ['pending', 'running', 'waiting'].includes(a.status) ? { ...a, status: 'cancelled' } : a,
      );
      r.effects = r.effects.map((e) =>
        e.status === 'pending'
          ? { ...e, status: 'cancelled' }
          : e.status === 'applying'
            ? { ...e, status: 'ambiguous' }
            : e,
      );
      r.interactions = r.interactions.map((i) =>
        i.status === 'pending' || i.status === 'presenting'
          ? { ...i, status: 'cancelled', revision: i.revision + 1 }
          : i,
      );
    }
    return cascade;
  }

  #live(r: FakeRun): boolean {
    return r.lease !== null && r.lease.ownerType !== null && (r.lease.expiresAt ?? 0) > this.now;
  }

  #projects(): ProjectSummary[] {
    const byPath = new Map<string, ProjectSummary>();
    for (const r of this.runs.values()) {
      const p = byPath.get(r.run.projectPath) ?? {
        id: r.run.projectId,
        canonicalPath: r.run.projectPath,
        name: r.run.projectPath.split('/').at(-1) ?? '',
        createdAt: NOW,
        counts: {},
        needsYou: 0,
        total: 0,
      };
      const d = this.item(r).display;
      p.counts[d.status] = (p.counts[d.status] ?? 0) + 1;
      if (d.needsYou) p.needsYou += 1;
      p.total += 1;
      byPath.set(r.run.projectPath, p);
    }
    return [...byPath.values()];
  }

  readonly api: RunwardenApi = {
    listProjects: (input) => {
      const e = this.#check('listProjects', input);
      return e ? err(e) : ok(this.#projects());
    },
    listRuns: (input) => {
      const e = this.#check('listRuns', input);
      if (e) return err(e);
      const view = input.view ?? 'all';
      const search = input.search?.toLowerCase() ?? '';
      const all = [...this.runs.values()]
        .map((r) => this.item(r))
        .filter((i) => {
          if (input.projectPath !== undefined && i.run.projectPath !== input.projectPath) return false;
          if (view === 'needs-you' && !i.display.needsYou) return false;
          const statuses = VIEW_STATUSES[view];
          if (statuses && !statuses.includes(i.display.status)) return false;
          if (search) {
            const hay = `${i.run.title} ${i.run.workflow} ${i.run.id} ${i.run.projectPath}`.toLowerCase();
            if (!hay.includes(search)) return false;
          }
          return true;
        })
        .toSorted((a, b) => (a.run.id < b.run.id ? 1 : -1));
      const start = input.cursor ? all.findIndex((i) => i.run.id < (input.cursor ?? '')) : 0;
      const from = start === -1 ? all.length : start;
      const limit = input.limit ?? 100;
      const items = all.slice(from, from + limit);
      const nextCursor = from + limit < all.length ? (items.at(-1)?.run.id ?? null) : null;
      return ok({ items, nextCursor });
    },
    getRunDetail: (input) => {
      const e = this.#check('getRunDetail', input);
      if (e) return err(e);
      const r = this.#find(input.runId);
      if ('code' in r) return err(r);
      // Pages of events newest first, like the store: `eventsBefore` is the seq to continue below.
      const limit = input.eventsLimit ?? 200;
      const newestFirst = r.events
        .filter((ev) => input.eventsBefore === undefined || ev.seq < input.eventsBefore)
        .toSorted((a, b) => b.seq - a.seq);
      const page = newestFirst.slice(0, limit);
      return ok({
        snapshot: this.snapshot(r),
        display: this.item(r).display,
        attempts: r.attempts,
        submissions: [],
        events: page,
        nextEventsCursor: newestFirst.length > limit ? (page.at(-1)?.seq ?? null) : null,
        projectPath: r.run.projectPath,
      });
    },
    getRunLog: (input) => {
      const e = this.#check('getRunLog', input);
      if (e) return err(e);
      const r = this.#find(input.runId);
      if ('code' in r) return err(r);
      const log = this.logs.get(input.runId);
      const all = (log ?? []).filter((l) => input.stream === undefined || l.stream === input.stream);
      const records =
        input.afterSeq !== undefined
          ? all.filter((l) => l.seq > (input.afterSeq ?? 0))
          : all.slice(-(input.tail ?? 200));
      return ok({
        runId: input.runId,
        generation: log === undefined ? null : 1,
        generations: log === undefined ? [] : [1],
        parentRunId: r.run.parentRunId,
        records,
        lastSeq: log?.at(-1)?.seq ?? 0,
        reset: false,
        bytes: JSON.stringify(log ?? []).length,
        truncated: false,
        removed: false,
        live: !isTerminal(r.run),
        canOpen: this.openedLogs !== null && log !== undefined,
      });
    },
    openRunLog: (input) => {
      const e = this.#check('openRunLog', input);
      if (e) return err(e);
      if (this.openedLogs === null) return err({ code: 'FORBIDDEN', message: 'Only in the desktop app.' });
      this.openedLogs.push(input.runId);
      return ok({ opened: true as const });
    },
    previewCancel: (input) => {
      const e = this.#check('previewCancel', input);
      if (e) return err(e);
      const r = this.#find(input.runId);
      if ('code' in r) return err(r);
      return ok({ liveOwner: this.#live(r), cascade: this.#cascade(r, false) });
    },
    cancelRun: (input) => {
      const e = this.#check('cancelRun', input);
      if (e) return err(e);
      const r = this.#guard(input.runId, input.expectedRevision);
      if ('code' in r) return err(r);
      if (this.#live(r))
        return err({
          code: 'LIVE_OWNER',
          message: 'A runner holds a live lease on this run; it cannot be force-cancelled.',
          recovery: { kind: 'requestCancel', runId: r.run.id },
        });
      const cascade = this.#cascade(r, true);
      r.run = { ...r.run, status: 'cancelled', statusDetail: input.reason, finishedAt: this.now };
      r.queue = { ...r.queue, status: 'cancelled', errorCode: 'cancelled' };
      this.#bump(r);
      this.#event(r, 'run.cancelled', { stale: true, reason: input.reason, cascade });
      return ok({ run: r.run, cascade });
    },
    requestCancel: (input) => {
      const e = this.#check('requestCancel', input);
      if (e) return err(e);
      const r = this.#guard(input.runId, input.expectedRevision);
      if ('code' in r) return err(r);
      r.run = { ...r.run, cancelRequested: true };
      this.#bump(r);
      this.#event(r, 'run.cancel_requested', { reason: input.reason });
      return ok(r.run);
    },
    requestPause: (input) => {
      const e = this.#check('requestPause', input);
      if (e) return err(e);
      const r = this.#guard(input.runId, input.expectedRevision);
      if ('code' in r) return err(r);
      r.run = { ...r.run, pauseRequested: true };
      this.#bump(r);
      return ok(r.run);
    },
    pauseRun: (input) => {
      const e = this.#check('pauseRun', input);
      if (e) return err(e);
      const r = this.#guard(input.runId, input.expectedRevision);
      if ('code' in r) return err(r);
      r.run = { ...r.run, paused: true };
      r.queue = { ...r.queue, status: 'parked', errorCode: 'paused' };
      this.#bump(r);
      return ok(r.run);
    },
    resumeRun: (input) => {
      const e = this.#check('resumeRun', input);
      if (e) return err(e);
      const r = this.#guard(input.runId, input.expectedRevision);
      if ('code' in r) return err(r);
      if (r.effects.some((x) => x.status === 'ambiguous'))
        return err({
          code: 'CONFLICT',
          message: 'Resolve every ambiguous effect first.',
          recovery: { kind: 'resolveEffects', runId: r.run.id },
        });
      r.run = { ...r.run, status: 'queued', paused: false };
      r.queue = { ...r.queue, status: 'queued', errorCode: null, availableAt: this.now };
      r.lease = null;
      this.#bump(r);
      this.#event(r, 'run.resumed', { reason: input.reason ?? '' });
      return ok(r.run);
    },
    stopCommand: (input) => {
      const e = this.#check('stopCommand', input);
      if (e) return err(e);
      const r = this.#guard(input.runId, input.expectedRevision);
      if ('code' in r) return err(r);
      if (this.item(r).display.status !== 'orphaned')
        return err({ code: 'CONFLICT', message: 'No process of its command is alive.' });
      this.#event(r, 'run.command_stop_requested', { reason: input.reason });
      return ok({
        runId: r.run.id,
        commandPgid: r.lease?.commandPgid ?? null,
        commandPid: r.lease?.commandPid ?? 0,
        graceMs: 5_000,
      });
    },
    retryRun: (input) => {
      const e = this.#check('retryRun', input);
      if (e) return err(e);
      const r = this.#guard(input.runId, input.expectedRevision);
      if ('code' in r) return err(r);
      const fresh = scenario.running({
        workflow: r.run.workflow,
        title: r.run.title,
        parentRunId: r.run.id,
        lineage: 'retry',
      });
      this.add(fresh);
      // As the store does: the new run says what it retries, the old one what it was retried as.
      this.#event(fresh, 'run.reserved', { workflow: r.run.workflow, title: r.run.title, retryOf: r.run.id });
      this.#bump(r);
      this.#event(r, 'run.retried', { newRunId: fresh.run.id });
      return ok(fresh.run);
    },
    bulkAction: (input) => {
      const e = this.#check('bulkAction', input);
      if (e) return err(e);
      const items: BulkItemResult[] = input.items.map((item) => {
        const r = this.runs.get(item.runId);
        if (r === undefined)
          return { runId: item.runId, ok: false, code: 'NOT_FOUND', message: 'No such run.' };
        const display = this.item(r).display;
        const allowed = display.actions.includes(input.action);
        if (!allowed)
          return {
            runId: item.runId,
            ok: false,
            code: 'CONFLICT',
            message: `Cannot ${input.action}: ${display.reason}`,
          };
        if (!input.dryRun && input.action === 'cancel') {
          this.#cascade(r, true);
          r.run = { ...r.run, status: 'cancelled' };
          r.queue = { ...r.queue, status: 'cancelled' };
          this.#bump(r);
        }
        return { runId: item.runId, ok: true, message: input.dryRun ? `Would ${input.action}.` : 'Done.' };
      });
      const succeeded = items.filter((i) => i.ok).length;
      return ok({
        action: input.action,
        dryRun: input.dryRun,
        succeeded,
        failed: items.length - succeeded,
        items,
      });
    },
    resolveEffect: (input) => {
      const e = this.#check('resolveEffect', input);
      if (e) return err(e);
      for (const r of this.runs.values()) {
        const effect = r.effects.find((x) => x.id === input.effectId);
        if (effect === undefined) continue;
        if (r.run.revision !== input.expectedRevision)
          return err({ code: 'STALE_VIEW', message: 'The run changed since you looked.' });
        const next: Effect = {
          ...effect,
          status: input.resolution === 'applied' ? 'applied' : 'cancelled',
          resolution: input.resolution,
          resolutionNote: input.note,
          resolvedBy: 'dev',
        };
        r.effects = r.effects.map((x) => (x.id === effect.id ? next : x));
        this.#bump(r);
        this.#event(r, 'effect.resolved', { resolution: input.resolution, note: input.note });
        return ok(next);
      }
      return err({ code: 'NOT_FOUND', message: 'No such effect.' });
    },
    answerInteraction: (input) => {
      const e = this.#check('answerInteraction', input);
      if (e) return err(e);
      for (const r of this.runs.values()) {
        const interaction = r.interactions.find((i) => i.id === input.interactionId);
        if (interaction === undefined) continue;
        if (this.#answerKeys.get(input.idempotencyKey) === interaction.id)
          return ok({ outcome: 'adopted' as const, interaction });
        if (interaction.status !== 'pending' && interaction.status !== 'presenting')
          return err({
            code: 'CONFLICT',
            message: 'This question is no longer open.',
            fresh: interaction,
          });
        if (interaction.revision !== input.interactionRevision)
          return err({
            code: 'STALE_VIEW',
            message: 'The question changed since you looked.',
            fresh: interaction,
          });
        if (interaction.choices !== null && !interaction.choices.includes(String(input.payload)))
          return err({ code: 'VALIDATION', message: 'Not one of the choices.' });
        const settled: Interaction = {
          ...interaction,
          status: 'settled',
          response: input.payload,
          provenance: 'human',
          revision: interaction.revision + 1,
          settledAt: this.now,
        };
        r.interactions = r.interactions.map((i) => (i.id === settled.id ? settled : i));
        if (isTerminal(r.run) === false) r.run = { ...r.run, status: 'running' };
        this.#bump(r);
        this.#answerKeys.set(input.idempotencyKey, interaction.id);
        this.#event(r, 'interaction.answered', { title: interaction.title });
        return ok({ outcome: 'accepted' as const, interaction: settled });
      }
      return err({ code: 'NOT_FOUND', message: 'No such question.' });
    },
    getAttention: (input) => {
      const e = this.#check('getAttention', input);
      if (e) return err(e);
      const counts: StatusCounts = {};
      let needsYou = 0;
      const items: RunListItem[] = [];
      // With a search, the counts are of the runs it matches (like the store's search-counts.ts).
      const search = input.search?.trim().toLowerCase() ?? '';
      for (const r of this.runs.values()) {
        const item = this.item(r);
        if (search !== '') {
          if (input.projectPath !== undefined && r.run.projectPath !== input.projectPath) continue;
          const hay = `${r.run.title} ${r.run.workflow} ${r.run.id} ${r.run.projectPath}`.toLowerCase();
          if (!hay.includes(search)) continue;
        }
        counts[item.display.status] = (counts[item.display.status] ?? 0) + 1;
        if (item.display.needsYou) {
          needsYou += 1;
          items.push(item);
        }
      }
      return ok({ counts, needsYou, items: items.slice(0, input.limit ?? 20) });
    },
    listNotifications: (input) => {
      const e = this.#check('listNotifications', input);
      if (e) return err(e);
      return ok(this.notifications.filter((n) => !input.unreadOnly || n.readAt === null));
    },
    markNotificationsRead: (input) => {
      const e = this.#check('markNotificationsRead', input);
      if (e) return err(e);
      let count = 0;
      this.notifications = this.notifications.map((n) => {
        if (n.readAt === null && (input.ids === 'all' || input.ids.includes(n.id))) {
          count += 1;
          return { ...n, readAt: this.now };
        }
        return n;
      });
      return ok({ count });
    },
    getSettings: (input) => {
      const e = this.#check('getSettings', input);
      return e ? err(e) : ok(this.settings);
    },
    setSettings: (input) => {
      const e = this.#check('setSettings', input);
      if (e) return err(e);
      const { notificationRules, ...rest } = input.patch;
      this.settings = {
        ...this.settings,
        ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
        notificationRules: {
          defaults: { ...this.settings.notificationRules.defaults, ...notificationRules?.defaults },
          projects: { ...this.settings.notificationRules.projects, ...notificationRules?.projects },
        } as Settings['notificationRules'],
      };
      return ok(this.settings);
    },
    getStoreInfo: (input) => {
      const e = this.#check('getStoreInfo', input);
      return e ? err(e) : ok(this.storeInfo);
    },
    runDoctor: (input) => {
      const e = this.#check('runDoctor', input);
      return e
        ? err(e)
        : ok({
            info: this.storeInfo,
            contradictions: [],
            staleLeases: 0,
            integrity: 'ok',
            logs: {
              dir: '/home/dev/.local/share/runwarden/logs',
              files: 0,
              bytes: 0,
              budgetBytes: 1 << 30,
              capBytes: 8 << 20,
            },
          });
    },
    on: (event, listener) => {
      const set = this.listeners.get(event) ?? new Set<Listener>();
      set.add(listener as Listener);
      this.listeners.set(event, set);
      return () => set.delete(listener as Listener);
    },
  };

  /** How many times a method was called. */
  count(method: string): number {
    return this.calls.filter(([m]) => m === method).length;
  }
}
