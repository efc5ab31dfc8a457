/** Row helpers for `queue_entries` (docs/ARCHITECTURE.md#run-model-and-state-machine). */
import type { QueueErrorCode, QueueStatus } from '../../shared/domain';
import type { WritableDB } from './store-context';

/** What a transition sets on a queue entry; a field left out keeps its value. */
export interface QueueChange {
  status: QueueStatus;
  errorCode?: QueueErrorCode | null;
  errorDetail?: string | null;
  availableAt?: number;
  /** `reset` to 0 (a person resumed), or `increment` (one more runner exit in a row). */
  consecutiveErrors?: 'reset' | 'increment';
  /** Change the entry only while it is in this status. */
  onlyFrom?: QueueStatus;
}

/** Moves a run's queue entry; updated_at is always `now`. */
export function setQueueEntry(ctx: WritableDB, runId: string, change: QueueChange, now: number): void {
  const set = ['status = @status'];
  const params: Record<string, string | number | null> = { status: change.status, now, runId };
  if (change.errorCode !== undefined) {
    set.push('error_code = @errorCode');
    params.errorCode = change.errorCode;
  }
  if (change.errorDetail !== undefined) {
    set.push('error_detail = @errorDetail');
    params.errorDetail = change.errorDetail;
  }
  if (change.availableAt !== undefined) {
    set.push('available_at = @availableAt');
    params.availableAt = change.availableAt;
  }
  if (change.consecutiveErrors === 'reset') set.push('consecutive_errors = 0');
  if (change.consecutiveErrors === 'increment') set.push('consecutive_errors = consecutive_errors + 1');
  let where = 'run_id = @runId';
  if (change.onlyFrom !== undefined) {
    where += ' AND status = @onlyFrom';
    params.onlyFrom = change.onlyFrom;
  }
  ctx.prep(`UPDATE queue_entries SET ${set.join(', ')}, updated_at = @now WHERE ${where}`).run(params);
}
