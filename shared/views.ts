/**
 * Read models: the shapes the store returns and the contract carries to the renderer, the CLI's --json
 * output and browser mode. Plain data only.
 */
import type { DisplayInfo, DisplayStatus, TrayState } from './display-status';
import type {
  Attempt,
  Effect,
  Interaction,
  Lease,
  Notification,
  Project,
  QueueEntry,
  Run,
  RunEvent,
  RunSnapshot,
  RunStatus,
  Submission,
} from './domain';
import type { TriageCounts, TriageGroup } from './triage';

export type StatusCounts = Partial<Record<DisplayStatus, number>>;

export interface ProjectSummary extends Project {
  counts: StatusCounts;
  needsYou: number;
  total: number;
}

/** Runs per page the window's list asks for, and notifications its panel keeps (the host reads both first). */
export const LIST_PAGE_SIZE = 200;
/**
 * The first page of a view: two screens of rows. The window shows ~30; a full page (200 rows, a few hundred KB
 * of JSON) took serve longer to send than to read, and the page longer to parse.
 */
export const LIST_FIRST_PAGE_SIZE = 60;
export const NOTIFICATION_HISTORY = 200;

/** Views of the window; each maps to a display-status filter. */
export const RUN_VIEWS = ['needs-you', 'running', 'queued', 'parked', 'stale', 'failed', 'all'] as const;
export type RunView = (typeof RUN_VIEWS)[number];
/** What a run list may be filtered by: a window view, or any single display status (the CLI's `--status`). */
export type ListView = RunView | DisplayStatus;

/**
 * The display statuses each window view lists; `needs-you` and `all` are not status sets. One table, so the
 * store's view filters, the tab counts and the CLI agree.
 */
export const VIEW_STATUSES: Readonly<
  Record<Exclude<RunView, 'needs-you' | 'all'>, readonly DisplayStatus[]>
> = {
  running: ['running', 'waiting'],
  queued: ['queued'],
  parked: ['parked', 'paused', 'ambiguous'],
  // An orphan's runner is gone too; it is listed with the stale runs, shown (and acted on) as an orphan.
  stale: ['stale', 'orphaned'],
  failed: ['failed', 'timed_out'],
};

/** Whether a run with this display status is listed in a window view (needs-you is decided elsewhere). */
export function viewIncludes(view: Exclude<RunView, 'needs-you'>, status: DisplayStatus): boolean {
  return view === 'all' || VIEW_STATUSES[view].includes(status);
}

/** What every list row carries beside its run: its display status and what orders it in Needs you. */
interface ListItemFields {
  display: DisplayInfo;
  openInteractions: number;
  ambiguousEffects: number;
  /** The soonest deadline among the run's open questions (null: none has one), for ordering what needs you. */
  nextDeadlineAt: number | null;
  /** When its oldest open question was asked (null or absent: none open): a question's age is from then. */
  askedAt?: number | null;
  /** Needs you only: the triage group the store placed the run in (shared/triage.ts). */
  triageGroup?: TriageGroup;
  /** Another machine's run (docs/REMOTES.md#in-the-window), its ids named `NAME:ID`; absent or null: this one's. */
  machine?: string | null;
  /** Set when that machine cannot be reached: the row is as last read then, and offers no action. */
  lastKnownAt?: number | null;
}

/**
 * What a list row carries of its run on the wire: what the rows, the triage order, the selection and the
 * quick actions read. Not its input, output, command, error or lineage: the open run's detail reads the
 * whole run by id (`runs:detail`).
 */
export type ListedRun = Pick<Run, (typeof LISTED_RUN_FIELDS)[number]>;

/** The fields of ListedRun, in the order a row is sent. */
export const LISTED_RUN_FIELDS = [
  'id',
  'projectPath',
  'workflow',
  'title',
  'status',
  'statusDetail',
  'originSession',
  'currentStep',
  'revision',
  'createdAt',
  'updatedAt',
] as const satisfies ReadonlyArray<keyof Run>;

/**
 * A run as the window's list, the tray's menu of a remote and a remote's pages carry it (`runs:list`,
 * `attention:summary`): about a third of the bytes of FullRunListItem (docs/PERFORMANCE.md#the-window).
 */
