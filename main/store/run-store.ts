/**
 * The store's one public object: holds the connection, the prepared-statement cache and the clock, and
 * delegates each method to its aggregate module. Every write runs in one `BEGIN IMMEDIATE` transaction
 * with `now` read inside it; every read is a short statement (no read held open across ticks). The runner's
 * own transitions are inherited from `RunnerStore` (runner-store.ts); this class adds the person, host,
 * maintenance and read side.
 */
import fs from 'node:fs';
import { DEFAULT_SETTINGS, type CounterDrift } from '../../shared/views';
import { legacyLogsDirOf, isOwnLogPath, logsDirOf, removeLogFiles } from '../logs/log-files';
import { moveLegacyLog, removeIfEmpty } from '../logs/legacy-logs';
import { legacyLogUsage, ownLogUsage } from '../logs/log-space';
import type {
  Actor,
  Effect,
  EffectResolution,
  Interaction,
  Notification,
  Run,
  RunEvent,
} from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { endGoneAgentSessions, goneAgentSessions } from './agent-sessions';
import * as doctor from './doctor';
import * as effects from './effects';
import * as events from './events';
import * as deadlines from './interaction-deadlines';
import * as leases from './leases';
import * as lineage from './run-lineage';
import * as maintenance from './maintenance';
import { SUPPORTED_SCHEMA_VERSION } from './migrations';
import * as notifications from './notifications';
import * as orphans from './orphans';
import type { LivenessCheck } from './liveness';
import type { OwnerLiveness } from '../../shared/display-status';
import * as person from './person-commands';
import * as askers from './question-askers';
import { attentionSummary, listProjects } from './run-counts';
import { nextAttentionChangeAt } from './attention-clock';
import { searchCounts, searchCountsStatement, type ReadStatement } from './search-counts';
import { projectPathOfRun } from './run-detail';
import * as runLogs from './run-logs';
import { findRunRow } from './run-state';
import { listRuns } from './run-views';
import * as settings from './settings';
import { RunnerStore } from './runner-store';
import { readTx, type WritableDB } from './store-context';
import { trayAttention, type TrayAttention } from './tray-attention';
import type {
  AnswerResult,
  AttentionSummary,
  CancelCascade,
  CancelOutcome,
  Claim,
  ClaimKey,
  DoctorReport,
  LeaseSummary,
  ListRunsQuery,
  OwnerInfo,
  PersonCommand,
  ProjectSummary,
  RunListPage,
  RunLogInfo,
  RunLogInput,
  StoreInfo,
} from './store-types';

export type { StoreModeReasonCode, StoreOpenState } from './open-connection';

/**
 * How long one write transaction of a sweeper burst works before it commits (`RunStore.writeBurst`,
 * docs/ARCHITECTURE.md#sweeper): the same bound as a pruning batch (maintenance.ts, PRUNE_BUDGET_MS).
 */
export const BURST_BUDGET_MS = 10;

function sizeOf(target: string): number {
  try {
    return fs.statSync(target).size;
  } catch {
    return 0;
  }
}

/**
 * A method that writes declares `this: RunStore`, which keeps it off `StoreReader` (store-facets.ts):
 * a consumer that only reads takes a `StoreReader`, so its type says, and the compiler checks, it cannot write.
 */
export class RunStore extends RunnerStore {
  // ── Person side ────────────────────────────────────────────────────────────

  cancelRun(
    this: RunStore,
    runId: string,
    input: { expectedRevision?: number; reason: string; actor: Actor },
  ): CancelOutcome {
    return this.write((ctx, now) => person.cancelRun(ctx, runId, input, now));
  }

  previewCancel(runId: string): { liveOwner: boolean; cascade: CancelCascade } {
    return this.read((ctx, now) => person.previewCancel(ctx, runId, now));
  }

  requestCancel(this: RunStore, runId: string, input: PersonCommand): Run {
    return this.write((ctx, now) => person.requestCancel(ctx, runId, input, now));
  }

  requestPause(this: RunStore, runId: string, input: PersonCommand): Run {
    return this.write((ctx, now) => person.requestPause(ctx, runId, input, now));
  }

  pauseRun(this: RunStore, runId: string, input: PersonCommand): Run {
    return this.write((ctx, now) => person.pauseRun(ctx, runId, input, now));
  }

