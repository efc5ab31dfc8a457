/** Row shapes as SQLite returns them, and their mapping to the domain types of shared/domain.ts. */
import type {
  ActorType,
  Attempt,
  AttemptStatus,
  CommandSpec,
  Effect,
  EffectResolution,
  EffectStatus,
  EventType,
  ExecutionMode,
  Interaction,
  InteractionField,
  InteractionKind,
  InteractionStatus,
  Lease,
  Lineage,
  Notification,
  NotificationLevel,
  NotificationResolution,
  OwnerType,
  Project,
  QueueEntry,
  QueueErrorCode,
  QueueStatus,
  ResolutionProvenance,
  Run,
  RunEvent,
  RunStatus,
  Submission,
  SubmissionOutcome,
  Surface,
} from '../../shared/domain';
import {
  ACTIVE_ATTEMPT_STATUSES,
  OPEN_INTERACTION_STATUSES,
  TERMINAL_QUEUE_STATUSES,
  TERMINAL_RUN_STATUSES,
} from '../../shared/domain';

export interface RunRow {
  id: string;
  project_id: number;
  project_path: string;
  workflow: string;
  title: string;
  status: RunStatus;
  paused: number;
  status_detail: string | null;
  execution_mode: ExecutionMode;
  origin_session: string | null;
  parent_run_id: string | null;
  lineage: Lineage | null;
  /** The run this one was started inside (schema v15); NULL for a top-level run. */
  enclosing_run_id?: string | null;
  input_json: string;
  output_json: string;
  error: string | null;
  command_json: string | null;
  /** Always NULL from schema v13 on: the key is `project_request_key`, unique per project. */
  request_key: string | null;
  project_request_key: string | null;
  cancel_requested: number;
  pause_requested: number;
  current_step: string | null;
  revision: number;
  open_interactions: number;
  ambiguous_effects: number;
  display_base: string;
  needs_you_static: number;
  owner_expires_at: number | null;
  unattended_since: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** A SQL list literal, `('a', 'b')`, for a fixed set of status constants (never for caller input). */
export function sqlList(values: readonly string[]): string {
  return `(${values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ')})`;
}

/** The status lists the SQL uses, written once from shared/domain.ts's constants. */
export const TERMINAL_RUN_SQL = sqlList(TERMINAL_RUN_STATUSES);
export const TERMINAL_QUEUE_SQL = sqlList(TERMINAL_QUEUE_STATUSES);
export const ACTIVE_ATTEMPT_SQL = sqlList(ACTIVE_ATTEMPT_STATUSES);
export const OPEN_INTERACTION_SQL = sqlList(OPEN_INTERACTION_STATUSES);

/** Columns of `runs` joined with its project path; every run read uses this list. */
export const RUN_COLUMNS = `r.*, p.canonical_path AS project_path`;
export const RUN_FROM = `runs r JOIN projects p ON p.id = r.project_id`;
/** RUN_FROM walking `runs_search_walk` (migration 0005): a substring walk over all runs (search-plan.ts). */
export const RUN_FROM_SEARCH_WALK = `runs r INDEXED BY runs_search_walk JOIN projects p ON p.id = r.project_id`;

export function parseJson(text: string | null): unknown {
  if (text === null) return null;
  return JSON.parse(text) as unknown;
}

/** JSON text for a value; `undefined` is stored as null. Refuses values JSON cannot represent. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value ?? null) as string | undefined;
  return text ?? 'null';
}

export function toRun(row: RunRow): Run {
  return {
    id: row.id,
    projectId: row.project_id,
    projectPath: row.project_path,
    workflow: row.workflow,
    title: row.title,
    status: row.status,
    paused: row.paused === 1,
    statusDetail: row.status_detail,
    executionMode: row.execution_mode,
    originSession: row.execution_mode === 'headless' ? null : row.origin_session,
    parentRunId: row.parent_run_id,
    lineage: row.lineage,
    input: parseJson(row.input_json),
    output: parseJson(row.output_json),
    error: row.error,
    command: parseJson(row.command_json) as CommandSpec | null,
    requestKey: row.project_request_key,
    cancelRequested: row.cancel_requested === 1,
    pauseRequested: row.pause_requested === 1,
    currentStep: row.current_step,
    revision: row.revision,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

export interface QueueRow {
  run_id: string;
  status: QueueStatus;
  available_at: number;
  error_code: QueueErrorCode | null;
  error_detail: string | null;
  consecutive_errors: number;
  updated_at: number;
}

export function toQueue(row: QueueRow): QueueEntry {
  return {
    runId: row.run_id,
    status: row.status,
    availableAt: row.available_at,
    errorCode: row.error_code,
    errorDetail: row.error_detail,
    consecutiveErrors: row.consecutive_errors,
    updatedAt: row.updated_at,
  };
}

export interface LeaseRow {
  name: string;
  run_id: string | null;
  generation: number;
  owner_type: OwnerType | null;
  owner_id: string | null;
  token_hash: string | null;
  owner_pid: number | null;
  owner_hostname: string | null;
  owner_start_id: string | null;
  acquired_at: number | null;
  heartbeat_at: number | null;
  expires_at: number | null;
  lost_generation: number | null;
  /** Added by migration 0006 (optional: rows built by hand may leave them out). */
  owner_boot_id?: string | null;
  owner_pid_ns?: string | null;
  command_pid?: number | null;
  command_pgid?: number | null;
  command_start_id?: string | null;
  vouched_at?: number | null;
  orphaned_at?: number | null;
  owner_gone_at?: number | null;
  notified_seq?: number | null;
}

