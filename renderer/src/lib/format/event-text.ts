/** Run events → timeline lines: what happened, who did it and from where, with repetitive noise summarized. */
import { cascadeText } from '$shared/cascade-text';
import type { EventType, RunEvent } from '$shared/domain';
import type { CancelCascade } from '$shared/views';

export type EventKind = 'operator' | 'lease' | 'interaction' | 'effect' | 'lifecycle' | 'problem';

export interface TimelineEntry {
  key: string;
  kind: EventKind;
  title: string;
  /** Actor and surface in words ("human alice via app"). */
  actor: string;
  /** Extra lines from the payload (reason, cascade, detail), plain text. */
  details: string[];
  at: number;
  /** More than one event folded into this entry (repeated heartbeats / renewals). */
  count: number;
  until: number;
  /** Another run this event points at (the retry it created, the run it retries). */
  link: { runId: string; label: string } | null;
}

/**
 * Words for every event type the store appends. Exhaustive over shared EVENT_TYPES: a new type fails the
 * type-check here until it has a title.
 */
const TITLES: Record<EventType, string> = {
  'run.reserved': 'Run created',
  'run.claimed': 'Lease claimed',
  'run.running': 'Started running',
  'run.progress': 'Progress',
  'run.parked': 'Parked',
  'run.released': 'Lease released',
  'run.completed': 'Completed',
  'run.failed': 'Failed',
  'run.timed_out': 'Timed out',
  'run.cancelled': 'Cancelled',
  'run.cancel_requested': 'Cancel requested',
  'run.pause_requested': 'Pause requested',
  'run.paused': 'Paused',
  'run.resumed': 'Resumed',
  'run.retried': 'Retried as a new run',
  'run.runner_lost': 'Runner lost: lease expired',
  'run.lease_renewed_late': 'Heartbeat came back late; nobody had taken over',
  'run.command_started': 'Command started',
  'run.orphaned': 'Runner gone, command still running',
  'run.command_gone': 'Orphaned command ended',
  'run.command_stop_requested': 'Stop the command requested',
  'run.command_stopped': 'Command stopped',
  'run.command_stop_failed': 'Command could not be stopped',
  'attempt.started': 'Step started',
  'attempt.finished': 'Step finished',
  'interaction.requested': 'Question asked',
  'interaction.answered': 'Question answered',
  'interaction.expired': 'Question expired',
  'interaction.withdrawn': 'Question withdrawn: nobody waits for it',
  'effect.reserved': 'Side effect recorded',
  'effect.applying': 'Side effect started',
  'effect.applied': 'Side effect happened',
  'effect.rejected': 'Side effect refused',
  'effect.ambiguous': 'Side effect outcome unknown',
  'effect.resolved': 'Side effect resolved by a person',
  'effect.carried': 'Side effect already applied earlier in the lineage',
  'host.claimed': 'Host lease claimed',
  notification: 'Notification',
  'settings.changed': 'Settings changed',
  'store.pruned': 'Old runs pruned',
  'store.counts_repaired': 'Run counts set right',
  'store.migrated': 'Store upgraded',
};

/** Progress lines come in bursts: consecutive ones fold into one entry. */
const REPEATING = new Set<string>(['run.progress']);

/** How a step ended, from attempt.finished's payload (null when the payload does not say). */
function stepOutcome(event: RunEvent): string | null {
  if (event.type !== 'attempt.finished') return null;
  const status = record(event.payload).status;
  return typeof status === 'string' ? status : null;
}

const STEP_TITLES: Record<string, string> = {
  completed: 'Step finished',
  failed: 'Step failed',
  timed_out: 'Step timed out',
  cancelled: 'Step cancelled',
  interrupted: 'Step interrupted',
};

function kindOf(event: RunEvent): EventKind {
  if (event.actorType === 'human' || event.actorType === 'policy') return 'operator';
  const outcome = stepOutcome(event);
  if (
    event.type === 'run.runner_lost' ||
    event.type === 'run.failed' ||
    event.type === 'run.timed_out' ||
    event.type === 'effect.ambiguous' ||
    outcome === 'failed' ||
    outcome === 'timed_out'
  )
    return 'problem';
  if (event.type.startsWith('interaction.')) return 'interaction';
  if (event.type.startsWith('effect.')) return 'effect';
  if (
    event.type === 'run.claimed' ||
    event.type === 'run.released' ||
    event.type === 'host.claimed' ||
    REPEATING.has(event.type)
  )
    return 'lease';
  return 'lifecycle';
}

