/**
 * The lease and heartbeat track of a run's timeline, as a lane: one segment per lease held (from its claim
 * to its release, loss or the run's end) and the last heartbeat as a tick on the one held now (heartbeats
 * renew the lease row; they are not events). Pure: events and the lease in, positions in percent out.
 */
import type { Lease, RunEvent } from '$shared/domain';
import { actorText } from './event-text';

export interface LaneSegment {
  generation: number | null;
  holder: string;
  from: number;
  to: number;
  /** How the hold ended: given back, lost (expired, runner gone), still held, or ended with the run. */
  ending: 'released' | 'lost' | 'held' | 'finished';
  /** Left edge and width, in percent of the lane. */
  left: number;
  width: number;
}

export interface LeaseLane {
  start: number;
  end: number;
  segments: LaneSegment[];
  /** Heartbeat positions in percent. */
  beats: number[];
  /** One sentence for assistive technology. */
  summary: string;
}

const LOST = new Set<string>(['run.runner_lost']);
const RELEASED = new Set<string>(['run.released']);
const FINISHED = new Set<string>(['run.completed', 'run.failed', 'run.timed_out', 'run.cancelled']);

type LeaseNow = Pick<Lease, 'ownerType' | 'heartbeatAt'> & Partial<Pick<Lease, 'expiresAt' | 'orphanedAt'>>;

/**
 * The lane for a run's events (any order), or null when no lease was ever claimed in them. `lease` is the
 * run's lease now: a claim with no release in the events is drawn up to now only while it has an owner.
 */
export function leaseLane(
  events: readonly RunEvent[],
  now: number,
  lease: LeaseNow | null,
): LeaseLane | null {
  const heldNow = lease !== null && lease.ownerType !== null;
  const sorted = events.toSorted((a, b) => a.seq - b.seq);
  const first = sorted[0];
  if (first === undefined) return null;
  const raw: Array<Omit<LaneSegment, 'left' | 'width'>> = [];
  let open: Omit<LaneSegment, 'left' | 'width'> | null = null;
  const close = (at: number, ending: LaneSegment['ending']) => {
    if (open === null) return;
    open.to = at;
    open.ending = ending;
    raw.push(open);
    open = null;
  };
  for (const event of sorted) {
    if (event.type === 'run.claimed') {
      close(event.at, 'lost');
      open = {
        generation: event.leaseGeneration,
        holder: actorText({ ...event, surface: null }),
        from: event.at,
        to: event.at,
        ending: 'held',
      };
    } else if (LOST.has(event.type)) close(event.at, 'lost');
    else if (RELEASED.has(event.type)) close(event.at, 'released');
    else if (FINISHED.has(event.type)) close(event.at, 'finished');
  }
  const last = sorted.at(-1)?.at ?? first.at;
  if (open !== null) {
    const held: Omit<LaneSegment, 'left' | 'width'> = open;
    if (heldNow) held.to = Math.max(now, last);
    else {
      held.to = Math.max(last, held.from);
      held.ending = 'released';
    }
    raw.push(held);
  }
  if (raw.length === 0) return null;
  const start = first.at;
  const end = Math.max(last, ...raw.map((s) => s.to), start + 1);
  const span = end - start;
  const pct = (at: number) => Math.min(100, Math.max(0, ((at - start) / span) * 100));
  const segments = raw.map((s) => ({
    ...s,
    left: pct(s.from),
    width: Math.max(0.8, pct(s.to) - pct(s.from)),
  }));
  const held = segments.at(-1)?.ending === 'held';
  const beat = held && lease !== null && lease.heartbeatAt !== null ? lease.heartbeatAt : null;
  const beats = beat !== null && beat >= start ? [pct(beat)] : [];
  const lost = segments.filter((s) => s.ending === 'lost').length;
  // A lease still recorded but past its expiry is not "held now": its runner stopped heartbeating (stale),
  // or is gone while its command runs on (orphaned). Say which, as the status line does.
  const expired = lease?.expiresAt !== undefined && lease.expiresAt !== null && lease.expiresAt <= now;
  const orphaned = (lease?.orphanedAt ?? null) !== null;
  const tick = beat !== null ? ' (the tick is its last heartbeat)' : '';
  const latest = !held
    ? ''
    : orphaned
      ? `, the last one's runner is gone but its command still runs${tick}`
      : expired
        ? `, the last one expired: its runner stopped heartbeating${tick}`
        : `, one held now${tick}`;
  const summary =
    `${segments.length} ${segments.length === 1 ? 'lease' : 'leases'} held` +
    (lost > 0 ? `, ${lost} lost without a release` : '') +
    latest +
    '.';
  return { start, end, segments, beats, summary };
}
