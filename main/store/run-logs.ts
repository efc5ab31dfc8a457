/** Where runs' output logs are (docs/RUN-OUTPUT.md): one row per claim of a run, written by its runner. */
import { isTerminalRunStatus } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import type { ReadableDB, WritableDB } from './store-context';
import type { RunLogInfo, RunLogInput } from './store-types';

interface RunLogRow {
  run_id: string;
  generation: number;
  path: string;
  bytes: number;
  truncated: number;
  started_at: number;
  updated_at: number;
  removed_at: number | null;
}

function toInfo(row: RunLogRow): RunLogInfo {
  return {
    runId: row.run_id,
    generation: row.generation,
    path: row.path,
    bytes: row.bytes,
    truncated: row.truncated === 1,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    removedAt: row.removed_at,
  };
}

/**
 * Records (or updates) a claim's log. Metadata only, not a run transition: no event, no revision, and no
 * fencing, since a runner that lost its lease still wrote what its command printed.
 */
export function recordRunLog(ctx: WritableDB, input: RunLogInput, now: number): RunLogInfo {
  if (!Number.isSafeInteger(input.bytes) || input.bytes < 0) {
    throw new RunwardenError('VALIDATION', 'A log size must be a whole number of bytes.');
  }
  const exists = ctx.prep(`SELECT 1 FROM runs WHERE id = ?`).get(input.runId);
  if (exists === undefined) throw new RunwardenError('NOT_FOUND', `No run ${input.runId}.`);
  const row = ctx
    .prep(
      `INSERT INTO run_logs (run_id, generation, path, bytes, truncated, started_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(run_id, generation) DO UPDATE SET path = excluded.path, bytes = excluded.bytes,
         truncated = excluded.truncated, updated_at = excluded.updated_at, removed_at = NULL
       RETURNING *`,
    )
    .get(
      input.runId,
      input.generation,
      input.path,
      input.bytes,
      input.truncated ? 1 : 0,
      now,
      now,
    ) as RunLogRow;
  return toInfo(row);
}

/** A run's logs, oldest claim first. */
export function listRunLogs(ctx: ReadableDB, runId: string): RunLogInfo[] {
  const rows = ctx
    .prep(`SELECT * FROM run_logs WHERE run_id = ? ORDER BY generation`)
    .all(runId) as RunLogRow[];
  return rows.map(toInfo);
}

export function markLogRemoved(ctx: WritableDB, runId: string, path: string, now: number): boolean {
  const result = ctx
    .prep(`UPDATE run_logs SET removed_at = ? WHERE run_id = ? AND path = ? AND removed_at IS NULL`)
    .run(now, runId, path);
  return result.changes > 0;
}

/** The log files of runs about to be deleted (retention takes their logs with them). */
export function logPathsOfRuns(ctx: WritableDB, runIds: readonly string[]): string[] {
  const paths: string[] = [];
  const statement = ctx.prep(`SELECT path FROM run_logs WHERE run_id = ? AND removed_at IS NULL`);
  for (const id of runIds) {
    for (const row of statement.all(id) as Array<{ path: string }>) paths.push(row.path);
  }
  return paths;
}

/** This store's logs still recorded in `dir` (the shared legacy folder), with whether their run has ended. */
export function logsIn(
  ctx: ReadableDB,
  dir: string,
): Array<{ runId: string; generation: number; path: string; ended: boolean }> {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const rows = ctx
    .prep(
      `SELECT l.run_id AS runId, l.generation AS generation, l.path AS path, r.status AS status
       FROM run_logs AS l LEFT JOIN runs AS r ON r.id = l.run_id
       WHERE l.removed_at IS NULL AND substr(l.path, 1, length(?)) = ?`,
    )
    .all(prefix, prefix) as Array<{ runId: string; generation: number; path: string; status: string | null }>;
  return rows.map(({ runId, generation, path, status }) => ({
    runId,
    generation,
    path,
    ended: status === null || isTerminalRunStatus(status),
  }));
}

/** Points a claim's log row at the place its file was moved to. */
export function moveLogRow(ctx: WritableDB, runId: string, generation: number, path: string): void {
  ctx.prep(`UPDATE run_logs SET path = ? WHERE run_id = ? AND generation = ?`).run(path, runId, generation);
}

/** True while a run has not ended (its log may still grow). A run that is gone is not active. */
export function runIsActive(ctx: ReadableDB, runId: string): boolean {
  const row = ctx.prep(`SELECT status FROM runs WHERE id = ?`).get(runId) as { status: string } | undefined;
  return row !== undefined && !isTerminalRunStatus(row.status);
}