  resumeRun(
    this: RunStore,
    runId: string,
    input: { expectedRevision: number; anyway?: boolean; reason?: string; actor: Actor },
  ): Run {
    return this.write((ctx, now) => person.resumeRun(ctx, runId, input, now));
  }

  resolveEffect(
    this: RunStore,
    effectId: number,
    input: { resolution: EffectResolution; note: string; expectedRevision: number; actor: Actor },
  ): Effect {
    return this.write((ctx, now) => person.resolveEffect(ctx, effectId, input, now));
  }

  answerInteraction(this: RunStore, interactionId: string, input: person.AnswerInput): AnswerResult {
    person.checkAnswerInput(input);
    const outcome = this.write((ctx, now) => person.answerInteraction(ctx, interactionId, input, now));
    if (outcome instanceof RunwardenError) throw outcome;
    return outcome;
  }

  /** Claims a question for one presenter for `ttlMs` (an open dialog); expired claims return to pending. */
  presentInteraction(this: RunStore, interactionId: string, presenterId: string, ttlMs: number): Interaction {
    return this.write((ctx, now) => person.presentInteraction(ctx, interactionId, presenterId, ttlMs, now));
  }

  /** *Stop the command*, first half: checks the run is an orphan here and records the request (orphans.ts). */
  beginStopCommand(
    this: RunStore,
    runId: string,
    input: orphans.StopCommandInput,
  ): ReturnType<typeof orphans.beginStopCommand> {
    return this.write((ctx, now) => orphans.beginStopCommand(ctx, runId, input, now));
  }

  /** *Stop the command*, second half: records what the signals achieved. */
  finishStopCommand(
    this: RunStore,
    runId: string,
    generation: number,
    outcome: { gone: boolean; signals: string[]; reason: string; actor: Actor },
  ): void {
    this.write((ctx, now) => orphans.finishStopCommand(ctx, runId, generation, outcome, now));
  }

  retryRun(
    this: RunStore,
    runId: string,
    input: { expectedRevision?: number; again?: boolean; actor: Actor },
  ): Run {
    return this.write((ctx, now) => person.retryRun(ctx, runId, input, now));
  }

  // ── Host / sweeper ─────────────────────────────────────────────────────────

  claimHostLease(this: RunStore, owner: OwnerInfo & { leaseMs: number }): Claim | null {
    return this.write((ctx, now) => leases.claimHostLease(ctx, owner, now));
  }

  renewHostLease(this: RunStore, claim: ClaimKey, leaseMs: number): boolean {
    return this.write((ctx, now) => leases.renewHostLease(ctx, claim, leaseMs, now));
  }

  releaseHostLease(this: RunStore, claim: ClaimKey): boolean {
    return this.write((ctx) => leases.releaseHostLease(ctx, claim));
  }

  /** The one liveness check (docs/LIVENESS.md), as this store's transitions use it. */
  get liveness(): LivenessCheck {
    return this.ctx.liveness;
  }

  /** Supervisor and command verdicts for a lease. */
  judgeOwner(lease: Parameters<LivenessCheck['judge']>[0]): OwnerLiveness {
    return this.ctx.liveness.judge(lease);
  }

  /** Keeps owners verified alive past their lease live for `forMs` more (orphans.ts). */
  vouchForOwners(
    this: RunStore,
    owners: ReadonlyArray<{ runId: string; generation: number }>,
    forMs: number,
  ): number {
    return this.write((ctx, now) => orphans.vouchForOwners(ctx, owners, forMs, now));
  }

  markOrphaned(this: RunStore, runId: string, generation: number, actor: Actor): boolean {
    return this.write((ctx, now) => orphans.markOrphaned(ctx, runId, generation, actor, now));
  }

  markCommandGone(this: RunStore, runId: string, generation: number, actor: Actor): boolean {
    return this.write((ctx, now) => orphans.markCommandGone(ctx, runId, generation, actor, now));
  }

