/**
 * The IPC contract (docs/ARCHITECTURE.md#parts): every channel's request schema (validated at runtime in main), its response
 * type, and the push events. Electron IPC, browser mode over HTTP and the tests all go through this table.
 */
import * as v from 'valibot';
import { CHANNEL_METHODS, type Channel, type PushEvent } from './channel-names';
import { DISPLAY_STATUSES } from './display-status';
import type { Effect, Notification, Run } from './domain';
import type { ErrorInfo, Result } from './errors';
import { REMOTE_CALL_CHANNELS, type RemoteMachineView, type RemotesPush } from './remotes';
import {
  NOTIFY_EVENTS,
  RUN_VIEWS,
  type AnswerOutcome,
  type AttentionPush,
  type AttentionSummary,
  type BulkResult,
  type CancelOutcome,
  type CancelPreview,
  type ChangedPush,
  type CliPathStatus,
  type DoctorReport,
  type LogPush,
  type OpenRunPush,
  type ProjectSummary,
  type RunDetail,
  type RunLogPage,
  type RunPage,
  type Settings,
  type StoreInfo,
  type StoreStatusPush,
  type StopCommandStarted,
  type UpdateStatus,
} from './views';

const MAX_TEXT = 2_000;
const MAX_REASON = 500;
/** The most log records one `runs:log` answer carries (docs/RUN-OUTPUT.md#reading). */
export const MAX_LOG_RECORDS = 5_000;

const runId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a run id'));
/** `this` (this machine only) or an attached machine's name (docs/REMOTES.md#in-the-window). */
const machineFilter = v.pipe(
  v.string(),
  v.regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be "this" or a machine name'),
);
const revision = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER));
const reason = v.pipe(v.string(), v.trim(), v.minLength(1, 'a reason is required'), v.maxLength(MAX_REASON));
const limit = (max: number) => v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max)));
const remoteName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be a remote machine name'));
const positiveId = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));

/** Any JSON value an answer may carry: bounded depth and size are checked by the store's field validation. */
const jsonValue: v.GenericSchema<unknown> = v.union([
  v.string(),
  v.number(),
  v.boolean(),
  v.null(),
  v.pipe(v.array(v.lazy(() => jsonValue)), v.maxLength(100)),
  v.pipe(
    v.record(
      v.pipe(v.string(), v.maxLength(100)),
      v.lazy(() => jsonValue),
    ),
    v.check((o) => Object.keys(o).length <= 100, 'too many keys'),
  ),
]);

const empty = v.strictObject({});
const notifyRules = v.strictObject(
  Object.fromEntries(NOTIFY_EVENTS.map((e) => [e, v.optional(v.boolean())])) as Record<
    (typeof NOTIFY_EVENTS)[number],
    v.OptionalSchema<v.BooleanSchema<undefined>, undefined>
  >,
);

