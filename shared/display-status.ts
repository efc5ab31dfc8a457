/**
 * The display-status reducer (docs/ARCHITECTURE.md#display-status-and-views): one pure mapping from what the store holds about a run to what a
 * person sees — a status, a reason line, whether it needs them, and the actions allowed right now.
 * The UI, the tray, the CLI and the store's SQL filters (tested for agreement) all follow it.
 */
import {
  isTerminalRunStatus,
  type Effect,
  type Interaction,
  type Lease,
  type ParkCode,
  type QueueEntry,
  type Run,
} from './domain';
import { AGENT_SESSION_ORIGIN, agentOfRun, goneSessionEnding } from './agent-names';

export const DISPLAY_STATUSES = [
  'needs-answer',
  'stale',
  'orphaned',
  'ambiguous',
  'parked',
  'paused',
  'running',
  'waiting',
  'queued',
  'failed',
  'timed_out',
  'cancelled',
  'completed',
] as const;
export type DisplayStatus = (typeof DISPLAY_STATUSES)[number];

export const RUN_ACTIONS = [
  'answer',
  'cancel',
  'requestCancel',
  'requestPause',
  'pause',
  'resume',
  'resumeAnyway',
  'resolveEffect',
  'retry',
  'stopCommand',
] as const;
export type RunAction = (typeof RUN_ACTIONS)[number];

export interface DisplayInfo {
  status: DisplayStatus;
  /** Why the run is parked, when it is. */
  parkReason: ParkCode | 'interactionExpired' | null;
  reason: string;
  needsYou: boolean;
  /** The lease is held and unexpired: the run must not be touched, only asked. */
  liveOwner: boolean;
  actions: RunAction[];
}

/** What a liveness check (main/store/liveness.ts) says of a process: only "alive" and "gone" are verified. */
export type Verdict = 'alive' | 'gone' | 'unknown';

/** A lease owner's supervisor and its command's process group (docs/LIVENESS.md). */
export interface OwnerLiveness {
  supervisor: Verdict;
  command: Verdict;
}

const UNKNOWN: OwnerLiveness = { supervisor: 'unknown', command: 'unknown' };

export interface DisplayOptions {
  /** A queued run with no runner for this long needs a person. */
  unattendedQueueMs: number;
}

export const DEFAULT_DISPLAY_OPTIONS: DisplayOptions = { unattendedQueueMs: 5 * 60_000 };

const OPEN_INTERACTION = new Set<Interaction['status']>(['pending', 'presenting']);

/**
 * What the reducer reads of a run: the run, its queue entry and lease, and only the status and title of its
 * questions and the status and summary of its effects. A RunSnapshot is one; a list page reads just these.
 */
export interface DisplaySnapshot {
  run: Run;
  queue: QueueEntry;
  lease: Lease | null;
  interactions: ReadonlyArray<Pick<Interaction, 'status' | 'title'>>;
  effects: ReadonlyArray<Pick<Effect, 'status' | 'summary'>>;
}

/**
 * The lease's owner is live: a verifiably alive supervisor whatever the clock; a verifiably gone one never;
 * otherwise (unknown) the lease clock decides. An orphan (supervisor gone, command alive) is not live.
 */
export function hasLiveOwner(lease: Lease | null, now: number, liveness: OwnerLiveness = UNKNOWN): boolean {
  if (lease === null || lease.ownerType === null) return false;
  if (liveness.supervisor === 'alive') return true;
  if (liveness.supervisor === 'gone' || isOrphaned(lease, liveness)) return false;
  return lease.expiresAt !== null && lease.expiresAt > now;
}

/**
 * The supervisor is gone but a process of the command lives (docs/LIVENESS.md#orphans): recorded by the
 * sweeper (`orphanedAt`) or seen by a check right now, and not since verified gone.
 */
export function isOrphaned(lease: Lease | null, liveness: OwnerLiveness = UNKNOWN): boolean {
  if (lease === null || lease.ownerType === null || liveness.command === 'gone') return false;
  if (liveness.supervisor === 'alive') return false;
  return (
    (lease.orphanedAt ?? null) !== null || (liveness.supervisor === 'gone' && liveness.command === 'alive')
  );
}

/** A non-terminal run whose lease has an owner that is not live and not an orphan (docs/ARCHITECTURE.md#leases-and-fencing). */
export function isLeaseStale(
  run: Run,
  lease: Lease | null,
  now: number,
  liveness: OwnerLiveness = UNKNOWN,
): boolean {
  return (
    !isTerminalRunStatus(run.status) &&
    lease !== null &&
    lease.ownerType !== null &&
    !isOrphaned(lease, liveness) &&
    !hasLiveOwner(lease, now, liveness)
  );
}