  /**
   * The sweeper's check of applying effects recorded on this host: those whose process is verifiably gone
   * become ambiguous (effects.ts). A read first; a write only when it found one. Returns how many.
   */
  /**
   * The sweeper's look at one window of applying effects on this host (`effects.goneEffectsOnHost`): those
   * whose process is verifiably gone become ambiguous. Returns how many, and where the next window starts.
   */
  noticeGoneEffectsOnHost(
    this: RunStore,
    actor: Actor,
    limit: number,
    afterId = 0,
  ): { ambiguous: number; next: number } {
    const found = this.read((ctx) => effects.goneEffectsOnHost(ctx, limit, afterId));
    if (found.gone === 0) return { ambiguous: 0, next: found.next };
    const ambiguous = this.write((ctx, now) =>
      effects.ambiguateGoneEffectsOnHost(ctx, actor, limit, afterId, now),
    );
    return { ambiguous, next: found.next };
  }

  listOrphans(limit: number): ReturnType<typeof orphans.listOrphans> {
    return this.read((ctx) => orphans.listOrphans(ctx, limit));
  }

  /** The last event the acting host notified (the durable notification cursor); null before any. */
  notifiedSeq(): number | null {
    return this.read((ctx) => leases.notifiedSeq(ctx));
  }

  /** Compare-and-set of the notification cursor by the host-lease holder; false when it lost the race. */
  advanceNotifiedSeq(this: RunStore, claim: ClaimKey, from: number | null, to: number): boolean {
    return this.write((ctx) => leases.advanceNotifiedSeq(ctx, claim, from, to));
  }

  listExpiredLeases(q: { graceMs: number; limit: number }): LeaseSummary[] {
    return this.read((ctx, now) => leases.listExpiredLeases(ctx, q.graceMs, q.limit, now));
  }

  listLiveLeasesOnHost(hostname: string, limit: number): LeaseSummary[] {
    return this.read((ctx, now) => leases.listLiveLeasesOnHost(ctx, hostname, limit, now));
  }

  /** Every stale lease expired at least `olderThanMs` ago, noticed or not (the auto-cancel policy). */
  listStaleLeases(q: { olderThanMs: number; limit: number }): LeaseSummary[] {
    return this.read((ctx, now) => leases.listStaleLeases(ctx, q.olderThanMs, q.limit, now));
  }

  /** The supervisor is verifiably gone: cuts its lease short and records the loss (leases.ts). */
  markRunnerGone(this: RunStore, runId: string, generation: number, reason: string, actor: Actor): boolean {
    return this.write((ctx, now) => leases.markRunnerGone(ctx, runId, generation, reason, actor, now));
  }

  /**
   * The runner-lost mark for leases that lapsed by the clock (listExpiredLeases): LOST_PER_CHUNK at a time, as
   * many to a write transaction as fit in BURST_BUDGET_MS (`writeBurst`).
   */
  markLapsedRunnersLost(
    this: RunStore,
    expired: ReadonlyArray<{ runId: string; generation: number }>,
    reason: string,
    actor: Actor,
    budgetMs = BURST_BUDGET_MS,
  ): number {
    return this.writeBurst(expired, leases.LOST_PER_CHUNK, budgetMs, (ctx, batch, now) =>
      leases.markLapsedRunnersLost(ctx, batch, reason, actor, now),
    );
  }

  /**
   * Settles or expires one question if it is still open and due: what a waiting runner does when no sweeper
   * runs, without touching any other run's questions.
   */
  expireInteractionIfDue(this: RunStore, interactionId: string, actor: Actor): boolean {
    return this.write((ctx, now) => deadlines.expireDueInteractions(ctx, [interactionId], actor, now)) > 0;
  }

  /**
   * The sweeper's step for coding-agent sessions (docs/AGENTS.md#died): a session whose agent process is
   * verifiably gone without ending it is recorded as died, in one transaction.
   */
  endGoneAgentSessions(this: RunStore, limit: number): number {
    // A read first: an idle tick opens no write transaction (docs/ARCHITECTURE.md#sweeper).
    if (this.read((ctx) => goneAgentSessions(ctx, limit)).length === 0) return 0;
    return this.write((ctx, now) => endGoneAgentSessions(ctx, limit, now));
  }

