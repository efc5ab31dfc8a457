/**
 * The lease and heartbeat track of a run's timeline, as a lane: one segment per lease held (from its claim
 * to its release, loss or the run's end), heartbeats as ticks on it. Pure: events in, positions in percent out.
 */
import type { RunEvent } from '../../../../shared/domain';
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
  /** Heartbeat positions in percent (at most one per pixel-ish step: 200 across the lane). */
  beats: number[];
  heartbeats: number;
  /** One sentence for assistive technology. */
  summary: string;
}

const BEAT = new Set(['run.heartbeat', 'lease.renewed']);
const LOST = new Set(['run.runner_lost']);
const RELEASED = new Set(['run.released']);
const FINISHED = new Set(['run.completed', 'run.failed', 'run.timed_out', 'run.cancelled']);
const MAX_BEATS = 200;

/**
 * The lane for a run's events (any order), or null when no lease was ever claimed in them. `heldNow` is
 * whether the run's lease has an owner now: a claim with no release in the events is drawn up to now only then.
 */
export function leaseLane(events: readonly RunEvent[], now: number, heldNow: boolean): LeaseLane | null {
  const sorted = events.toSorted((a, b) => a.seq - b.seq);
  const first = sorted[0];
  if (first === undefined) return null;
  const raw: Array<Omit<LaneSegment, 'left' | 'width'>> = [];
  const beatsAt: number[] = [];
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
    } else if (BEAT.has(event.type)) {
      beatsAt.push(event.at);
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
  const step = Math.max(1, Math.ceil(beatsAt.length / MAX_BEATS));
  const beats = beatsAt.filter((_, i) => i % step === 0).map(pct);
  const lost = segments.filter((s) => s.ending === 'lost').length;
  const summary =
    `${segments.length} ${segments.length === 1 ? 'lease' : 'leases'} held, ` +
    `${beatsAt.length} ${beatsAt.length === 1 ? 'heartbeat' : 'heartbeats'}` +
    (lost > 0 ? `, ${lost} lost without a release` : '') +
    (segments.at(-1)?.ending === 'held' ? ', one held now' : '') +
    '.';
  return { start, end, segments, beats, heartbeats: beatsAt.length, summary };
}