/** "human alice via app", "runner w-1", "policy via sweeper". */
export function actorText(event: Pick<RunEvent, 'actorType' | 'actorId' | 'surface'>): string {
  const who = event.actorId ? `${event.actorType} ${event.actorId}` : event.actorType;
  return event.surface ? `${who} via ${event.surface}` : who;
}

/** "2 attempts cancelled, 2 effects became ambiguous" (only the non-zero parts). */
function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function isCascade(value: unknown): value is CancelCascade {
  const r = record(value);
  return typeof r.attemptsCancelled === 'number' && typeof r.effectsAmbiguous === 'number';
}

function payloadDetails(event: RunEvent, seenErrors: Set<string>): string[] {
  const payload = record(event.payload);
  const lines: string[] = [];
  if (event.type === 'run.cancelled') {
    if (payload.stale === true) lines.push('Stale run: no live runner held it.');
    else if (payload.requested === true) lines.push('The runner stopped on request.');
  }
  for (const key of ['reason', 'note', 'detail', 'code', 'step', 'title', 'summary']) {
    const value = payload[key];
    if (typeof value === 'string' && value !== '') lines.push(`${key}: ${value}`);
  }
  // A resolution is what the person said, in their words, not the stored code.
  if (payload.resolution === 'applied') lines.push('said: it happened');
  else if (payload.resolution === 'not_applied') lines.push('said: it did not happen');
  // A failure's error is usually recorded twice (the step, then the run): show its text once.
  const error = payload.error;
  if (typeof error === 'string' && error !== '') {
    lines.push(seenErrors.has(error) ? 'error: the same as above' : `error: ${error}`);
    seenErrors.add(error);
  }
  if (isCascade(payload.cascade)) lines.push(`Cascade: ${cascadeText(payload.cascade)}`);
  if (event.leaseGeneration !== null && kindOf(event) === 'lease')
    lines.push(`lease generation ${event.leaseGeneration}`);
  return lines;
}

/**
 * Title for an event type. A type from a newer build than this one still reads as words ("Deploy rolled
 * back" for `deploy.rolled_back`) rather than as a code.
 */
export function eventTitle(type: string): string {
  if (Object.hasOwn(TITLES, type)) return TITLES[type as EventType];
  const words = type.replace(/[._]+/g, ' ').trim();
  return words === '' ? 'Event' : words.charAt(0).toUpperCase() + words.slice(1);
}

/** The title of one event: a finished step says how it finished. */
function entryTitle(event: RunEvent): string {
  if (event.type === 'effect.resolved') {
    const said = record(event.payload).resolution;
    if (said === 'applied') return 'A person said the side effect happened';
    if (said === 'not_applied') return 'A person said the side effect did not happen';
  }
  const outcome = stepOutcome(event);
  return (outcome !== null ? STEP_TITLES[outcome] : undefined) ?? eventTitle(event.type);
}

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The other run an event links to: a retry's new run, or the run a new run retries. */
function eventLink(event: RunEvent): TimelineEntry['link'] {
  const payload = record(event.payload);
  if (event.type === 'run.retried' && typeof payload.newRunId === 'string' && RUN_ID.test(payload.newRunId))
    return { runId: payload.newRunId, label: `Open the retry ${payload.newRunId}` };
  if (event.type === 'run.reserved' && typeof payload.retryOf === 'string' && RUN_ID.test(payload.retryOf))
    return { runId: payload.retryOf, label: `Open the run it retries, ${payload.retryOf}` };
  return null;
}

/** Events (any order) → timeline entries, oldest first, with consecutive heartbeats folded into one. */
export function timelineEntries(events: readonly RunEvent[]): TimelineEntry[] {
  const sorted = events.toSorted((a, b) => a.seq - b.seq);
  const entries: TimelineEntry[] = [];
  const seenErrors = new Set<string>();
  for (const event of sorted) {
    const last = entries.at(-1);
    if (last !== undefined && REPEATING.has(event.type) && last.title === eventTitle(event.type)) {
      last.count += 1;
      last.until = event.at;
      continue;
    }
    entries.push({
      key: String(event.seq),
      kind: kindOf(event),
      title: entryTitle(event),
      actor: actorText(event),
      details: payloadDetails(event, seenErrors),
      at: event.at,
      count: 1,
      until: event.at,
      link: eventLink(event),
    });
  }
  return entries;
}

export { cascadeText };
