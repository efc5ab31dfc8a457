/** Public shapes of the store API (/tmp/briefs/store-api.md), shared by the app, the CLI and runners. */
import type {
  Actor,
  Attempt,
  CommandSpec,
  ExecutionMode,
  FieldType,
  Interaction,
  InteractionField,
  Lease,
  Lineage,
  OwnerType,
  Project,
  QueueEntry,
  Run,
  RunEvent,
  RunSnapshot,
  Submission,
} from '../../shared/domain';
import type { DisplayInfo, DisplayStatus } from '../../shared/display-status';

export type { Clock } from './store-context';
export type { FieldType };

export interface OwnerInfo {
  ownerType: OwnerType;
  ownerId: string;
  pid: number;
  hostname: string;
  startId: string | null;
}

export interface Claim {
  runId: string;
  generation: number;
  token: string;
  expiresAt: number;
  ownerType: OwnerType;
  ownerId: string;
}

export type ClaimKey = Pick<Claim, 'runId' | 'generation' | 'token' | 'ownerType'>;

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
  availableAt?: number;
}

export type ClaimRunOptions = OwnerInfo & { leaseMs: number; control?: boolean; keepQueueStatus?: boolean };

export type ClaimNextOptions = OwnerInfo & {
  leaseMs: number;
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
}

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
}

export interface ReserveEffectInput {
  type: string;
  idempotencyKey: string;
  summary: string;
  attemptId?: number | null;
}

export interface CancelCascade {
  attemptsCancelled: number;
  attemptsInterrupted: number;
  effectsCancelled: number;
  effectsAmbiguous: number;
  interactionsCancelled: number;
}

export interface CancelOutcome {
  run: Run;
  cascade: CancelCascade;
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
}

export type RunView = DisplayStatus | 'needs-you' | 'all' | 'parked-any';

export interface ListRunsQuery {
  projectPath?: string;
  view?: RunView;
  search?: string;
  limit: number;
  cursor?: string | null;
}

export interface RunListItem {
  run: Run;
  queue: QueueEntry;
  lease: Lease | null;
  display: DisplayInfo;
  openInteractions: number;
  ambiguousEffects: number;
}

export interface RunListPage {
  items: RunListItem[];
  nextCursor: string | null;
}

export type ProjectSummary = Project & {
  counts: Partial<Record<DisplayStatus, number>>;
  needsYou: number;
  total: number;
};

export interface RunDetail {
  snapshot: RunSnapshot;
  display: DisplayInfo;
  attempts: Attempt[];
  submissions: Submission[];
  events: RunEvent[];
  nextEventsCursor: number | null;
  projectPath: string;
}

export interface AttentionSummary {
  counts: Partial<Record<DisplayStatus, number>>;
  needsYou: number;
  items: RunListItem[];
}

export interface StoreInfo {
  path: string;
  mode: 'read-write' | 'read-only';
  modeReason: string | null;
  schemaVersion: number;
  supportedVersion: number;
  sizeBytes: number;
  walBytes: number;
}

export interface DoctorReport {
  info: StoreInfo;
  contradictions: Array<{ runId: string; problem: string }>;
  staleLeases: number;
  integrity: string;
}

export interface AnswerResult {
  outcome: 'accepted' | 'adopted';
  interaction: Interaction;
}