  /**
   * The sweeper's deadline step: the due questions, DEADLINES_PER_CHUNK at a time, as many to a write
   * transaction as fit in BURST_BUDGET_MS (`writeBurst`), each re-checked inside its transaction.
   */
  expireInteractionDeadlines(
    this: RunStore,
    limit: number,
    actor: Actor,
    budgetMs = BURST_BUDGET_MS,
  ): number {
    const due = this.read((ctx, now) => deadlines.dueInteractions(ctx, limit, now));
    return this.writeBurst(due, deadlines.DEADLINES_PER_CHUNK, budgetMs, (ctx, batch, now) =>
      deadlines.expireDueInteractions(ctx, batch, actor, now),
    );
  }

  /**
   * A sweeper burst (docs/ARCHITECTURE.md#sweeper): `items` applied `chunk` at a time, and as many chunks
   * to one write transaction as fit in `budgetMs` of work (BURST_BUDGET_MS), so 1,000 due questions or
   * lapsed leases cost a few commits — each an fsync — while no transaction holds the write lock long. A
   * transaction always applies at least one chunk (a budget of 0: one chunk each). Returns the sum of what
   * `apply` returned. A retried transaction (BUSY) starts again from its own first chunk.
   */
  protected writeBurst<T>(
    this: RunStore,
    items: readonly T[],
    chunk: number,
    budgetMs: number,
    apply: (ctx: WritableDB, batch: readonly T[], now: number) => number,
  ): number {
    let count = 0;
    for (let from = 0; from < items.length;) {
      const first = from;
      const done = this.write((ctx, now) => {
        // Real time, not the store clock: the budget is about how long the write lock is held.
        const started = performance.now();
        let next = first;
        let n = 0;
        do {
          n += apply(ctx, items.slice(next, next + chunk), now);
          next += chunk;
        } while (next < items.length && performance.now() - started < budgetMs);
        return { n, next };
      });
      count += done.n;
      from = done.next;
    }
    return count;
  }

  /**
   * The sweeper's asker step: open questions whose asking process is verifiably gone are withdrawn
   * (asker_gone), up to `limit`. Judged first in a read, so a sweep with nothing to withdraw writes nothing.
   */
  withdrawGoneAskers(this: RunStore, limit: number, actor: Actor): number {
    const gone = this.read((ctx) =>
      askers.askedOpenInteractions(ctx).some((row) => askers.askerVerdict(ctx, row) === 'gone'),
    );
    if (!gone) return 0;
    return this.write((ctx, now) => askers.withdrawGoneAskers(ctx, limit, actor, now));
  }

  expirePresenterClaims(this: RunStore, limit: number): number {
    if (!this.read((ctx, now) => deadlines.hasExpiredPresenterClaims(ctx, now))) return 0;
    return this.write((ctx, now) => deadlines.expirePresenterClaims(ctx, limit, now));
  }

  /**
   * Retention (docs/ARCHITECTURE.md#sweeper, step 3): up to `limit` runs, fewer once the transaction has taken
   * `budgetMs` (default `PRUNE_BUDGET_MS`); the runs' output logs go with them once the delete commits.
   */
  pruneTerminalRuns(this: RunStore, olderThanMs: number, limit: number, budgetMs?: number): number {
    const logPaths: string[] = [];
    const pruned = this.write((ctx, now) => {
      logPaths.length = 0;
      return maintenance.pruneTerminalRuns(ctx, olderThanMs, limit, now, logPaths, budgetMs);
    });
    for (const logPath of logPaths) {
      if (!isOwnLogPath(this.path, logPath)) continue;
      try {
        removeLogFiles(logPath);
      } catch {
        // Left for the log budget, which deletes logs whose run is gone.
      }
    }
    return pruned;
  }

  // ── Run output logs (docs/RUN-OUTPUT.md) ───────────────────────────────────

  /** The folder this store's run logs live in. */
  get logsDir(): string {
    return logsDirOf(this.path);
  }

  /** The folder stores in the same folder shared before each had its own (read, never budgeted). */
  get legacyLogsDir(): string {
    return legacyLogsDirOf(this.path);
  }

  /**
   * Moves this store's ended logs out of the folder stores shared before each had its own
   * (docs/RUN-OUTPUT.md#files); live runs' logs stay where their runners write. Returns how many moved.
   */
  adoptLegacyLogs(this: RunStore): number {
    const legacy = legacyLogsDirOf(this.path);
    if (this.mode !== 'read-write' || !fs.existsSync(legacy)) return 0;
    let moved = 0;
    for (const log of this.read((ctx) => runLogs.logsIn(ctx, legacy))) {
      if (!log.ended) continue;
      const target = moveLegacyLog(log.path, this.logsDir);
      if (target === null) {
        this.markLogRemoved(log.runId, log.path);
        continue;
      }
      this.write((ctx) => runLogs.moveLogRow(ctx, log.runId, log.generation, target));
      moved += 1;
    }
    removeIfEmpty(legacy);
    return moved;
  }

