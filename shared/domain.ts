/**
 * Domain types of the run store (docs/ARCHITECTURE.md#run-model-and-state-machine). Plain data, shared by main, the CLI and the renderer.
 * Times are epoch milliseconds (integers); JSON columns are parsed values (`unknown` until checked).
 */

export const RUN_STATUSES = [
  'queued',
  'running',
  'waiting',
  'completed',
  'failed',
  'timed_out',
  'cancelled',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'timed_out', 'cancelled'];
/** True for a status a run never leaves; every other list of ended runs is built from TERMINAL_RUN_STATUSES. */
export function isTerminalRunStatus(status: string): boolean {
  return (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);
}

export const QUEUE_STATUSES = [
  'queued',
  'starting',
  'running',
  'parked',
  'done',
  'failed',
  'cancelled',
] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];
export const TERMINAL_QUEUE_STATUSES: readonly QueueStatus[] = ['done', 'failed', 'cancelled'];

export const QUEUE_ERROR_CODES = [
  'sourceChanged',
  'effectAmbiguous',
  'paused',
  'runnerExited',
  'interactionExpired',
  'cancelled',
  'failed',
  'timedOut',
] as const;
export type QueueErrorCode = (typeof QUEUE_ERROR_CODES)[number];
export type ParkCode = 'sourceChanged' | 'effectAmbiguous' | 'paused' | 'runnerExited';

export type ExecutionMode = 'interactive' | 'headless';
export type Lineage = 'retry' | 'continuation';

export const OWNER_TYPES = ['runner', 'host', 'control'] as const;
export type OwnerType = (typeof OWNER_TYPES)[number];

export const ACTOR_TYPES = ['runner', 'host', 'control', 'human', 'policy', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const SURFACES = ['app', 'tray', 'cli', 'browser', 'sweeper', 'sdk'] as const;
export type Surface = (typeof SURFACES)[number];
/** The surfaces a runner writes through: its kit, or the `runwarden` CLI. */
export type RunnerSurface = Extract<Surface, 'sdk' | 'cli'>;

export const ATTEMPT_STATUSES = [
  'pending',
  'running',
  'waiting',
  'interrupted',
  'completed',
  'failed',
  'timed_out',
  'cancelled',
] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
export const ACTIVE_ATTEMPT_STATUSES: readonly AttemptStatus[] = ['pending', 'running', 'waiting'];

export type InteractionKind = 'decision' | 'input';
export const INTERACTION_STATUSES = ['pending', 'presenting', 'settled', 'cancelled', 'expired'] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];
/** A question still waiting for its answer (presenting: a dialog is showing it). */
export const OPEN_INTERACTION_STATUSES: readonly InteractionStatus[] = ['pending', 'presenting'];
/**
 * How a question was settled or closed. `asker_interrupted` / `asker_gone`: it was withdrawn because the
 * process waiting for it was interrupted or is verifiably gone (docs/LIVENESS.md#questions-and-their-askers).
 */
export type ResolutionProvenance =
  'human' | 'timeout_policy' | 'explicit_cancel' | 'expired_no_default' | 'asker_interrupted' | 'asker_gone';

export type FieldType = 'string' | 'number' | 'boolean' | 'choice';
/** One option of a choice field: what the person picks, and what picking it means. */
export interface FieldOption {
  label: string;
  description?: string;
}
export interface InteractionField {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
  /** A choice field's options (its value is an option's label). */
  options?: FieldOption[];
  /** A choice field where several options may be picked: its value is a list of labels. */
  multi?: boolean;
  /** A choice field that also takes one answer in the person's own words instead of (or beside) the options. */
  allowOther?: boolean;
}

export type SubmissionOutcome = 'accepted' | 'rejected' | 'adopted';

export const EFFECT_STATUSES = [
  'pending',
  'applying',
  'applied',
  'rejected',
  'ambiguous',
  'cancelled',
] as const;
export type EffectStatus = (typeof EFFECT_STATUSES)[number];
export type EffectResolution = 'applied' | 'not_applied';

