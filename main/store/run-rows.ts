/** Row helpers for the `runs` row itself (docs/ARCHITECTURE.md#run-model-and-state-machine). */
import type { RunStatus } from '../../shared/domain';
import { toJson } from './row-mapping';
import type { WritableDB } from './store-context';

/** Sets the run's status; `detail` replaces status_detail when given (null clears it). */
export function setRunStatus(
  ctx: WritableDB,
  runId: string,
  status: RunStatus,
  detail?: string | null,
): void {
  if (detail === undefined) ctx.prep(`UPDATE runs SET status = ? WHERE id = ?`).run(status, runId);
  else ctx.prep(`UPDATE runs SET status = ?, status_detail = ? WHERE id = ?`).run(status, detail, runId);
}

export function setStatusDetail(ctx: WritableDB, runId: string, detail: string | null): void {
  ctx.prep(`UPDATE runs SET status_detail = ? WHERE id = ?`).run(detail, runId);
}

/** Paused or not; either way a pending pause request is answered. */
export function setPaused(ctx: WritableDB, runId: string, paused: boolean): void {
  ctx.prep(`UPDATE runs SET paused = ?, pause_requested = 0 WHERE id = ?`).run(paused ? 1 : 0, runId);
}

export function setRequestFlag(
  ctx: WritableDB,
  runId: string,
  flag: 'cancel_requested' | 'pause_requested',
): void {
  ctx.prep(`UPDATE runs SET ${flag} = 1 WHERE id = ?`).run(runId);
}

export type RunEnding =
  | { status: 'completed'; output?: unknown }
  | { status: 'failed'; error: string }
  | { status: 'timed_out' }
  | { status: 'cancelled'; detail: string | null };

/** The run ends: terminal status, finished_at, and every flag cleared (nothing is paused or requested). */
export function endRunRow(ctx: WritableDB, runId: string, ending: RunEnding, now: number): void {
  if (ending.status === 'cancelled') {
    ctx
      .prep(
        `UPDATE runs SET status = 'cancelled', paused = 0, cancel_requested = 0, pause_requested = 0, status_detail = ?,
         finished_at = ? WHERE id = ?`,
      )
      .run(ending.detail, now, runId);
    return;
  }
  ctx
    .prep(
      `UPDATE runs SET status = ?, output_json = ?, error = ?, finished_at = ?, paused = 0, cancel_requested = 0,
         pause_requested = 0 WHERE id = ?`,
    )
    .run(
      ending.status,
      toJson(ending.status === 'completed' ? ending.output : undefined),
      ending.status === 'failed' ? ending.error : null,
      now,
      runId,
    );
}
