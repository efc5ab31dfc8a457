/**
 * The renderer's API object over a real host: `createAppHost` on a temporary store file, started as the
 * shells start it (sweeper, change feed, log watcher), every method going through the host's dispatcher
 * (request validation, handlers, the store) exactly as the window's calls do, and the host's pushes
 * delivered to the `on` listeners. A second connection seeds the store the way a runner would, and the
 * change feed tells the window, as it tells it about a real runner's commits. Renderer state tests that
 * test behaviour run against this, not a re-implementation (docs/ARCHITECTURE.md#renderer-tests).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CHANNEL_METHODS, type Channel, type PushEvent } from '../../shared/channel-names';
import type { Pushes, RunwardenApi } from '../../shared/contract';
import type { Actor, CommandSpec, Effect, Interaction, Surface } from '../../shared/domain';
import type { ErrorInfo } from '../../shared/errors';
import { createAppHost } from '../../main/services/app-host';
import type { AppHost } from '../../main/services/host-types';
import { openRunLog, type RunOutputLog } from '../../main/runner/run-log';
import { openStore, SUPPORTED_SCHEMA_VERSION, type RunStore } from '../../main/store';
import type { ClaimKey, RequestInteractionInput } from '../../main/store';
import { LOST_MESSAGE } from '../../renderer/src/lib/api/http-client';

type Method = keyof Omit<RunwardenApi, 'on'>;

export interface RealHostOptions {
  /** The host's clock at the start (it moves only when a test calls `advance`). */
  at?: number;
  /** Where the person's commands come from, as the timeline shows it. */
  surface?: Surface;
  /** The desktop's "open with the default app"; without it the host is a browser tab's (`serve`). */
  openPath?: (logPath: string) => void;
  /** The store file was written by a newer Runwarden: the host opens it read-only. */
  newerSchema?: boolean;
}

export interface RealHost {
  api: RunwardenApi;
  host: AppHost;
  /** Another connection to the same file, as a runner process would hold. */
  store: RunStore;
  projectDir: string;
  /** Every push the host (or the shell) sent, in order: [event, payload]. */
  pushes: Array<[PushEvent, unknown]>;
  /** Every call the window made, in order: [method, input]. */
  calls: Array<[string, unknown]>;
  /** How many times the window called a method. */
  count(method: Method): number;
  /** The listeners the window has registered, over all push events. */
  listenerCount(): number;
  /** A push that comes from the shell, not the store (the tray's or a notification's "open this run"). */
  emitShellPush<E extends 'open-run'>(event: E, payload: Pushes[E]): void;
  /**
   * The connection drops just after the next call of `method` reached the host: that call is carried
   * out, but its reply is lost, and so is every later call (not sent) until `reconnect()`. The window
   * gets the transport's "cannot reach" error, as over a real dropped connection.
   */
  dropConnectionAfter(method: Method): void;
  /** The next call of `method` is carried out but its reply is lost; the connection then works again. */
  loseReplyOf(method: Method): void;
  reconnect(): void;
  /**
   * The next call of `method` is not carried out: the window gets `error` as the host's answer. Only for
   * a refusal the store cannot be brought to give (docs/ARCHITECTURE.md#renderer-tests lists them).
   */
  refuseNext(method: Method, error: ErrorInfo): void;
  now(): number;
  advance(ms: number): void;
  cleanup(): void;
}

export const RUNNER: Actor = { type: 'runner', id: 'runner-1', surface: 'sdk' };
const SWEEPER: Actor = { type: 'host', id: 'sweeper', surface: 'sweeper' };
const OWNER = { ownerType: 'runner', ownerId: 'runner-1', pid: 1, hostname: 'host', startId: null } as const;
/** The host's clock starts here unless a test says otherwise. */
export const START = Date.UTC(2025, 0, 15, 12, 0, 0);
/** Logs a test opened: closed at cleanup, as a runner closes its log when it ends. */
const openLogs = new WeakMap<RealHost, RunOutputLog[]>();

