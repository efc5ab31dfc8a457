/**
 * The runner's side of the store: the transitions a runner makes on its own run (claim, heartbeat, steps,
 * effects, progress, park, finish, notify) and the reads they are checked by. `RunStore` extends it with the
 * person, host, view and search side, so every transition has one implementation; a runner's frequent CLI
 * calls (notify, progress, step, effect) open only this class and so never load the rest
 * (docs/ARCHITECTURE.md#the-store-file).
 */
import type {
  Actor,
  Attempt,
  Effect,
  Interaction,
  Notification,
  NotificationLevel,
  ParkCode,
  Run,
  RunSnapshot,
} from '../../shared/domain';
import * as attempts from './attempts';
import * as effects from './effects';
import { loadEffectRow } from './effect-rows';
import { loadInteractionRow } from './interaction-rows';
import * as leases from './leases';
import * as notifications from './notifications';
import * as askers from './question-askers';
import type { Withdrawal } from './question-askers';
import { openConnection, type OpenStoreOptions } from './open-connection';
import { getRunDetail } from './run-detail';
import { reserveRun } from './run-reservation';
import { loadRunRow, loadSnapshot } from './run-state';
import * as runner from './runner-transitions';
import { toEffect, toInteraction, toRun } from './rows';
import { readOp, writeTx, type StoreContext } from './store-context';
import type {
  CancelOutcome,
  ClaimKey,
  ClaimNextOptions,
  ClaimResult,
  ClaimRunOptions,
  CommandIdentity,
  HeartbeatAnswer,
  RequestInteractionInput,
  ReserveEffectInput,
  ReserveRunInput,
  RunDetail,
} from './store-types';

export type StoreMode = 'read-write' | 'read-only';
/** Why a store opened read-only: a newer schema, or a read-only file/folder/request. */
export type StoreModeReasonCode = 'STORE_NEWER' | 'READ_ONLY';

export interface StoreOpenState {
  path: string;
  mode: StoreMode;
  modeReason: string | null;
  modeReasonCode: StoreModeReasonCode | null;
  schemaVersion: number;
}

/** Opens the runner's side of the store at `storePath`: the same checks and refusals as `openStore`. */
export function openRunnerStore(storePath: string, opts: OpenStoreOptions = {}): RunnerStore {
  const { ctx, state } = openConnection(storePath, opts);
  return new RunnerStore(ctx, state);
}

export class RunnerStore {
  readonly path: string;
  readonly mode: StoreMode;
  readonly modeReason: string | null;
  readonly modeReasonCode: StoreModeReasonCode | null;
  readonly schemaVersion: number;
  protected readonly ctx: StoreContext;
  #closed = false;

  constructor(ctx: StoreContext, state: StoreOpenState) {
    this.ctx = ctx;
    this.path = state.path;
    this.mode = state.mode;
    this.modeReason = state.modeReason;
    this.modeReasonCode = state.modeReasonCode;
    this.schemaVersion = state.schemaVersion;
  }

  /** The store's clock (epoch ms); services use it so every `now` comes from one place. */
  now(): number {
    return this.ctx.clock();
  }

  protected write<T>(fn: (ctx: StoreContext, now: number) => T): T {
    return writeTx(this.ctx, (now) => fn(this.ctx, now));
  }

  protected read<T>(fn: (ctx: StoreContext, now: number) => T): T {
    return readOp(() => fn(this.ctx, this.ctx.clock()));
  }

  // ── Runner side ────────────────────────────────────────────────────────────

  reserveRun(input: ReserveRunInput, actor: Actor): Run {
    return this.write((ctx, now) => reserveRun(ctx, input, actor, now));
  }

  /**
   * Reserves a run and claims it in one transaction (`runwarden exec`): either both happen, or neither, so a
   * failed claim never leaves a queued run carrying the command for a worker to pick up.
   */
  reserveAndClaim(input: ReserveRunInput, actor: Actor, owner: ClaimRunOptions): ClaimResult {
    return this.write((ctx, now) => {
      const run = reserveRun(ctx, input, actor, now);
      return runner.claimRun(ctx, run.id, owner, now);
    });
  }

  claimRun(runId: string, owner: ClaimRunOptions): ClaimResult {
    return this.write((ctx, now) => runner.claimRun(ctx, runId, owner, now));
  }

  claimNext(owner: ClaimNextOptions): ClaimResult | null {
    return this.write((ctx, now) => runner.claimNextRun(ctx, owner, now));
  }

  heartbeat(claim: ClaimKey, leaseMs: number): HeartbeatAnswer {
    return this.write((ctx, now) => leases.heartbeat(ctx, claim, leaseMs, now));
  }