/** What `toLease` reads: the owner's identity and clock, not its token or the sweeper's bookkeeping. */
export type LeaseViewRow = Omit<
  LeaseRow,
  'token_hash' | 'lost_generation' | 'owner_gone_at' | 'notified_seq'
>;

export function toLease(row: LeaseViewRow): Lease {
  return {
    runId: row.run_id,
    name: row.name,
    generation: row.generation,
    ownerType: row.owner_type,
    ownerId: row.owner_id,
    ownerPid: row.owner_pid,
    ownerHostname: row.owner_hostname,
    ownerStartId: row.owner_start_id,
    acquiredAt: row.acquired_at,
    heartbeatAt: row.heartbeat_at,
    expiresAt: row.expires_at,
    ownerBootId: row.owner_boot_id ?? null,
    ownerPidNs: row.owner_pid_ns ?? null,
    commandPid: row.command_pid ?? null,
    commandPgid: row.command_pgid ?? null,
    commandStartId: row.command_start_id ?? null,
    vouchedAt: row.vouched_at ?? null,
    orphanedAt: row.orphaned_at ?? null,
  };
}

export interface EventRow {
  seq: number;
  run_id: string | null;
  run_revision: number | null;
  type: string;
  actor_type: ActorType;
  actor_id: string | null;
  surface: Surface | null;
  lease_generation: number | null;
  payload_json: string;
  at: number;
}

export function toEvent(row: EventRow): RunEvent {
  return {
    seq: row.seq,
    runId: row.run_id,
    runRevision: row.run_revision,
    type: row.type as EventType,
    actorType: row.actor_type,
    actorId: row.actor_id,
    surface: row.surface,
    leaseGeneration: row.lease_generation,
    payload: parseJson(row.payload_json),
    at: row.at,
  };
}

export interface AttemptRow {
  id: number;
  run_id: string;
  step: string;
  number: number;
  status: AttemptStatus;
  deadline_at: number | null;
  started_at: number;
  finished_at: number | null;
  error: string | null;
}

export function toAttempt(row: AttemptRow): Attempt {
  return {
    id: row.id,
    runId: row.run_id,
    step: row.step,
    number: row.number,
    status: row.status,
    deadlineAt: row.deadline_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: row.error,
  };
}

