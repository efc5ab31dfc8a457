/** The append-only event log read side: the change-feed cursor and per-run timelines. */
import type { RunEvent } from '../../shared/domain';
import { toEvent, type EventRow } from './row-mapping';
import type { ReadableDB } from './store-context';

export function lastEventSeq(ctx: ReadableDB): number {
  return (ctx.prep(`SELECT COALESCE(MAX(seq), 0) AS seq FROM events`).get() as { seq: number }).seq;
}

export function eventsAfter(ctx: ReadableDB, seq: number, limit: number): RunEvent[] {
  return (
    ctx.prep(`SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?`).all(seq, limit) as EventRow[]
  ).map(toEvent);
}

/** A run's events newest first, `before` a sequence number (keyset). */
export function runEvents(
  ctx: ReadableDB,
  runId: string,
  limit: number,
  before: number | undefined,
): RunEvent[] {
  return (
    ctx
      .prep(`SELECT * FROM events WHERE run_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`)
      .all(runId, before ?? Number.MAX_SAFE_INTEGER, limit) as EventRow[]
  ).map(toEvent);
}