  recordRunLog(this: RunStore, input: RunLogInput): RunLogInfo {
    return this.write((ctx, now) => runLogs.recordRunLog(ctx, input, now));
  }

  listRunLogs(runId: string): RunLogInfo[] {
    return this.read((ctx) => runLogs.listRunLogs(ctx, runId));
  }

  markLogRemoved(this: RunStore, runId: string, logPath: string): boolean {
    return this.write((ctx, now) => runLogs.markLogRemoved(ctx, runId, logPath, now));
  }

  runIsActive(runId: string): boolean {
    return this.read((ctx) => runLogs.runIsActive(ctx, runId));
  }

  dataVersion(): number {
    return this.read((ctx) => maintenance.dataVersion(ctx));
  }

  lastEventSeq(): number {
    return this.read((ctx) => events.lastEventSeq(ctx));
  }

  eventsAfter(seq: number, limit: number): RunEvent[] {
    return this.read((ctx) => events.eventsAfter(ctx, seq, limit));
  }

  checkpoint(this: RunStore): { walPages: number; checkpointed: number } {
    return this.maintain((ctx) => maintenance.checkpoint(ctx));
  }

  /** Forgets the remembered search plans: the benchmark measures a needle's first query with it. */
  forgetSearchPlans(): void {
    this.ctx.searchPlans.clear();
  }

  /** One bounded round of search-index merging, in its own short write transaction. */
  mergeSearchIndex(this: RunStore, pages: number): boolean {
    return this.write((ctx) => maintenance.mergeSearchIndex(ctx, pages));
  }

  /** SQLite's `wal_autocheckpoint` for this connection; 0 while the hygiene worker runs. */
  setAutoCheckpoint(this: RunStore, pages: number): void {
    this.maintain((ctx) => maintenance.setAutoCheckpoint(ctx, pages));
  }

  autoCheckpointPages(): number {
    return this.read((ctx) => maintenance.autoCheckpointPages(ctx));
  }

  // ── Reads ──────────────────────────────────────────────────────────────────

  /** The retries already made of a run, oldest first. */
  listRetries(runId: string): Run[] {
    return this.read((ctx) => lineage.listRetries(ctx, runId));
  }

  /** What a retry of `runId` will skip: each key applied in its family, and the run that applied it. */
  appliedInFamily(runId: string): lineage.FamilyApplied[] {
    return this.read((ctx) => {
      if (findRunRow(ctx, runId) === undefined)
        throw new RunwardenError('NOT_FOUND', `No run ${runId} in this store.`);
      return lineage.appliedInFamily(ctx, runId);
    });
  }

  /** Title and project of a run, or null when it is gone (notification text). */
  runLabel(runId: string): { title: string; projectPath: string } | null {
    return this.read((ctx) => {
      const row = findRunRow(ctx, runId);
      return row === undefined ? null : { title: row.title, projectPath: row.project_path };
    });
  }

  projectPathOfRun(runId: string): string {
    return this.read((ctx) => projectPathOfRun(ctx, runId));
  }

  listProjects(): ProjectSummary[] {
    return this.read((ctx, now) => listProjects(ctx, now));
  }

  listRuns(q: ListRunsQuery): RunListPage {
    return this.read((ctx, now) => listRuns(ctx, q, now));
  }

  /** Counts and the first runs that need you; with a search, of the runs it matches (search-counts.ts). */
  /** When the attention summary next changes with no commit (a lease running out, a queued run waiting too long). */
  nextAttentionChangeAt(): number | null {
    return this.read((ctx, now) => nextAttentionChangeAt(ctx, now));
  }

