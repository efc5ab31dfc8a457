/** Public shapes of the store API, shared by the app, the CLI and runners. */
import type {
  Actor,
  CommandSpec,
  ExecutionMode,
  FieldType,
  InteractionField,
  Lineage,
  OwnerType,
  Run,
  RunnerSurface,
} from '../../shared/domain';

import type {
  AttentionSummary as SharedAttentionSummary,
  FullRunListItem,
  ListView,
  RunPage,
} from '../../shared/views';
import type { AskerIdentity } from './question-askers';

export type { Clock } from './store-context';
export type { FieldType };

/**
 * The identity of a lease owner, recorded on the lease so a sweeper can judge whether the owner process still
 * lives (docs/LIVENESS.md). Declared once: `LeaseOwner` (lease-rows.ts) and `HostIdentity` (sweeper.ts) are
 * derived from it.
 */
export interface OwnerInfo {
  ownerType: OwnerType;
  ownerId: string;
  pid: number;
  hostname: string;
  startId: string | null;
  /** Where `pid` means something (docs/LIVENESS.md); unknown (null) means only the lease clock counts. */
  bootId?: string | null;
  pidNs?: string | null;
  /** How this owner reaches the store, for its events ('sdk' unless said). */
  surface?: RunnerSurface;
}

export interface Claim {
  runId: string;
  generation: number;
  token: string;
  expiresAt: number;
  ownerType: OwnerType;
  ownerId: string;
  /** How the holder reaches the store, for its events ('sdk' unless said). */
  surface?: RunnerSurface;
}

export type ClaimKey = Pick<Claim, 'runId' | 'generation' | 'token' | 'ownerType' | 'surface'>;

export interface ReserveRunInput {
  projectPath: string;
  workflow: string;
  title: string;
  input?: unknown;
  command?: CommandSpec | null;
  executionMode?: ExecutionMode;
  originSession?: string | null;
  requestKey?: string | null;
  parentRunId?: string | null;
  lineage?: Lineage | null;
  /** The run this one was started inside (a nested `exec`): its family shares idempotency keys. */
  enclosingRunId?: string | null;
  availableAt?: number;
}

export type ClaimRunOptions = OwnerInfo & {
  leaseMs: number;
  control?: boolean;
  keepQueueStatus?: boolean;
  /**
   * The run the claiming process runs inside (a `worker` or `exec` started in a run): a claimed run that
   * was not started inside one becomes its child (docs/LIVENESS.md#nested-runs).
   */
  enclosingRunId?: string | null;
};

export type ClaimNextOptions = OwnerInfo & {
  leaseMs: number;
  enclosingRunId?: string | null;
  projectPaths?: string[];
  excludeIds?: string[];
  requireCommand?: boolean;
};

export interface ClaimResult {
  claim: Claim;
  run: Run;
}

export interface HeartbeatAnswer {
  ok: boolean;
  cancelRequested: boolean;
  pauseRequested: boolean;
  expiresAt: number | null;
  /** ok: how long the lease had lapsed before this renewal (0 when it had not: docs/LIVENESS.md#suspend-safe-renewal). */
  lapsedMs?: number;
  /** Not ok: another owner took the run over, or the lease was released (nobody holds it). */
  lost?: 'takenOver' | 'released' | 'lapsed';
}

/** The command a runner started for its run, so the store can tell an orphan (docs/LIVENESS.md#orphans). */
export interface CommandIdentity {
  pid: number;
  /** Its own process group (= pid when started detached), or null when it shares the runner's. */
  pgid: number | null;
  startId: string | null;
  /**
   * Without a group of its own (started from a terminal), the run whose environment marker its processes
   * carry (docs/LIVENESS.md#terminal-mode).
   */
  runId?: string | null;
  /**
   * Whether the supervisor is a child subreaper, so every process of the run keeps it among its ancestors
   * (docs/LIVENESS.md#only-a-person-outside-the-run-answers); when not, why. Left out: not known.
   */
  containment?: { subreaper: true } | { subreaper: false; why: string };
}

/**
 * One process performing an effect, recorded when it begins applying (docs/LIVENESS.md#unknown-outcomes):
 * `runwarden effect -- CMD` itself, or the process `effect begin --performer-pid PID` names. Its pid means
 * something only on the same host, boot and pid namespace, as a lease owner's does.
 */
export interface EffectProcess {
  pid: number;
  startId: string | null;
  hostname: string;
  bootId: string | null;
  pidNs: string | null;
}

/**
 * Who performs an effect: one process, or `'run'` — the run itself, as its supervisor holds it when the effect
 * begins (what `effect begin` records for a shell that exits before `effect end`). The effect turns
 * ambiguous when its performer is verifiably gone (docs/LIVENESS.md#unknown-outcomes).
 */
export type EffectPerformer = EffectProcess | 'run';

export interface RequestInteractionInput {
  kind: 'decision' | 'input';
  title: string;
  prompt?: string;
  choices?: string[];
  fields?: InteractionField[];
  defaultResponse?: unknown;
  hasDefault?: boolean;
  deadlineAt?: number | null;
  attemptId?: number | null;
  /**
   * The process that waits for the answer: the question is withdrawn once it is interrupted or verifiably
   * gone (docs/LIVENESS.md#questions-and-their-askers). Left out, the question lives until the run ends.
   */
  asker?: AskerIdentity | null;
}

export interface ReserveEffectInput {
  type: string;
  idempotencyKey: string;
  summary: string;
  attemptId?: number | null;
}

export interface PersonCommand {
  expectedRevision: number;
  reason: string;
  actor: Actor;
}

export interface LeaseSummary {
  runId: string;
  ownerId: string;
  ownerPid: number;
  ownerHostname: string;
  ownerStartId: string | null;
  expiresAt: number;
  generation: number;
  ownerBootId?: string | null;
  ownerPidNs?: string | null;
  commandPid?: number | null;
  commandPgid?: number | null;
  commandStartId?: string | null;
  orphanedAt?: number | null;
}

export interface ListRunsQuery {
  projectPath?: string;
  view?: ListView;
  search?: string;
  limit: number;
  cursor?: string | null;
}

/**
 * The read models are the contract's (shared/views.ts): what the store returns is what crosses IPC, but for
 * list rows: the store lists whole runs (FullRunListItem), the handlers send each as a RunListItem.
 */
export type {
  AnswerOutcome as AnswerResult,
  ListView,
  CancelCascade,
  CancelOutcome,
  DoctorReport,
  ProjectSummary,
  RunDetail,
  FullRunListItem,
  StoreInfo,
} from '../../shared/views';

/** A page of the store's list: whole runs. */
export type RunListPage = RunPage<FullRunListItem>;
/** The store's attention summary: its runs whole (the tray's menu reads them in the host's process). */
export type AttentionSummary = SharedAttentionSummary<FullRunListItem>;

/** A claim's output log (docs/RUN-OUTPUT.md): the file, not its content. */
export interface RunLogInfo {
  runId: string;
  generation: number;
  path: string;
  bytes: number;
  truncated: boolean;
  startedAt: number;
  updatedAt: number;
  /** Deleted to keep logs within their total budget. */
  removedAt: number | null;
}

export interface RunLogInput {
  runId: string;
  generation: number;
  path: string;
  bytes: number;
  truncated: boolean;
}