export const schemas = {
  'projects:list': empty,
  'runs:list': v.strictObject({
    projectPath: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
    view: v.optional(v.picklist([...RUN_VIEWS, ...DISPLAY_STATUSES])),
    search: v.optional(v.pipe(v.string(), v.maxLength(200))),
    limit: limit(500),
    // A page over several machines carries each one's place (main/services/remote/machine-list.ts).
    cursor: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4000)))),
    machine: v.optional(machineFilter),
  }),
  'runs:detail': v.strictObject({
    runId,
    eventsLimit: limit(1000),
    eventsBefore: v.optional(positiveId),
  }),
  'runs:log': v.strictObject({
    runId,
    generation: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER)),
    ),
    tail: limit(MAX_LOG_RECORDS),
    afterSeq: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))),
    stream: v.optional(v.picklist(['stdout', 'stderr'])),
  }),
  'runs:openLog': v.strictObject({
    runId,
    generation: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER)),
    ),
  }),
  'runs:previewCancel': v.strictObject({ runId }),
  'runs:cancel': v.strictObject({ runId, expectedRevision: revision, reason }),
  'runs:requestCancel': v.strictObject({ runId, expectedRevision: revision, reason }),
  'runs:requestPause': v.strictObject({ runId, expectedRevision: revision, reason }),
  'runs:pause': v.strictObject({ runId, expectedRevision: revision, reason }),
  'runs:resume': v.strictObject({
    runId,
    expectedRevision: revision,
    anyway: v.optional(v.boolean()),
    reason: v.optional(v.pipe(v.string(), v.maxLength(MAX_REASON))),
  }),
  'runs:retry': v.strictObject({ runId, expectedRevision: revision, again: v.optional(v.boolean()) }),
  'runs:stopCommand': v.strictObject({ runId, expectedRevision: revision, reason }),
  'runs:bulk': v.strictObject({
    action: v.picklist(['cancel', 'resume', 'retry']),
    items: v.pipe(
      v.array(v.strictObject({ runId, expectedRevision: revision })),
      v.minLength(1),
      v.maxLength(1000),
    ),
    dryRun: v.boolean(),
    reason,
    again: v.optional(v.boolean()),
  }),
  'effects:resolve': v.strictObject({
    effectId: positiveId,
    /** The machine whose effect it is, for a remote run's (docs/REMOTES.md#in-the-window). */
    machine: v.optional(remoteName),
    expectedRevision: revision,
    resolution: v.picklist(['applied', 'not_applied']),
    note: v.pipe(v.string(), v.trim(), v.minLength(1, 'say how you know'), v.maxLength(MAX_TEXT)),
  }),
  'interactions:answer': v.strictObject({
    interactionId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an interaction id')),
    interactionRevision: revision,
    idempotencyKey: v.pipe(v.string(), v.minLength(8), v.maxLength(128)),
    payload: jsonValue,
  }),
  // With a search (and optionally a project), the counts are of the runs the search matches: the window's tab
  // counts follow the active search.
  'attention:summary': v.strictObject({
    // 0: the counts only, no runs (the window's search counts ask so).
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(200))),
    search: v.optional(v.pipe(v.string(), v.maxLength(200))),
    projectPath: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
    // The asker's own key (a window's): a newer search count with the same key replaces this one while it
    // waits, and this one is answered SUPERSEDED.
    supersede: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  }),
  'notifications:list': v.strictObject({
    unreadOnly: v.optional(v.boolean()),
    limit: limit(500),
    before: v.optional(positiveId),
  }),
  'notifications:markRead': v.union([
    v.strictObject({ ids: v.union([v.literal('all'), v.pipe(v.array(positiveId), v.maxLength(1000))]) }),
    // Every unread notification of one run: what a clicked desktop notification has been read as.
    v.strictObject({ runId }),
  ]),
  'settings:get': empty,
  'settings:set': v.strictObject({
    patch: v.strictObject({
      sweepIntervalMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(250), v.maxValue(60_000))),
      staleGraceMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3_600_000))),
      unattendedQueueMin: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_080))),
      autoCancelStaleAfterMin: v.optional(
        v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(525_600))),
      ),
      retentionDays: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3650)))),
      closeToTray: v.optional(v.boolean()),
      launchAtLogin: v.optional(v.boolean()),
      notificationsPaused: v.optional(v.boolean()),
      autoUpdateCheck: v.optional(v.boolean()),
      logCapMb: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1024))),
      logBudgetMb: v.optional(v.pipe(v.number(), v.integer(), v.minValue(16), v.maxValue(1_048_576))),
      notificationRules: v.optional(
        v.strictObject({
          defaults: v.optional(notifyRules),
          projects: v.optional(v.record(v.pipe(v.string(), v.minLength(1), v.maxLength(4096)), notifyRules)),
        }),
      ),
    }),
  }),
  'store:info': empty,
  'store:doctor': empty,
  'cli:status': empty,
  'cli:install': empty,
  'cli:uninstall': empty,
  'updates:status': empty,
  'updates:check': empty,
  'updates:restart': empty,
  'remotes:list': empty,
  'remotes:add': v.strictObject({
    name: remoteName,
    dest: v.pipe(v.string(), v.minLength(1), v.maxLength(512)),
    runwarden: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(1024))),
  }),
  'remotes:remove': v.strictObject({ name: remoteName }),
  'remotes:call': v.strictObject({
    machine: remoteName,
    channel: v.picklist(REMOTE_CALL_CHANNELS),
    input: v.record(v.pipe(v.string(), v.maxLength(100)), jsonValue),
  }),
} satisfies Record<Channel, v.GenericSchema>;

