/**
 * The runner kit: what a workflow program uses to own one run. Claim it, keep the lease alive, record
 * steps (attempts), ask people, perform side effects through the effect ledger, then finish.
 * Every write is fenced by the store (docs/ARCHITECTURE.md#leases-and-fencing); once fenced the session refuses further work.
 */
import type { Actor, Attempt, Effect, ParkCode, RunnerSurface } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import type { CancelOutcome, Claim, ClaimKey, OwnerInfo, ReserveRunInput, RunStore } from '../store';
import { ask, type AskInput, type AskOutcome } from './ask';
import { HeartbeatLoop, type HeartbeatEvent } from './heartbeat-loop';
import { runnerActor, runnerOwner } from './owner-info';
import { enclosingClaim } from './runner-env';

export const DEFAULT_LEASE_MS = 30_000;

export interface SessionOptions {
  leaseMs?: number;
  /** Recorded on events; 'sdk' for programs using this kit directly, 'cli' for `runwarden exec`. */
  surface?: RunnerSurface;
  owner?: OwnerInfo;
  /** The run this process runs inside: a run it claims becomes its child (docs/LIVENESS.md#nested-runs). */
  enclosingRunId?: string | null;
}

/** What a runner program says about the run it starts: the store's reservation, less what only the CLI sets. */
export type StartRunInput = Pick<
  ReserveRunInput,
  'projectPath' | 'workflow' | 'title' | 'input' | 'command' | 'executionMode' | 'requestKey' | 'availableAt'
>;

/** Thrown by a step's effect callback to say the effect definitely did not happen (→ rejected, not ambiguous). */
export class EffectRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EffectRejected';
  }
}

export class RunSession {
  readonly heartbeat: HeartbeatLoop;
  readonly actor: Actor;

  readonly claim: Claim;

  constructor(
    readonly store: RunStore,
    claim: Claim,
    readonly leaseMs: number,
    surface: RunnerSurface = 'sdk',
  ) {
    // The store labels this session's events with the surface it carries (docs/ARCHITECTURE.md#leases-and-fencing).
    this.claim = { ...claim, surface };
    this.heartbeat = new HeartbeatLoop(store, this.claim, { leaseMs });
    this.actor = runnerActor(claim, surface);
  }

  get runId(): string {
    return this.claim.runId;
  }
  get fenced(): boolean {
    return this.heartbeat.fenced;
  }
  get cancelRequested(): boolean {
    return this.heartbeat.cancelRequested;
  }
  get pauseRequested(): boolean {
    return this.heartbeat.pauseRequested;
  }

  /** Starts heartbeating every leaseMs/3; `on` reports fencing and cancel/pause requests. */
  startHeartbeat(): void {
    if (this.leaseMs <= 0) {
      throw new RunwardenError(
        'CONFLICT',
        'This session is attached to an enclosing run; its exec process heartbeats it.',
      );
    }
    this.heartbeat.start();
  }
  stopHeartbeat(): void {
    this.heartbeat.stop();
  }
  on(listener: (event: HeartbeatEvent) => void): () => void {
    return this.heartbeat.on(listener);
  }

  markRunning(): void {
    this.store.markRunning(this.claim);
  }

  setProgress(detail: string): void {
    this.store.setProgress(this.claim, detail);
  }

  /** Runs `fn` as one attempt of step `name`: completed when it returns, failed (and rethrown) when it throws. */
  async step<T>(
    name: string,
    fn: (attempt: Attempt) => Promise<T> | T,
    opts?: { deadlineAt?: number },
  ): Promise<T> {
    this.#assertNotFenced();
    const attempt = this.store.startAttempt(this.claim, name, opts);
    let result: T;
    try {
      result = await fn(attempt);
    } catch (error) {
      if (!this.fenced) {
        this.store.finishAttempt(
          this.claim,
          attempt.id,
          'failed',
          error instanceof Error ? error.message : String(error),
        );
      }
      throw error;
    }
    this.store.finishAttempt(this.claim, attempt.id, 'completed');
    return result;
  }

  /**
   * Performs a side effect at most once per idempotency key: reserve → applying → applied.
   * `apply` throwing EffectRejected marks it rejected; any other throw leaves its outcome unknown
   * (ambiguous), which parks the run for a person to resolve.
   */
  async effect<T>(
    input: { type: string; idempotencyKey: string; summary: string; attemptId?: number | null },
    apply: (effect: Effect) => Promise<T> | T,
  ): Promise<{ effect: Effect; result: T | null; alreadyApplied: boolean }> {
    this.#assertNotFenced();
    const reserved = this.store.reserveEffect(this.claim, input);
    if (reserved.status === 'applied') return { effect: reserved, result: null, alreadyApplied: true };
    if (reserved.status === 'ambiguous' || reserved.status === 'applying') {
      // A previous owner left it in flight, or it ended unknown: nobody may repeat it until a person says
      // whether it happened. Park the run for them and stop.
      this.park('effectAmbiguous', `Effect ${input.idempotencyKey} has an unknown outcome: ${input.summary}`);
    }
    if (reserved.status !== 'pending') {
      throw new RunwardenError(
        'CONFLICT',
        `Effect ${input.idempotencyKey} is ${reserved.status}; a person must resolve it.`,
        {
          recovery: { kind: 'resolveEffects', runId: this.runId },
        },
      );
    }
    const applying = this.store.beginEffect(this.claim, reserved.id);
    let result: T;
    try {
      result = await apply(applying);
    } catch (error) {
      if (!this.fenced) {
        this.store.settleEffect(
          this.claim,
          reserved.id,
          error instanceof EffectRejected ? 'rejected' : 'ambiguous',
        );
      }
      throw error;
    }
    const applied = this.store.settleEffect(this.claim, reserved.id, 'applied');
    return { effect: applied, result, alreadyApplied: false };
  }