export interface RunListItem extends ListItemFields {
  run: ListedRun;
  /** Its runner's last heartbeat (null: none, or no runner holds it). */
  heartbeatAt: number | null;
}

/** A run as the store lists it: the whole run, queue entry and lease (`runwarden ls --json`, the tray). */
export interface FullRunListItem extends ListItemFields {
  run: Run;
  queue: QueueEntry;
  lease: Lease | null;
}

/**
 * The list row a full one is sent as (RunListItem): what the store read, less what no list reads. A row that
 * is one already (a remote's) keeps only its own fields.
 */
export function listedItem(item: FullRunListItem | RunListItem): RunListItem {
  const run = Object.fromEntries(LISTED_RUN_FIELDS.map((field) => [field, item.run[field]])) as ListedRun;
  const out: RunListItem = {
    run,
    heartbeatAt: ('lease' in item ? item.lease?.heartbeatAt : item.heartbeatAt) ?? null,
    display: item.display,
    openInteractions: item.openInteractions,
    ambiguousEffects: item.ambiguousEffects,
    nextDeadlineAt: item.nextDeadlineAt,
  };
  if (item.askedAt !== undefined) out.askedAt = item.askedAt;
  if (item.triageGroup !== undefined) out.triageGroup = item.triageGroup;
  if (item.machine !== undefined) out.machine = item.machine;
  if (item.lastKnownAt !== undefined) out.lastKnownAt = item.lastKnownAt;
  return out;
}

/** A page of the list as the wire carries it (`runs:list`); the store's pages carry FullRunListItem. */
export interface RunPage<Item = RunListItem> {
  items: Item[];
  nextCursor: string | null;
  /** Needs you's first page only: how many runs each triage group holds over every page. */
  groups?: TriageCounts;
}

export interface RunDetail {
  snapshot: RunSnapshot;
  display: DisplayInfo;
  attempts: Attempt[];
  submissions: Submission[];
  events: RunEvent[];
  nextEventsCursor: number | null;
  projectPath: string;
  /** The runs retrying this one, oldest first, with their status: one not finished holds back another retry. */
  retries: Array<{ id: string; status: RunStatus }>;
  /** The run this one was started inside (a nested `exec`); null for a top-level run. */
  enclosingRunId: string | null;
  /** The runs started inside this one, oldest first, with their title and status. */
  children: Array<{ id: string; title: string; status: RunStatus }>;
}

export interface AttentionSummary<Item = RunListItem> {
  counts: StatusCounts;
  needsYou: number;
  items: Item[];
  /** Asked with a search: more runs matched than were counted, so the counts are a floor. */
  capped?: boolean;
}

export interface CancelCascade {
  attemptsCancelled: number;
  attemptsInterrupted: number;
  effectsCancelled: number;
  effectsAmbiguous: number;
  interactionsCancelled: number;
}

export interface CancelPreview {
  liveOwner: boolean;
  cascade: CancelCascade;
}

export interface CancelOutcome {
  run: Run;
  cascade: CancelCascade;
}

export interface StopCommandStarted {
  runId: string;
  /** The process group signalled, or null when the command had none of its own (then its pid). */
  commandPgid: number | null;
  commandPid: number;
  /** How long after SIGTERM a SIGKILL follows if anything of the command still lives. */
  graceMs: number;
}

export interface AnswerOutcome {
  outcome: 'accepted' | 'adopted';
  interaction: Interaction;
  /**
   * Accepted from a process the self-answer check could not place inside or outside the run, and why
   * (docs/LIVENESS.md#what-cannot-be-told). Left out when it could, and for a person's window.
   */
  callerUnchecked?: string;
}

/**
 * Whether `runwarden` on the PATH leads to this desktop app, and what Settings' "Install 'runwarden' command in
 * PATH" writes (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
 */
export interface CliPathStatus {
  /** This app can install the command itself (an installed app on macOS, Windows or Linux, not the AppImage). */
  available: boolean;
  /** What the action writes: a link (macOS, Linux) or a folder added to the user PATH (Windows); null when unavailable. */
  target: string | null;
  /** This app's entry is there (its link, or its folder in the user PATH). */
  installed: boolean;
  /** The first `runwarden` a new terminal finds, if any. */
  found: string | null;
  /** That `runwarden` runs this app's CLI. */
  leadsHere: boolean;
  /** One line for a person. */
  message: string;
}