  /** `limit` 0: the counts only (with a search, the first runs that need you cost a sort of every match). */
  attentionSummary(limit: number, filter: { search?: string; projectPath?: string } = {}): AttentionSummary {
    const search = filter.search?.trim() ?? '';
    if (search === '') return this.read((ctx, now) => attentionSummary(ctx, limit, now));
    return this.read((ctx, now) => {
      const where = { search, ...(filter.projectPath !== undefined && { projectPath: filter.projectPath }) };
      const items = limit === 0 ? [] : listRuns(ctx, { view: 'needs-you', limit, ...where }, now).items;
      return { ...searchCounts(ctx, where, now), items };
    });
  }

  /**
   * The statement that counts a search's matches as of now, for another connection to run (the host's
   * search-count worker); null when nothing can match. Its rows are tallied by `tallySearchCounts`.
   */
  searchCountsStatement(filter: { search: string; projectPath?: string }): ReadStatement | null {
    return this.read((ctx, now) => searchCountsStatement(ctx, filter, now));
  }

  /** The attention summary and its runs' open questions, from one snapshot (tray-attention.ts). */
  trayAttention(limit: number, watched: readonly string[] = []): TrayAttention {
    return readTx(this.ctx, () => trayAttention(this.reader, limit, this.ctx.clock(), watched));
  }

  listNotifications(q: { unreadOnly?: boolean; limit: number; before?: number }): Notification[] {
    return this.read((ctx) => notifications.listNotifications(ctx, q));
  }

  markNotificationsRead(this: RunStore, ids: number[] | 'all'): number {
    return this.write((ctx, now) => notifications.markNotificationsRead(ctx, ids, now));
  }

  markRunNotificationsRead(this: RunStore, runId: string): number {
    return this.write((ctx, now) => notifications.markRunNotificationsRead(ctx, runId, now));
  }

  getSetting<T>(key: string, fallback: T): T {
    return this.read((ctx) => settings.getSetting(ctx, key, fallback));
  }

  setSetting(this: RunStore, key: string, value: unknown, actor: Actor): void {
    this.write((ctx, now) => settings.setSetting(ctx, key, value, actor, now));
  }

  listSettings(): Record<string, unknown> {
    return this.read((ctx) => settings.listSettings(ctx));
  }

  info(): StoreInfo {
    return {
      path: this.path,
      mode: this.mode,
      modeReason: this.modeReason,
      schemaVersion: this.schemaVersion,
      supportedVersion: SUPPORTED_SCHEMA_VERSION,
      sizeBytes: sizeOf(this.path),
      walBytes: sizeOf(`${this.path}-wal`),
    };
  }

  /** Kept run counts set back to what the runs say; what changed (docs/ARCHITECTURE.md#upgrades). */
  repairCounterDrift(this: RunStore, actor: Actor): CounterDrift[] {
    if (this.read((ctx) => doctor.findCounterDrift(ctx)).length === 0) return [];
    return this.write((ctx, now) => doctor.repairCounterDrift(ctx, actor, now));
  }

  /** The sweeper's recount while an upgrade's old runners may still write (docs/ARCHITECTURE.md#upgrades). */
  recountAfterUpgrade(this: RunStore, actor: Actor): CounterDrift[] {
    if (!this.read((ctx) => doctor.hasRecountMarker(ctx))) return [];
    return this.write((ctx, now) => doctor.recountAfterUpgrade(ctx, actor, now));
  }

  doctor(): DoctorReport {
    return this.read((ctx, now) => {
      const own = ownLogUsage(this.logsDir);
      const legacyDir = legacyLogsDirOf(this.path);
      const shared = legacyLogUsage(legacyDir, runLogs.logsIn(ctx, legacyDir));
      return {
        info: this.info(),
        contradictions: doctor.findContradictions(ctx),
        counterDrift: doctor.findCounterDrift(ctx),
        staleLeases: doctor.countStaleLeases(ctx, now),
        integrity: doctor.integrity(ctx),
        logs: {
          dir: this.logsDir,
          files: own.files,
          bytes: own.bytes,
          capBytes: settings.getSetting(ctx, 'logCapMb', DEFAULT_SETTINGS.logCapMb) * 1024 * 1024,
          budgetBytes: settings.getSetting(ctx, 'logBudgetMb', DEFAULT_SETTINGS.logBudgetMb) * 1024 * 1024,
          legacy: shared.legacy,
          foreign: [...own.foreign, ...shared.foreignLegacy],
        },
      };
    });
  }
}