export function createRealHost(options: RealHostOptions = {}): RealHost {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-host-'));
  const storePath = path.join(dir, 'state.sqlite');
  const projectDir = path.join(dir, 'project');
  fs.mkdirSync(projectDir);
  let now = options.at ?? START;
  const clock = () => now;
  if (options.newerSchema === true) {
    openStore(storePath, { clock }).close();
    const db = new Database(storePath);
    db.pragma(`user_version = ${SUPPORTED_SCHEMA_VERSION + 1}`);
    db.close();
  }
  const listeners = new Map<PushEvent, Set<(payload: never) => void>>();
  const pushes: Array<[PushEvent, unknown]> = [];
  const deliver = (event: PushEvent, payload: unknown) => {
    pushes.push([event, payload]);
    for (const listener of listeners.get(event) ?? []) (listener as (p: unknown) => void)(payload);
  };
  const host = createAppHost({
    storePath,
    surface: options.surface ?? 'app',
    actorId: 'dev',
    clock,
    notifier: { show: () => {} },
    push: deliver,
    ...(options.openPath !== undefined && { openPath: options.openPath }),
  });
  const calls: Array<[string, unknown]> = [];
  let dropAfter: string | null = null;
  let loseReply: string | null = null;
  const refusals = new Map<string, ErrorInfo>();
  let down = false;
  const lost = {
    ok: false,
    error: { code: 'INTERNAL', message: LOST_MESSAGE, recovery: { kind: 'retryLater' } },
  };
  const api: Record<string, unknown> = {};
  for (const [channel, method] of Object.entries(CHANNEL_METHODS) as Array<[Channel, string]>) {
    api[method] = async (input: unknown) => {
      calls.push([method, input]);
      if (down) return lost;
      const refusal = refusals.get(method);
      if (refusal !== undefined) {
        refusals.delete(method);
        return { ok: false, error: refusal };
      }
      const result = await host.dispatch(channel, input);
      if (method === loseReply) {
        loseReply = null;
        return lost;
      }
      if (method !== dropAfter) return result;
      dropAfter = null;
      down = true;
      return lost;
    };
  }
  api.on = <E extends PushEvent>(event: E, listener: (payload: Pushes[E]) => void) => {
    const set = listeners.get(event) ?? new Set();
    set.add(listener as (payload: never) => void);
    listeners.set(event, set);
    return () => set.delete(listener as (payload: never) => void);
  };
  const store = openStore(storePath, { clock });
  host.start();
  const h: RealHost = {
    api: api as RunwardenApi,
    host,
    store,
    projectDir,
    pushes,
    calls,
    count: (method) => calls.filter(([m]) => m === method).length,
    listenerCount: () => [...listeners.values()].reduce((sum, set) => sum + set.size, 0),
    emitShellPush: (event, payload) => deliver(event, payload),
    dropConnectionAfter: (method) => void (dropAfter = method),
    loseReplyOf: (method) => void (loseReply = method),
    reconnect: () => void (down = false),
    refuseNext: (method, error) => void refusals.set(method, error),
    now: clock,
    advance(ms) {
      now += ms;
    },
    cleanup() {
      for (const log of openLogs.get(h) ?? []) log.finish();
      store.close();
      host.dispose();
      // The host's hygiene worker closes its connection on its own thread, after dispose returns: its
      // last -wal/-shm files may still be going away while the folder is removed.
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
    },
  };
  return h;
}

/** A folder under the test's project folder (a second project, say), created. */
export function projectPath(h: RealHost, name: string): string {
  const dir = path.join(h.projectDir, name);
  fs.mkdirSync(dir, { recursive: true });
  return fs.realpathSync(dir);
}

export interface RunSeed {
  title?: string;
  workflow?: string;
  projectPath?: string;
  command?: CommandSpec;
  /** How long the runner's lease lasts from now (an hour unless said). */
  leaseMs?: number;
}

export interface StartedRun {
  runId: string;
  claim: ClaimKey;
}

/** Reserves a run and claims it for a runner that marks it running, then moves the clock one tick. */
export function startRun(h: RealHost, seed: RunSeed = {}): StartedRun {
  const run = h.store.reserveRun(
    {
      projectPath: seed.projectPath ?? h.projectDir,
      workflow: seed.workflow ?? 'wf',
      title: seed.title ?? 'run',
      ...(seed.command !== undefined && { command: seed.command }),
    },
    RUNNER,
  );
  const { claim } = h.store.claimRun(run.id, { ...OWNER, leaseMs: seed.leaseMs ?? 3_600_000 });
  h.store.markRunning(claim);
  h.advance(1);
  return { runId: run.id, claim };
}

/** Reserves `count` runs and claims each for a live runner (the Running view), one clock tick apart. */
export function seedRunningRuns(h: RealHost, count: number, title = 'run'): string[] {
  return Array.from({ length: count }, (_, i) => startRun(h, { title: `${title} ${i}` }).runId);
}

/** The question a runner asks unless a test says otherwise: a decision with a five-minute deadline. */
export function askQuestion(
  h: RealHost,
  claim: ClaimKey,
  question: Partial<RequestInteractionInput> = {},
): Interaction {
  return h.store.requestInteraction(claim, {
    kind: 'decision',
    title: 'Deploy to production?',
    prompt: 'All checks passed.\nShip it?',
    choices: ['yes', 'no'],
    deadlineAt: h.now() + 5 * 60_000,
    ...question,
  });
}