export { AGENT_SESSION_ORIGIN };

/** A run that shows a coding agent's session: its agent, not a runner, decides what it does next. */
export function isAgentSessionRun(run: Pick<Run, 'originSession'>): boolean {
  return run.originSession?.startsWith(AGENT_SESSION_ORIGIN) ?? false;
}

/**
 * What an agent session cannot do (docs/AGENTS.md#what-you-can-do-from-the-window): it has no command to run
 * again or requeue, and its agent reads no cancel or pause request. Answering, cancelling a stale or dead
 * session and resolving an effect stay.
 */
const NOT_FOR_AGENT_SESSIONS: ReadonlySet<RunAction> = new Set([
  'retry',
  'requestCancel',
  'requestPause',
  'pause',
  'resume',
  'resumeAnyway',
]);

/** Maps one run snapshot to what a person sees. */
export function displayStatus(
  snapshot: DisplaySnapshot,
  now: number,
  options: DisplayOptions = DEFAULT_DISPLAY_OPTIONS,
  liveness: OwnerLiveness = UNKNOWN,
): DisplayInfo {
  const info = requestedCancel(snapshot.run, runDisplay(snapshot, now, options, liveness));
  if (!isAgentSessionRun(snapshot.run)) return info;
  return { ...info, actions: info.actions.filter((action) => !NOT_FOR_AGENT_SESSIONS.has(action)) };
}

/**
 * A cancel already requested of a live runner: said, and not offered again (the runner reads it at its next
 * heartbeat). A person may still cancel outright once nobody holds the run.
 */
function requestedCancel(run: Run, info: DisplayInfo): DisplayInfo {
  if (!run.cancelRequested || isTerminalRunStatus(run.status) || !info.actions.includes('requestCancel'))
    return info;
  return {
    ...info,
    reason: `${info.reason} A cancel was requested; the runner stops at its next heartbeat.`,
    actions: info.actions.filter((action) => action !== 'requestCancel'),
  };
}

/** What one run shows, without a run kind's limits: the first of these cases that applies, in this order. */
function runDisplay(
  snapshot: DisplaySnapshot,
  now: number,
  options: DisplayOptions,
  liveness: OwnerLiveness,
): DisplayInfo {
  const liveOwner = !isTerminalRunStatus(snapshot.run.status) && hasLiveOwner(snapshot.lease, now, liveness);
  const c: DisplayCase = {
    snapshot,
    now,
    options,
    liveness,
    liveOwner,
    base: { parkReason: null, liveOwner },
    ambiguous: snapshot.effects.filter((e) => e.status === 'ambiguous'),
  };
  return finishedDisplay(c) ?? ownerDisplay(c) ?? attentionDisplay(c) ?? progressDisplay(c);
}

/** What every case of `runDisplay` reads. */
interface DisplayCase {
  snapshot: DisplaySnapshot;
  now: number;
  options: DisplayOptions;
  liveness: OwnerLiveness;
  liveOwner: boolean;
  base: { parkReason: null; liveOwner: boolean };
  ambiguous: DisplaySnapshot['effects'];
}

/** A finished run: its ending, unless an unknown outcome keeps it in front of a person. */
function finishedDisplay({ snapshot: { run }, base, ambiguous }: DisplayCase): DisplayInfo | null {
  if (!isTerminalRunStatus(run.status)) return null;
  const reason = terminalReason(run);
  // An unknown outcome stays in front of a person whatever the run's status: no retry until
  // each such effect is resolved, since a retry could apply it again.
  if (ambiguous.length > 0) {
    return {
      ...base,
      status: 'ambiguous',
      reason: `${sentence(reason)} ${ambiguousReason(ambiguous)} Resolve ${ambiguous.length === 1 ? 'it' : 'each'} before retrying.`,
      needsYou: true,
      actions: ['resolveEffect'],
    };
  }
  const status: DisplayStatus = run.status === 'completed' ? 'completed' : run.status;
  return { ...base, status, reason, needsYou: false, actions: ['retry'] };
}