  /** The runner started the run's command: its pid, group and start identity (docs/LIVENESS.md#orphans). */
  recordCommand(claim: ClaimKey, command: CommandIdentity): void {
    this.write((ctx, now) => leases.recordCommand(ctx, claim, command, now));
  }

  markRunning(claim: ClaimKey): Run {
    return this.write((ctx, now) => runner.markRunning(ctx, claim, now));
  }

  setProgress(claim: ClaimKey, detail: string): Run {
    return this.write((ctx, now) => runner.setProgress(ctx, claim, detail, now));
  }

  startAttempt(claim: ClaimKey, step: string, opts: { deadlineAt?: number } = {}): Attempt {
    return this.write((ctx, now) => attempts.startAttempt(ctx, claim, step, opts, now));
  }

  finishAttempt(claim: ClaimKey, attemptId: number, status: attempts.AttemptEnding, error?: string): Attempt {
    return this.write((ctx, now) => attempts.finishAttempt(ctx, claim, attemptId, status, error, now));
  }

  requestInteraction(claim: ClaimKey, input: RequestInteractionInput): Interaction {
    return this.write((ctx, now) => runner.requestInteraction(ctx, claim, input, now));
  }

  getInteraction(id: string): Interaction {
    return this.read((ctx) => toInteraction(loadInteractionRow(ctx, id)));
  }

  /**
   * Withdraws an open question nobody waits for any more (its asker was interrupted, or is gone): cancelled
   * with that provenance (docs/LIVENESS.md#questions-and-their-askers). False when it was no longer open.
   */
  withdrawInteraction(interactionId: string, withdrawal: Withdrawal, actor: Actor): boolean {
    return this.write((ctx, now) => askers.withdrawInteraction(ctx, interactionId, withdrawal, actor, now));
  }

  resumeAfterInteraction(claim: ClaimKey): void {
    this.write((ctx, now) => runner.resumeAfterInteraction(ctx, claim, now));
  }

  reserveEffect(claim: ClaimKey, input: ReserveEffectInput): Effect {
    return this.write((ctx, now) => effects.reserveEffect(ctx, claim, input, now));
  }

  beginEffect(claim: ClaimKey, effectId: number): Effect {
    return this.write((ctx, now) => effects.beginEffect(ctx, claim, effectId, now));
  }

  settleEffect(claim: ClaimKey, effectId: number, status: effects.EffectSettlement): Effect {
    return this.write((ctx, now) => effects.settleEffect(ctx, claim, effectId, status, now));
  }

  notify(
    runId: string | null,
    input: { level: NotificationLevel; title: string; body?: string },
    actor: Actor,
  ): Notification {
    return this.write((ctx, now) => notifications.notify(ctx, runId, input, actor, now));
  }

  park(claim: ClaimKey, code: ParkCode, detail?: string): Run {
    return this.write((ctx, now) => runner.park(ctx, claim, code, detail, now));
  }

  completeRun(claim: ClaimKey, output?: unknown): Run {
    return this.write((ctx, now) => runner.finishRun(ctx, claim, { status: 'completed', output }, now));
  }

  failRun(claim: ClaimKey, error: string): Run {
    return this.write((ctx, now) =>
      runner.finishRun(ctx, claim, { status: 'failed', error: String(error) }, now),
    );
  }

  timeOutRun(claim: ClaimKey): Run {
    return this.write((ctx, now) => runner.finishRun(ctx, claim, { status: 'timed_out' }, now));
  }

  releaseRun(claim: ClaimKey): Run {
    return this.write((ctx, now) => runner.releaseRun(ctx, claim, now));
  }

  /** A runner answering a cancel request ends its own run with the cancel cascade (`stale: false`). */
  cancelOwnRun(claim: ClaimKey, reason: string): CancelOutcome {
    return this.write((ctx, now) => runner.cancelOwnRun(ctx, claim, reason, now));
  }

  // ── Reads a runner's calls are checked by ──────────────────────────────────

  getRun(runId: string): Run {
    return this.read((ctx) => toRun(loadRunRow(ctx, runId)));
  }

  getEffect(effectId: number): Effect {
    return this.read((ctx) => toEffect(loadEffectRow(ctx, effectId)));
  }

  getSnapshot(runId: string): RunSnapshot {
    return this.read((ctx) => loadSnapshot(ctx, runId));
  }

  getRunDetail(runId: string, opts: { eventsLimit: number; eventsBefore?: number }): RunDetail {
    return this.read((ctx, now) => getRunDetail(ctx, runId, opts, now));
  }

  /** The raw connection, for tests and the benchmark only. */
  get db(): StoreContext['db'] {
    return this.ctx.db;
  }

  get isOpen(): boolean {
    return !this.#closed;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.ctx.db.close();
  }
}
