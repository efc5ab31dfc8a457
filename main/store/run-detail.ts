/** One run in full, for its detail page: snapshot, attempts, submissions and a page of its events. */
import { displayStatus } from '../../shared/display-status';
import { listAttempts } from './attempt-rows';
import { runEvents } from './events';
import { toSubmission, type SubmissionRow } from './row-mapping';
import { enclosingRunOf, listChildren, listRetries } from './run-lineage';
import { loadRunRow, loadSnapshot, ownerLiveness } from './run-state';
import type { RunDetail } from './store-types';
import type { ReadableDB } from './store-context';

export function getRunDetail(
  ctx: ReadableDB,
  runId: string,
  opts: { eventsLimit: number; eventsBefore?: number },
  now: number,
): RunDetail {
  const snapshot = loadSnapshot(ctx, runId);
  const events = runEvents(ctx, runId, opts.eventsLimit + 1, opts.eventsBefore);
  const page = events.slice(0, opts.eventsLimit);
  const last = page[page.length - 1];
  const submissions = (
    ctx
      .prep(
        `SELECT s.* FROM submissions s JOIN interactions i ON i.id = s.interaction_id WHERE i.run_id = ? ORDER BY s.id`,
      )
      .all(runId) as SubmissionRow[]
  ).map(toSubmission);
  return {
    snapshot,
    display: displayStatus(snapshot, now, ctx.displayOptions, ownerLiveness(ctx, snapshot)),
    attempts: listAttempts(ctx, runId),
    submissions,
    events: page,
    nextEventsCursor: events.length > opts.eventsLimit && last !== undefined ? last.seq : null,
    projectPath: snapshot.run.projectPath,
    retries: listRetries(ctx, runId).map(({ id, status }) => ({ id, status })),
    enclosingRunId: enclosingRunOf(ctx, runId),
    children: listChildren(ctx, runId),
  };
}

export function projectPathOfRun(ctx: ReadableDB, runId: string): string {
  return loadRunRow(ctx, runId).project_path;
}
