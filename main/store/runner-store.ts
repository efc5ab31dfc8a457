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
  ParkCode,
  Run,
  RunSnapshot,
} from '../../shared/domain';
import * as attempts from './attempts';
import * as effects from './effects';
import { loadEffectRow } from './effect-rows';
import type { AncestorProcess } from './process-identity';
import { goneAskerQuestions, loadInteractionRow } from './interaction-rows';
import * as leases from './leases';
import * as nested from './nested-runs';
import * as notifications from './notifications';
import * as askers from './question-askers';
import type { Withdrawal } from './question-askers';
import type { StoreMode } from '../../shared/views';
import {
  openConnection,
  type OpenStoreOptions,
  type StoreModeReasonCode,
  type StoreOpenState,
} from './open-connection';
import type { MigrationReport } from './migrations/migration';
import { getRunDetail } from './run-detail';
import { reserveRun } from './run-reservation';
import { lineageEffect } from './run-lineage';
import { loadRunRow, loadSnapshot } from './run-state';
import * as runner from './runner-transitions';
import { toEffect, toInteraction, toRun } from './row-mapping';
import { readerOf, readOp, renewalTx, writeTx, type ReadableDB, type WritableDB } from './store-context';
import type {
  CancelOutcome,
  ClaimKey,
  ClaimNextOptions,
  ClaimResult,
  ClaimRunOptions,
  CommandIdentity,
  EffectPerformer,
  HeartbeatAnswer,
  RequestInteractionInput,
  ReserveEffectInput,
  ReserveRunInput,
  RunDetail,
} from './store-types';

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
  readonly migrated: MigrationReport | null;
  protected readonly ctx: WritableDB;
  /** The same connection as reads see it: statements that only read (store-context.ts). */
  protected readonly reader: ReadableDB;
  #closed = false;

  constructor(ctx: WritableDB, state: StoreOpenState) {
    this.ctx = ctx;
    this.reader = readerOf(ctx);
    this.path = state.path;
    this.mode = state.mode;
    this.modeReason = state.modeReason;
    this.modeReasonCode = state.modeReasonCode;
    this.schemaVersion = state.schemaVersion;
    this.migrated = state.migrated ?? null;
  }

  /** The store's clock (epoch ms); services use it so every `now` comes from one place. */
  now(): number {
    return this.ctx.clock();
  }

  protected write<T>(fn: (ctx: WritableDB, now: number) => T): T {
    return writeTx(this.ctx, (now) => fn(this.ctx, now));
  }

  protected read<T>(fn: (ctx: ReadableDB, now: number) => T): T {
    return readOp(() => fn(this.reader, this.ctx.clock()), this.ctx.db.name);
  }

  /** A write to the connection or the file that cannot run inside a transaction (a checkpoint, a pragma). */
  protected maintain<T>(fn: (ctx: WritableDB) => T): T {
    return readOp(() => fn(this.ctx));
  }

  // ── Runner side ────────────────────────────────────────────────────────────

  reserveRun(this: RunnerStore, input: ReserveRunInput, actor: Actor): Run {
    return this.write((ctx, now) => reserveRun(ctx, input, actor, now));
  }

  /**
   * Reserves a run and claims it in one transaction (`runwarden exec`): either both happen, or neither, so a
   * failed claim never leaves a queued run carrying the command for a worker to pick up.
   */
  reserveAndClaim(
    this: RunnerStore,
    input: ReserveRunInput,
    actor: Actor,
    owner: ClaimRunOptions,
  ): ClaimResult {
    return this.write((ctx, now) => {
      const run = reserveRun(ctx, input, actor, now);
      return runner.claimRun(ctx, run.id, owner, now);
    });
  }

  claimRun(this: RunnerStore, runId: string, owner: ClaimRunOptions): ClaimResult {
    return this.write((ctx, now) => runner.claimRun(ctx, runId, owner, now));
  }

  claimNext(this: RunnerStore, owner: ClaimNextOptions): ClaimResult | null {
    return this.write((ctx, now) => runner.claimNextRun(ctx, owner, now));
  }

  /**
   * An on-time renewal commits without its own fsync; one that must record something (a lapse, a loss, a
   * vouch) commits durably (docs/ARCHITECTURE.md#lease-renewals).
   */
  heartbeat(this: RunnerStore, claim: ClaimKey, leaseMs: number): HeartbeatAnswer {
    const onTime = renewalTx(this.ctx, (now) => leases.heartbeatOnTime(this.ctx, claim, leaseMs, now));
    return onTime ?? this.write((ctx, now) => leases.heartbeat(ctx, claim, leaseMs, now));
  }

  /** The runner started the run's command: its pid, group and start identity (docs/LIVENESS.md#orphans). */
  recordCommand(this: RunnerStore, claim: ClaimKey, command: CommandIdentity): void {
    this.write((ctx, now) => leases.recordCommand(ctx, claim, command, now));
  }

  markRunning(this: RunnerStore, claim: ClaimKey): Run {
    return this.write((ctx, now) => runner.markRunning(ctx, claim, now));
  }

  setProgress(this: RunnerStore, claim: ClaimKey, detail: string): Run {
    return this.write((ctx, now) => runner.setProgress(ctx, claim, detail, now));
  }

  startAttempt(
    this: RunnerStore,
    claim: ClaimKey,
    step: string,
    opts: { deadlineAt?: number } = {},
  ): Attempt {
    return this.write((ctx, now) => attempts.startAttempt(ctx, claim, step, opts, now));
  }

  finishAttempt(
    this: RunnerStore,
    claim: ClaimKey,
    attemptId: number,
    status: attempts.AttemptEnding,
    error?: string,
  ): Attempt {
    return this.write((ctx, now) => attempts.finishAttempt(ctx, claim, attemptId, status, error, now));
  }

  requestInteraction(this: RunnerStore, claim: ClaimKey, input: RequestInteractionInput): Interaction {
    return this.write((ctx, now) => runner.requestInteraction(ctx, claim, input, now));
  }

  getInteraction(id: string): Interaction {
    return this.read((ctx) => toInteraction(loadInteractionRow(ctx, id)));
  }

  /**
   * Withdraws an open question nobody waits for any more (its asker was interrupted, or is gone): cancelled
   * with that provenance (docs/LIVENESS.md#questions-and-their-askers). False when it was no longer open.
   */
  withdrawInteraction(
    this: RunnerStore,
    interactionId: string,
    withdrawal: Withdrawal,
    actor: Actor,
  ): boolean {
    return this.write((ctx, now) => askers.withdrawInteraction(ctx, interactionId, withdrawal, actor, now));
  }

  /**
   * The run's open questions whose asker is verifiably gone are withdrawn (a read first; a write only when
   * it found one). Returns their ids.
   */
  noticeGoneAskers(this: RunnerStore, claim: ClaimKey): string[] {
    const gone = this.read((ctx) => goneAskerQuestions(ctx, claim.runId));
    if (gone.length === 0) return [];
    return this.write((ctx, now) => askers.withdrawGoneAskersOfRun(ctx, claim, now));
  }

  resumeAfterInteraction(this: RunnerStore, claim: ClaimKey): void {
    this.write((ctx, now) => runner.resumeAfterInteraction(ctx, claim, now));
  }

  /** The run a process is nested in (docs/LIVENESS.md#nested-runs); null outside every run. */
  enclosingRunOf(caller: { runId: string | null; ancestry: readonly AncestorProcess[] }): string | null {
    return this.read((ctx) => nested.enclosingRunOfCaller(ctx, caller));
  }

  reserveEffect(this: RunnerStore, claim: ClaimKey, input: ReserveEffectInput): Effect {
    return this.write((ctx, now) => effects.reserveEffect(ctx, claim, input, now));
  }

  /**
   * `performer`: who performs it, one process or the run itself (docs/LIVENESS.md#unknown-outcomes); once
   * it is verifiably gone while the effect is still applying, the effect becomes ambiguous.
   */
  beginEffect(
    this: RunnerStore,
    claim: ClaimKey,
    effectId: number,
    performer: EffectPerformer | null = null,
  ): Effect {
    return this.write((ctx, now) => effects.beginEffect(ctx, claim, effectId, performer, now));
  }

  /**
   * The run's applying effects whose process is verifiably gone become ambiguous (a read first; a write only
   * when it found one). Returns their ids.
   */
  noticeGoneEffects(this: RunnerStore, claim: ClaimKey): number[] {
    const gone = this.read((ctx) => effects.goneApplyingEffects(ctx, claim.runId));
    if (gone.length === 0) return [];
    return this.write((ctx, now) => effects.ambiguateGoneEffects(ctx, claim, now));
  }

  /**
   * What another run of `runId`'s lineage (retries and continuations, either way) holds under `key`:
   * applied, or an outcome nobody knows yet; null when none does (docs/LIVENESS.md#unknown-outcomes).
   */
  lineageEffect(runId: string, key: string): { effect: Effect; outcome: 'applied' | 'unknown' } | null {
    return this.read((ctx) => {
      const found = lineageEffect(ctx, runId, key);
      return found === undefined ? null : { effect: toEffect(found.row), outcome: found.outcome };
    });
  }

  settleEffect(
    this: RunnerStore,
    claim: ClaimKey,
    effectId: number,
    status: effects.EffectSettlement,
    caller?: readonly AncestorProcess[],
  ): Effect {
    return this.write((ctx, now) => effects.settleEffect(ctx, claim, effectId, status, now, caller));
  }

  notify(
    this: RunnerStore,
    runId: string | null,
    input: notifications.NotifyInput,
    actor: Actor,
  ): Notification {
    return this.write((ctx, now) => notifications.notify(ctx, runId, input, actor, now));
  }

  park(this: RunnerStore, claim: ClaimKey, code: ParkCode, detail?: string): Run {
    return this.write((ctx, now) => runner.park(ctx, claim, code, detail, now));
  }

  completeRun(this: RunnerStore, claim: ClaimKey, output?: unknown): Run {
    return this.write((ctx, now) => runner.finishRun(ctx, claim, { status: 'completed', output }, now));
  }

  failRun(this: RunnerStore, claim: ClaimKey, error: string): Run {
    return this.write((ctx, now) =>
      runner.finishRun(ctx, claim, { status: 'failed', error: String(error) }, now),
    );
  }

  timeOutRun(this: RunnerStore, claim: ClaimKey): Run {
    return this.write((ctx, now) => runner.finishRun(ctx, claim, { status: 'timed_out' }, now));
  }

  releaseRun(this: RunnerStore, claim: ClaimKey): Run {
    return this.write((ctx, now) => runner.releaseRun(ctx, claim, now));
  }

  /** A runner answering a cancel request ends its own run with the cancel cascade (`stale: false`). */
  cancelOwnRun(this: RunnerStore, claim: ClaimKey, reason: string): CancelOutcome {
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
  get db(): WritableDB['db'] {
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