export const NOTIFICATION_LEVELS = ['info', 'attention', 'success', 'failure'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

export interface CommandSpec {
  argv: string[];
  cwd: string;
  /**
   * Its environment as `exec` started it (docs/CLI.md#what-exec-records): a value of null is a
   * secret-looking name whose value was never stored. Absent on runs recorded before, and on commands
   * given without one: a retry then runs with the worker's environment.
   */
  env?: Record<string, string | null>;
}

export interface Project {
  id: number;
  canonicalPath: string;
  name: string;
  createdAt: number;
}

export interface Run {
  id: string;
  projectId: number;
  projectPath: string;
  workflow: string;
  title: string;
  status: RunStatus;
  paused: boolean;
  statusDetail: string | null;
  executionMode: ExecutionMode;
  /** Hidden (null) for headless runs. */
  originSession: string | null;
  parentRunId: string | null;
  lineage: Lineage | null;
  input: unknown;
  output: unknown;
  error: string | null;
  command: CommandSpec | null;
  requestKey: string | null;
  cancelRequested: boolean;
  pauseRequested: boolean;
  currentStep: string | null;
  revision: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface QueueEntry {
  runId: string;
  status: QueueStatus;
  availableAt: number;
  errorCode: QueueErrorCode | null;
  errorDetail: string | null;
  consecutiveErrors: number;
  updatedAt: number;
}

export interface Lease {
  /** Run id, or null for the host (sweeper) lease. */
  runId: string | null;
  name: string;
  generation: number;
  ownerType: OwnerType | null;
  ownerId: string | null;
  ownerPid: number | null;
  ownerHostname: string | null;
  ownerStartId: string | null;
  acquiredAt: number | null;
  heartbeatAt: number | null;
  expiresAt: number | null;
  /** Where the owner's pid means something (docs/LIVENESS.md); null when unknown. */
  ownerBootId?: string | null;
  ownerPidNs?: string | null;
  /** The owner's command: pid, process group (when it has its own) and start identity. */
  commandPid?: number | null;
  commandPgid?: number | null;
  commandStartId?: string | null;
  /** A host verified the owner alive after its lease lapsed and kept it live (until its next heartbeat). */
  vouchedAt?: number | null;
  /** The supervisor is gone while a process of its command lives. */
  orphanedAt?: number | null;
}

/**
 * Every event type the store appends (docs/ARCHITECTURE.md#run-model-and-state-machine). A new type goes
 * here first: the timeline's wording is an exhaustive map over this list, so it fails the type-check
 * until the new type has words.
 */
export const EVENT_TYPES = [
  'run.reserved',
  'run.claimed',
  'run.running',
  'run.progress',
  'run.parked',
  'run.released',
  'run.completed',
  'run.failed',
  'run.timed_out',
  'run.cancelled',
  'run.cancel_requested',
  'run.pause_requested',
  'run.paused',
  'run.resumed',
  'run.retried',
  'run.runner_lost',
  // The liveness model (docs/LIVENESS.md): a lapsed lease renewed, the command recorded, an orphan found,
  // its command gone or stopped by a person.
  'run.lease_renewed_late',
  'run.command_started',
  'run.orphaned',
  'run.command_gone',
  'run.command_stop_requested',
  'run.command_stopped',
  'run.command_stop_failed',
  'attempt.started',
  'attempt.finished',
  'interaction.requested',
  'interaction.answered',
  'interaction.expired',
  // Nobody waits for the question any more: its asking process was interrupted or is gone.
  'interaction.withdrawn',
  'effect.reserved',
  'effect.applying',
  'effect.applied',
  'effect.rejected',
  'effect.ambiguous',
  'effect.resolved',
  'effect.carried',
  'host.claimed',
  'notification',
  'settings.changed',
  'store.pruned',
  // A store-wide record (no run): kept run counts set back to what the runs say; a schema migration applied.
  'store.counts_repaired',
  'store.migrated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface RunEvent {
  seq: number;
  runId: string | null;
  runRevision: number | null;
  type: EventType;
  actorType: ActorType;
  actorId: string | null;
  surface: Surface | null;
  leaseGeneration: number | null;
  payload: unknown;
  at: number;
}

export interface Attempt {
  id: number;
  runId: string;
  step: string;
  number: number;
  status: AttemptStatus;
  deadlineAt: number | null;
  startedAt: number;
  finishedAt: number | null;
  error: string | null;
}

export interface Interaction {
  id: string;
  runId: string;
  attemptId: number | null;
  kind: InteractionKind;
  title: string;
  prompt: string;
  choices: string[] | null;
  fields: InteractionField[] | null;
  defaultResponse: unknown;
  hasDefault: boolean;
  deadlineAt: number | null;
  status: InteractionStatus;
  revision: number;
  presenterId: string | null;
  presenterExpiresAt: number | null;
  response: unknown;
  provenance: ResolutionProvenance | null;
  createdAt: number;
  settledAt: number | null;
}

export interface Submission {
  id: number;
  interactionId: string;
  idempotencyKey: string;
  interactionRevision: number;
  payload: unknown;
  outcome: SubmissionOutcome;
  reason: string | null;
  actorId: string | null;
  surface: Surface;
  at: number;
}

export interface Effect {
  id: number;
  runId: string;
  attemptId: number | null;
  type: string;
  idempotencyKey: string;
  summary: string;
  status: EffectStatus;
  attemptCount: number;
  resolution: EffectResolution | null;
  resolutionNote: string | null;
  resolvedBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * How what a notification announced ended (docs/ARCHITECTURE.md#change-feed): its question answered,
 * withdrawn by its asker, expired (or settled by its default at the deadline), cancelled with its run, or
 * its effects of unknown outcome resolved by a person.
 */
export const NOTIFICATION_RESOLUTIONS = [
  'answered',
  'withdrawn',
  'expired',
  'cancelled',
  'resolved',
] as const;
export type NotificationResolution = (typeof NOTIFICATION_RESOLUTIONS)[number];

export interface Notification {
  id: number;
  runId: string | null;
  level: NotificationLevel;
  title: string;
  body: string;
  at: number;
  readAt: number | null;
  /** The question it announces (a "Needs an answer" notification), if any. */
  interactionId: string | null;
  /** When what it announced stopped needing anybody (then it is read too); null while it still does. */
  resolvedAt: number | null;
  resolution: NotificationResolution | null;
}

/** Who did something and from where: recorded on every event a person or policy causes. */
export interface Actor {
  type: ActorType;
  id: string;
  surface: Surface;
}

/** Everything the display-status reducer and the run detail need about one run. */
export interface RunSnapshot {
  run: Run;
  queue: QueueEntry;
  lease: Lease | null;
  interactions: Interaction[];
  effects: Effect[];
}