/** What this build does with a newer release (docs/DESKTOP-CHECKLIST.md#updates). */
export type UpdateKind = 'install' | 'notify' | 'off';

export interface UpdatePlan {
  kind: UpdateKind;
  /** One sentence for Settings when the build does not install updates itself. */
  reason: string | null;
}

export type UpdatePhase =
  'off' | 'idle' | 'checking' | 'up-to-date' | 'available' | 'downloading' | 'ready' | 'failed';

/** Settings' Updates section: the running version, the last check, and a downloaded update's restart. */
export interface UpdateStatus {
  phase: UpdatePhase;
  currentVersion: string;
  /** What this build does with a newer release (`install`, `notify`, `off`) and why. */
  plan: UpdatePlan;
  latestVersion: string | null;
  /** The new release's notes, as plain text (HTML tags removed); the window renders them as markdown. */
  releaseNotes: string | null;
  /** Where to download it (the deb, an unsigned Mac, a copy not installed from a package). */
  downloadUrl: string | null;
  /** One sentence: the failure, or why a ready update waits. */
  message: string | null;
  checkedAt: number | null;
  /** "Restart to update" was pressed: the app restarts as soon as no question is open. */
  restartRequested: boolean;
}

export type StoreMode = 'read-write' | 'read-only';

export interface StoreInfo {
  path: string;
  mode: StoreMode;
  modeReason: string | null;
  schemaVersion: number;
  supportedVersion: number;
  sizeBytes: number;
  walBytes: number;
}

export interface DoctorReport {
  info: StoreInfo;
  contradictions: Array<{ runId: string; problem: string }>;
  /** Runs per project and display status as counted ahead, where that disagrees with the runs themselves. */
  counterDrift: CounterDrift[];
  staleLeases: number;
  integrity: string;
  logs: LogSpace;
}

/** One kept counter of runs per (project, display status) that disagrees with a count of the runs. */
export interface CounterDrift {
  projectPath: string;
  display: string;
  kept: number;
  counted: number;
}

/** The space run logs take in the store's own logs folder (docs/RUN-OUTPUT.md#limits). */
export interface LogSpace {
  dir: string;
  files: number;
  bytes: number;
  budgetBytes: number;
  capBytes: number;
  /** This store's logs still in the folder stores shared before each had its own (live runs', or not moved yet). */
  legacy: { dir: string; files: number; bytes: number };
  /** Files found in these folders that are not this store's logs: never counted, never deleted. */
  foreign: Array<{ dir: string; files: number }>;
}

/** The stream a log record came from; `gap` marks output skipped between the kept head and tail. */
export type LogStream = 'stdout' | 'stderr' | 'gap';

/** One record of a run's log (docs/RUN-OUTPUT.md#format). Text is untrusted and raw: neutralise it before showing it. */
export interface LogRecord {
  seq: number;
  at: number;
  stream: LogStream;
  text: string;
  /** The command wrote no newline after this text (a long line split, a prompt, the end of output). */
  partial?: boolean;
  /** For `gap`: how much output was skipped. */
  skippedBytes?: number;
  skippedLines?: number;
}

/** A window on one log of a run: its latest records, or those after a cursor (live follow). */
export interface RunLogPage {
  runId: string;
  /** The lease generation this log belongs to; null when the run has no log. */
  generation: number | null;
  /** Every log this run has (one per claim: a resumed run is re-run under a new generation). */
  generations: number[];
  /** The run this one was retried or continued from, whose log is the earlier output. */
  parentRunId: string | null;
  records: LogRecord[];
  /** The newest sequence number in this log: pass it back as `afterSeq` to get only what came since. */
  lastSeq: number;
  /** `afterSeq` was older than what is kept: the records are a fresh tail, not a continuation. */
  reset: boolean;
  bytes: number;
  truncated: boolean;
  /** Removed to keep logs within their total budget. */
  removed: boolean;
  /** The run still runs: more output may come. */
  live: boolean;
  /** This surface can open the log file in the desktop's own viewer. */
  canOpen: boolean;
}

export interface LogPush {
  runId: string;
}

export type BulkAction = 'cancel' | 'resume' | 'retry';