/** Response type of each channel. */
export interface Responses {
  'projects:list': ProjectSummary[];
  'runs:list': RunPage;
  'runs:detail': RunDetail;
  'runs:log': RunLogPage;
  'runs:openLog': { opened: true };
  'runs:previewCancel': CancelPreview;
  'runs:cancel': CancelOutcome;
  'runs:requestCancel': Run;
  'runs:requestPause': Run;
  'runs:pause': Run;
  'runs:resume': Run;
  'runs:retry': Run;
  /** The stop has begun (SIGTERM sent); its end arrives as an event on the run (docs/LIVENESS.md#orphans). */
  'runs:stopCommand': StopCommandStarted;
  'runs:bulk': BulkResult;
  'effects:resolve': Effect;
  'interactions:answer': AnswerOutcome;
  'attention:summary': AttentionSummary;
  'notifications:list': Notification[];
  'notifications:markRead': { count: number };
  'settings:get': Settings;
  'settings:set': Settings;
  'store:info': StoreInfo;
  'store:doctor': DoctorReport;
  'cli:status': CliPathStatus;
  'cli:install': CliPathStatus;
  'cli:uninstall': CliPathStatus;
  'updates:status': UpdateStatus;
  /** Starts a check (or joins the one running) and answers at once: `updates:status` follows it. */
  'updates:check': UpdateStatus;
  /** Restarts into a downloaded update now, or as soon as no question is open. */
  'updates:restart': UpdateStatus;
  'remotes:list': RemoteMachineView[];
  'remotes:add': RemoteMachineView[];
  'remotes:remove': RemoteMachineView[];
  /** The remote's own answer to the channel called (its Response type). */
  'remotes:call': unknown;
}

export interface Pushes {
  changed: ChangedPush;
  attention: AttentionPush;
  'open-run': OpenRunPush;
  'store-status': StoreStatusPush;
  log: LogPush;
  remotes: RemotesPush;
}

export type Request<C extends Channel> = v.InferInput<(typeof schemas)[C]>;
export type ParsedRequest<C extends Channel> = v.InferOutput<(typeof schemas)[C]>;
export type Response<C extends Channel> = Responses[C];

/** The typed API object the renderer gets (from the preload, or the browser-mode client). */
export type RunwardenApi = {
  [C in Channel as (typeof CHANNEL_METHODS)[C]]: (input: Request<C>) => Promise<Result<Response<C>>>;
} & {
  /** Subscribe to a push; returns the unsubscribe. */
  on<E extends PushEvent>(event: E, listener: (payload: Pushes[E]) => void): () => void;
};

/** Validates a request for a channel; on failure a VALIDATION error listing each problem. */
export function parseRequest<C extends Channel>(
  channel: C,
  input: unknown,
): { ok: true; value: ParsedRequest<C> } | { ok: false; error: ErrorInfo } {
  const reserved = findReservedKey(input, '', 0);
  if (reserved !== null) {
    const message = `Invalid request for ${channel}: ${reserved}`;
    return { ok: false, error: { code: 'VALIDATION', message, issues: [reserved] } };
  }
  const schema = schemas[channel] as v.GenericSchema<unknown, ParsedRequest<C>>;
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const issues = result.issues.map((issue) => {
    const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  return {
    ok: false,
    error: {
      code: 'VALIDATION',
      message: `Invalid request for ${channel}: ${issues[0] ?? 'bad input'}`,
      issues,
    },
  };
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 32;

/**
 * Refuses prototype-polluting keys anywhere in a request rather than silently dropping them (valibot's
 * record skips them), so a person's answer is never changed on its way in.
 */
function findReservedKey(value: unknown, path: string, depth: number): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (depth > MAX_DEPTH) return `${path || 'request'}: nested too deeply`;
  for (const key of Object.keys(value)) {
    const at = path ? `${path}.${key}` : key;
    if (RESERVED_KEYS.has(key)) return `${at}: reserved key`;
    const found = findReservedKey((value as Record<string, unknown>)[key], at, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && Object.hasOwn(CHANNEL_METHODS, name);
}