/** A run whose owner is gone: its command still runs (orphaned), or nothing does (stale). */
function ownerDisplay({ snapshot: { run, lease }, now, liveness, base }: DisplayCase): DisplayInfo | null {
  if (isOrphaned(lease, liveness)) {
    const pgid = lease?.commandPgid ?? null;
    const pid = lease?.commandPid ?? null;
    // Started from a terminal, the command has no group of its own (docs/LIVENESS.md#terminal-mode).
    const which =
      pgid !== null
        ? ` (process group ${pgid})`
        : pid !== null
          ? ` (started from a terminal as pid ${pid})`
          : '';
    // Only a command this host can see can be stopped from here (orphans.ts refuses the rest): elsewhere the
    // run offers nothing that would be refused, and says where the stop has to happen.
    if (liveness.command !== 'alive') {
      const host = lease?.ownerHostname ?? 'the machine it ran on';
      return {
        ...base,
        status: 'orphaned',
        reason: `Runner ${lease?.ownerId ?? 'unknown'} is gone but its command${which} was still running on ${host}, where this machine cannot see or stop it: stop it there, then cancel the run.`,
        needsYou: true,
        actions: [],
      };
    }
    return {
      ...base,
      status: 'orphaned',
      reason: `Runner ${lease?.ownerId ?? 'unknown'} is gone but its command${which} still runs. Stop the command before cancelling or retrying.`,
      needsYou: true,
      actions: ['stopCommand'],
    };
  }
  // A coding agent's session whose process is gone ended then: shown as the sweeper records it at its next
  // tick (docs/AGENTS.md#died), never as a stale runner on the way.
  const agent = agentOfRun(run);
  if (agent !== null && liveness.supervisor === 'gone' && !isTerminalRunStatus(run.status)) {
    const ending = goneSessionEnding(agent, run);
    return ending.status === 'completed'
      ? { ...base, status: 'completed', reason: 'Completed.', needsYou: false, actions: [] }
      : { ...base, status: 'failed', reason: `Failed: ${ending.error}`, needsYou: false, actions: [] };
  }
  if (!isLeaseStale(run, lease, now, liveness)) return null;
  return {
    ...base,
    status: 'stale',
    reason:
      liveness.supervisor === 'gone'
        ? `Runner ${lease?.ownerId ?? 'unknown'} is gone (its process no longer exists).`
        : `Runner ${lease?.ownerId ?? 'unknown'} stopped heartbeating; its lease expired.`,
    needsYou: true,
    actions: ['cancel'],
  };
}

/** A run that waits on a person: a question, an unknown outcome, a pause or a park. */
function attentionDisplay({ snapshot, liveOwner, base, ambiguous }: DisplayCase): DisplayInfo | null {
  const { run, queue } = snapshot;
  const open = snapshot.interactions.filter((i) => OPEN_INTERACTION.has(i.status));
  const first = open[0];
  if (first !== undefined && !run.paused) {
    return {
      ...base,
      status: 'needs-answer',
      reason:
        open.length === 1 ? `Waiting for an answer: ${first.title}` : `${open.length} questions waiting`,
      needsYou: true,
      actions: liveOwner ? ['answer', 'requestCancel'] : ['answer', 'cancel'],
    };
  }
  if (ambiguous.length > 0) {
    return {
      ...base,
      status: 'ambiguous',
      parkReason: queue.status === 'parked' ? parkCodeOf(queue) : null,
      reason: ambiguousReason(ambiguous),
      needsYou: true,
      actions: liveOwner ? ['resolveEffect', 'requestCancel'] : ['resolveEffect', 'cancel'],
    };
  }
  if (run.paused || (queue.status === 'parked' && queue.errorCode === 'paused')) {
    return {
      ...base,
      status: 'paused',
      parkReason: 'paused',
      reason: 'Paused by a person.',
      needsYou: false,
      actions: liveOwner ? ['requestCancel'] : ['resume', 'cancel'],
    };
  }
  if (queue.status !== 'parked') return null;
  const parkReason = parkCodeOf(queue);
  const detail = queue.errorDetail ? ` ${sentence(queue.errorDetail)}` : '';
  // Parked for an unknown outcome that a person has since resolved: say so, and what is left to decide.
  const settled =
    parkReason === 'effectAmbiguous' && !liveOwner
      ? ' Every side effect is resolved now: resume it to go on, or cancel it.'
      : '';
  const actions: RunAction[] = liveOwner
    ? ['requestCancel']
    : parkReason === 'sourceChanged'
      ? ['resumeAnyway', 'pause', 'cancel']
      : ['resume', 'pause', 'cancel'];
  return {
    ...base,
    status: 'parked',
    parkReason,
    reason: `${parkedLabel(parkReason)}.${detail}${settled}`,
    needsYou: parkReason !== null && !liveOwner,
    actions,
  };
}