export interface BulkItemResult {
  runId: string;
  ok: boolean;
  /** What happened or would happen (dry run), in words. */
  message: string;
  code?: string;
  newRunId?: string;
  /** A retry's dry run: what it would run (docs/CLI.md#what-exec-records). */
  command?: RetryCommandPreview;
  /**
   * A retry's dry run: the effects it will not perform again — each key applied anywhere in the run's family
   * (its lineage and the runs nested in it), with the run that applied it (docs/LIVENESS.md#nested-runs).
   */
  skips?: Array<{ key: string; summary: string; runId: string }>;
}

/** The command a retry would run: argv, folder, and how its environment is put together. */
export interface RetryCommandPreview {
  argv: string[];
  cwd: string;
  /** False for a run recorded without an environment: the retry runs with the worker's. */
  environmentRecorded: boolean;
  /** Secret-looking names whose values were never stored: the retry takes them from the worker. */
  fromWorker: string[];
  /**
   * Filled in by the CLI: recorded variables whose value differs from the environment `retry` was typed
   * in (`here` null: not set there). The retry runs with the recorded values.
   */
  differences?: Array<{ name: string; recorded: string | null; here: string | null }>;
}

export interface BulkResult {
  action: BulkAction;
  dryRun: boolean;
  succeeded: number;
  failed: number;
  items: BulkItemResult[];
}

export const NOTIFY_EVENTS = ['needsAnswer', 'stale', 'failed', 'completed'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
export type NotifyRuleSet = Record<NotifyEvent, boolean>;

export interface Settings {
  sweepIntervalMs: number;
  staleGraceMs: number;
  unattendedQueueMin: number;
  /** Off when null (policies are off by default). */
  autoCancelStaleAfterMin: number | null;
  retentionDays: number | null;
  closeToTray: boolean;
  launchAtLogin: boolean;
  notificationsPaused: boolean;
  /** The desktop app checks its release feed at start and every few hours (docs/DESKTOP-CHECKLIST.md#updates). */
  autoUpdateCheck: boolean;
  /** Per-run log cap (head + latest tail kept), in MiB (docs/RUN-OUTPUT.md#limits). */
  logCapMb: number;
  /** Total space for every run's log, in MiB: the oldest finished runs' logs go first. */
  logBudgetMb: number;
  notificationRules: { defaults: NotifyRuleSet; projects: Record<string, Partial<NotifyRuleSet>> };
}

export const DEFAULT_SETTINGS: Settings = {
  sweepIntervalMs: 2_000,
  staleGraceMs: 0,
  unattendedQueueMin: 5,
  autoCancelStaleAfterMin: null,
  retentionDays: null,
  closeToTray: true,
  launchAtLogin: false,
  notificationsPaused: false,
  autoUpdateCheck: true,
  logCapMb: 8,
  logBudgetMb: 1024,
  notificationRules: {
    defaults: { needsAnswer: true, stale: true, failed: true, completed: false },
    projects: {},
  },
};

/** Push payloads. */
export interface ChangedPush {
  seq: number;
  /** The runs whose events arrived; empty: any run may have changed. */
  runIds: string[];
  at: number;
  /**
   * Nothing was written: the clock alone moved what the views show (a lease ran out, a queued run waited too
   * long), so lists and counts read at this moment differ from the last ones.
   */
  clock?: true;
}

export interface AttentionPush {
  counts: StatusCounts;
  needsYou: number;
  tray: TrayState;
}

export interface StoreStatusPush {
  mode: StoreMode;
  modeReason: string | null;
  busy: boolean;
  /** Set only by the browser-mode client, when its push stream has closed for good (serve stopped or restarted). */
  disconnected?: boolean;
  /** The last write failed because the disk is full or the store became read-only; cleared by the next write. */
  writeError?: { code: 'DISK_FULL' | 'READ_ONLY'; message: string } | null;
}

export interface OpenRunPush {
  runId: string;
}

export type Notifications = Notification[];
export type { Effect };

/**
 * Where a row's AGE counts from: a run waiting for an answer is as old as its question (the oldest open
 * one), any other run as old as the run.
 */
export function ageFrom(
  item: Pick<RunListItem, 'display' | 'askedAt'> & { run: Pick<Run, 'createdAt'> },
): number {
  if (item.display.status === 'needs-answer' && item.askedAt !== undefined && item.askedAt !== null)
    return item.askedAt;
  return item.run.createdAt;
}
