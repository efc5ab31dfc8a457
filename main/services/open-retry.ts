/** A retry of the run that has not finished yet, if there is one: retrying again would run it twice. */
import type { Run } from '../../shared/domain';
import { isTerminalRunStatus } from '../../shared/domain';
import type { StoreReader } from '../store';

export function openRetryOf(store: StoreReader, runId: string): Run | null {
  return store.listRetries(runId).find((retry) => !isTerminalRunStatus(retry.status)) ?? null;
}