/** A run on its way: waiting on a runner's own business, running, or queued. */
function progressDisplay({
  snapshot: { run, queue, lease },
  now,
  options,
  liveOwner,
  base,
}: DisplayCase): DisplayInfo {
  // A runner still holds a run that waits (for an answer it has not read yet, or for a resource): not running.
  if (run.status === 'waiting') {
    return {
      ...base,
      status: 'waiting',
      reason: run.statusDetail ?? 'Waiting.',
      needsYou: false,
      actions: [liveOwner ? 'requestCancel' : 'cancel'],
    };
  }
  const started = run.status === 'running' || queue.status === 'starting' || queue.status === 'running';
  if (started && liveOwner) {
    return {
      ...base,
      status: 'running',
      reason: `${run.currentStep ? `Running step ${run.currentStep}.` : 'Running.'}${lateNote(lease, now)}`,
      needsYou: false,
      actions: ['requestCancel', 'requestPause'],
    };
  }
  if (run.status === 'running') {
    // Running without any owner: the runner released without finishing. A person decides.
    return {
      ...base,
      status: 'stale',
      reason: 'Marked running but no runner holds it.',
      needsYou: true,
      actions: ['cancel'],
    };
  }
  const unattended = !liveOwner && now - queue.availableAt >= options.unattendedQueueMs;
  return {
    ...base,
    status: 'queued',
    reason: unattended ? 'Queued, and no runner has picked it up.' : 'Queued.',
    needsYou: unattended,
    actions: liveOwner ? ['requestCancel'] : ['cancel', 'pause'],
  };
}

function ambiguousReason(ambiguous: DisplaySnapshot['effects']): string {
  return ambiguous.length === 1
    ? `Unknown whether "${ambiguous[0]?.summary ?? ''}" happened.`
    : `${ambiguous.length} side effects with an unknown outcome.`;
}

/** A live owner past its lease (suspend, clock step): said, so a late heartbeat is not mistaken for a hang. */
function lateNote(lease: Lease | null, now: number): string {
  if (lease === null) return '';
  const lapsed = lease.expiresAt !== null && lease.expiresAt <= now;
  return lapsed || (lease.vouchedAt ?? null) !== null ? ' Heartbeat late; the runner process is alive.' : '';
}

function parkCodeOf(queue: QueueEntry): DisplayInfo['parkReason'] {
  switch (queue.errorCode) {
    case 'sourceChanged':
    case 'effectAmbiguous':
    case 'paused':
    case 'runnerExited':
    case 'interactionExpired':
      return queue.errorCode;
    default:
      return null;
  }
}

export function parkedLabel(reason: DisplayInfo['parkReason']): string {
  switch (reason) {
    case 'sourceChanged':
      return 'Parked: the workflow source changed since the run started';
    case 'effectAmbiguous':
      return 'Parked: a side effect had an unknown outcome';
    case 'paused':
      return 'Paused';
    case 'runnerExited':
      return 'Parked: the runner exited before finishing';
    case 'interactionExpired':
      return 'Parked: a question expired without an answer';
    case null:
      return 'Parked';
  }
}

function terminalReason(run: Run): string {
  switch (run.status) {
    case 'completed':
      return 'Completed.';
    case 'failed':
      return run.error ? `Failed: ${firstLine(run.error)}` : 'Failed.';
    case 'timed_out':
      return 'Timed out.';
    case 'cancelled':
      return run.statusDetail ? `Cancelled: ${run.statusDetail}` : 'Cancelled.';
    default:
      return run.status;
  }
}

/** Text that ends as a sentence, so a reason joined after it does not run on ("…mid-payment Unknown…"). */
function sentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?…:)"”]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Worst-first order used by the tray icon. */
export type TrayState = 'needs-answer' | 'stale' | 'failed' | 'running' | 'idle';
export const TRAY_STATE_ORDER: readonly TrayState[] = ['needs-answer', 'stale', 'failed', 'running', 'idle'];

export function worstTrayState(counts: Partial<Record<DisplayStatus, number>>): TrayState {
  if ((counts['needs-answer'] ?? 0) > 0) return 'needs-answer';
  if ((counts.stale ?? 0) > 0 || (counts.orphaned ?? 0) > 0) return 'stale';
  if ((counts.failed ?? 0) > 0) return 'failed';
  if ((counts.running ?? 0) > 0) return 'running';
  return 'idle';
}