export interface InteractionRow {
  id: string;
  run_id: string;
  attempt_id: number | null;
  kind: InteractionKind;
  title: string;
  prompt: string;
  choices_json: string | null;
  fields_json: string | null;
  default_json: string;
  has_default: number;
  deadline_at: number | null;
  status: InteractionStatus;
  revision: number;
  presenter_id: string | null;
  presenter_expires_at: number | null;
  response_json: string;
  provenance: ResolutionProvenance | null;
  created_at: number;
  asker_pid: number | null;
  asker_start_id: string | null;
  asker_hostname: string | null;
  asker_boot_id: string | null;
  asker_pid_ns: string | null;
  withdrawal: 'asker_interrupted' | 'asker_gone' | null;
  settled_at: number | null;
}

export function toInteraction(row: InteractionRow): Interaction {
  return {
    id: row.id,
    runId: row.run_id,
    attemptId: row.attempt_id,
    kind: row.kind,
    title: row.title,
    prompt: row.prompt,
    choices: parseJson(row.choices_json) as string[] | null,
    fields: parseJson(row.fields_json) as InteractionField[] | null,
    defaultResponse: parseJson(row.default_json),
    hasDefault: row.has_default === 1,
    deadlineAt: row.deadline_at,
    status: row.status,
    revision: row.revision,
    presenterId: row.presenter_id,
    presenterExpiresAt: row.presenter_expires_at,
    response: parseJson(row.response_json),
    // A withdrawn question's reason lives in its own column (migration 0010).
    provenance: row.withdrawal ?? row.provenance,
    createdAt: row.created_at,
    settledAt: row.settled_at,
  };
}

export interface SubmissionRow {
  id: number;
  interaction_id: string;
  idempotency_key: string;
  interaction_revision: number;
  payload_json: string;
  outcome: SubmissionOutcome;
  reason: string | null;
  actor_id: string | null;
  surface: Surface;
  at: number;
}

export function toSubmission(row: SubmissionRow): Submission {
  return {
    id: row.id,
    interactionId: row.interaction_id,
    idempotencyKey: row.idempotency_key,
    interactionRevision: row.interaction_revision,
    payload: parseJson(row.payload_json),
    outcome: row.outcome,
    reason: row.reason,
    actorId: row.actor_id,
    surface: row.surface,
    at: row.at,
  };
}

export interface EffectRow {
  id: number;
  run_id: string;
  attempt_id: number | null;
  type: string;
  idempotency_key: string;
  summary: string;
  status: EffectStatus;
  attempt_count: number;
  resolution: EffectResolution | null;
  resolution_note: string | null;
  resolved_by: string | null;
  created_at: number;
  updated_at: number;
}

export function toEffect(row: EffectRow): Effect {
  return {
    id: row.id,
    runId: row.run_id,
    attemptId: row.attempt_id,
    type: row.type,
    idempotencyKey: row.idempotency_key,
    summary: row.summary,
    status: row.status,
    attemptCount: row.attempt_count,
    resolution: row.resolution,
    resolutionNote: row.resolution_note,
    resolvedBy: row.resolved_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NotificationRow {
  id: number;
  run_id: string | null;
  level: NotificationLevel;
  title: string;
  body: string;
  at: number;
  read_at: number | null;
  interaction_id: string | null;
  resolved_at: number | null;
  resolution: NotificationResolution | null;
}

export function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    runId: row.run_id,
    level: row.level,
    title: row.title,
    body: row.body,
    at: row.at,
    readAt: row.read_at,
    interactionId: row.interaction_id,
    resolvedAt: row.resolved_at,
    resolution: row.resolution,
  };
}

export interface ProjectRow {
  id: number;
  canonical_path: string;
  name: string;
  created_at: number;
}

export function toProject(row: ProjectRow): Project {
  return { id: row.id, canonicalPath: row.canonical_path, name: row.name, createdAt: row.created_at };
}