  /** Asks a person and waits for the answer, the deadline or a cancel. A cancel request also ends the wait. */
  async ask(input: AskInput, opts: { pollMs?: number; signal?: AbortSignal } = {}): Promise<AskOutcome> {
    this.#assertNotFenced();
    const controller = new AbortController();
    const unsubscribe = this.on((event) => {
      if (event.kind === 'fenced' || event.kind === 'cancelRequested') controller.abort();
    });
    const signal = opts.signal ? AbortSignal.any([opts.signal, controller.signal]) : controller.signal;
    try {
      return await ask(this.store, this.claim, input, { pollMs: opts.pollMs, signal, actor: this.actor });
    } finally {
      unsubscribe();
    }
  }

  notify(level: 'info' | 'attention' | 'success' | 'failure', title: string, body?: string): void {
    this.store.notify(this.runId, { level, title, body }, this.actor);
  }

  park(code: ParkCode, detail?: string): void {
    this.stopHeartbeat();
    this.store.park(this.claim, code, detail);
  }
  complete(output?: unknown): void {
    this.stopHeartbeat();
    this.store.completeRun(this.claim, output);
  }
  fail(error: string): void {
    this.stopHeartbeat();
    this.store.failRun(this.claim, error);
  }
  release(): void {
    this.stopHeartbeat();
    this.store.releaseRun(this.claim);
  }

  /** Ends the run as cancelled after a cooperative cancel request (or an interrupt), with the full cascade. */
  cancelled(reason: string): CancelOutcome {
    this.stopHeartbeat();
    return finishCancelled(this.store, this.claim, reason);
  }

  #assertNotFenced(): void {
    if (this.fenced) {
      throw new RunwardenError('FENCED', `Run ${this.runId}: this runner lost its lease; it must stop.`);
    }
  }
}

/** The lease holder ends its own run as cancelled (after a cancel request, or an interrupt): the full cascade, fenced. */
export function finishCancelled(store: RunStore, claim: ClaimKey, reason: string): CancelOutcome {
  return store.cancelOwnRun(claim, reason);
}

/**
 * Inside a command started by `runwarden exec` (or `worker`): a session on the enclosing run, using the
 * claim from the environment. The exec process keeps heartbeating it; this session never does.
 * Null when not inside a run.
 */
export function attachEnclosingRun(
  store: RunStore,
  env: Record<string, string | undefined> = process.env,
  surface: RunnerSurface = 'sdk',
): RunSession | null {
  const claim = enclosingClaim(env);
  if (claim === null) return null;
  return new RunSession(store, { ...claim, expiresAt: 0, ownerId: `child:${process.pid}` }, 0, surface);
}

/** Reserves a new run and claims it for this process. */
export function startRun(store: RunStore, input: StartRunInput, options: SessionOptions = {}): RunSession {
  const owner = options.owner ?? runnerOwner('runner');
  const run = store.reserveRun(input, runnerActor(owner, options.surface ?? 'sdk'));
  return claimRun(store, run.id, { ...options, owner });
}

/** Claims an existing run (refused with LIVE_OWNER while someone else's lease is live). */
export function claimRun(store: RunStore, runId: string, options: SessionOptions = {}): RunSession {
  const owner = options.owner ?? runnerOwner('runner');
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const surface = options.surface ?? 'sdk';
  const { claim } = store.claimRun(runId, { ...owner, leaseMs, surface });
  return new RunSession(store, claim, leaseMs, surface);
}

/** Claims the oldest claimable run (optionally only those with a command, in some projects); null if none. */
export function claimNextRun(
  store: RunStore,
  filter: { projectPaths?: string[]; requireCommand?: boolean; excludeIds?: string[] },
  options: SessionOptions = {},
): RunSession | null {
  const owner = options.owner ?? runnerOwner('worker');
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const surface = options.surface ?? 'sdk';
  const next = store.claimNext({
    ...owner,
    leaseMs,
    surface,
    ...filter,
    ...(options.enclosingRunId !== undefined && { enclosingRunId: options.enclosingRunId }),
  });
  return next === null ? null : new RunSession(store, next.claim, leaseMs, surface);
}