/** A running run whose runner asks a question (the Needs you view). */
export function seedQuestion(
  h: RealHost,
  seed: RunSeed = {},
  question: Partial<RequestInteractionInput> = {},
): StartedRun & { interaction: Interaction } {
  const started = startRun(h, seed);
  // The clock stays where the question was asked: its deadline shows as asked ("5m 00s left").
  return { ...started, interaction: askQuestion(h, started.claim, question) };
}

/** A side effect the runner has begun and not settled (applying), or settled as it says. */
export function recordEffect(
  h: RealHost,
  claim: ClaimKey,
  effect: { summary: string; key: string; settle?: 'ambiguous' | 'applied' },
): Effect {
  const reserved = h.store.reserveEffect(claim, {
    type: 'http.post',
    idempotencyKey: effect.key,
    summary: effect.summary,
  });
  const begun = h.store.beginEffect(claim, reserved.id);
  return effect.settle === undefined ? begun : h.store.settleEffect(claim, begun.id, effect.settle);
}

/**
 * A run whose runner's lease expired in step "build" (the Stale view), already noticed as lost the way the
 * sweeper records it — so the host's own sweep finds nothing new to write on it. `effects` are begun
 * before the step, as the run's own (not the step's), and are still applying: a cancel cancels the step
 * and makes them ambiguous (an effect begun inside a step would have the step interrupted instead).
 */
export function seedStaleRun(
  h: RealHost,
  title = 'stale',
  effects: Array<{ summary: string; key: string }> = [],
  seed: RunSeed = {},
): string {
  const { runId, claim } = startRun(h, { ...seed, title, leaseMs: 1_000 });
  for (const effect of effects) recordEffect(h, claim, effect);
  h.store.startAttempt(claim, 'build');
  h.advance(1_000);
  h.store.markRunnerGone(runId, claim.generation, 'lease expired', SWEEPER);
  h.advance(1);
  return runId;
}

/** A run its runner parked with an ambiguous effect (waiting for a person to say what it did). */
export function seedAmbiguousRun(
  h: RealHost,
  title = 'ambiguous',
  effect: { summary: string; key: string } = { summary: 'POST /deployments', key: 'key-1' },
): StartedRun & { effect: Effect } {
  const started = startRun(h, { title });
  const settled = recordEffect(h, started.claim, { ...effect, settle: 'ambiguous' });
  h.store.park(started.claim, 'effectAmbiguous');
  h.advance(1);
  return { ...started, effect: settled };
}

/** A run its runner completed. */
export function seedCompletedRun(h: RealHost, title = 'done', seed: RunSeed = {}): string {
  const { runId, claim } = startRun(h, { ...seed, title });
  h.store.completeRun(claim);
  h.advance(1);
  return runId;
}

/**
 * Output the run's command printed, written to the claim's log as a runner's supervisor writes it (one
 * record per line); the log stays open, as for a run still running, until cleanup.
 */
export function printOutput(
  h: RealHost,
  claim: ClaimKey,
  lines: Array<{ stream: 'stdout' | 'stderr'; text: string }>,
): void {
  let logs = openLogs.get(h);
  if (logs === undefined) {
    logs = [];
    openLogs.set(h, logs);
  }
  let log = logs.find((l) => l.path.includes(claim.runId));
  if (log === undefined) {
    const opened = openRunLog(h.store, claim, (message) => {
      throw new Error(message);
    });
    if (opened === null) throw new Error('the log did not open');
    log = opened;
    logs.push(log);
  }
  for (const line of lines) log.write(line.stream, Buffer.from(`${line.text}\n`));
}

/**
 * `count` copies of a run (its row, queue entry and lease; ids after it), written in one transaction by the
 * seeding connection: the store's triggers index and count them as any run. For a store past a bound (the
 * search counts' cap) that reserving run by run would take minutes to reach.
 */
export function cloneRuns(h: RealHost, runId: string, count: number): void {
  const db = h.store.db;
  const columns = (table: string) =>
    db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
  const copy = (table: string, replace: Record<string, string>) => {
    const names = columns(table);
    const values = names.map((c) => replace[c] ?? `t.${c}`);
    const key = table === 'runs' ? 'id' : 'run_id';
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @count)
       INSERT INTO ${table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM ${table} t, n
       WHERE t.${key} = @runId`,
    ).run({ runId, count });
  };
  const newId = `printf('%s%07d', @runId, n.i)`;
  db.transaction(() => {
    copy('runs', { id: newId, project_request_key: 'NULL' });
    copy('queue_entries', { run_id: newId });
    copy('leases', { run_id: newId, name: `'run:' || ${newId}` });
  })();
}
