/**
 * A window on one of a run's logs (docs/RUN-OUTPUT.md#reading), for the window (`runs:log`) and
 * `runwarden logs`: the run's latest log unless a generation is asked for, read from the file the store
 * records, and only if that file is one of this store's own logs.
 */
import { isTerminalRunStatus } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import type { RunLogPage } from '../../shared/views';
import type { StoreReader } from './store-facets';
import type { RunLogInfo } from './store-types';
import { isOwnLogPath, logBytesOnDisk } from '../logs/log-files';
import { readLog } from '../logs/read-log';

export interface RunLogQuery {
  runId: string;
  generation?: number;
  tail?: number;
  afterSeq?: number;
  stream?: 'stdout' | 'stderr';
  limit?: number;
}

/** The log a query means: the asked-for generation, else the latest. Null when the run has none. */
export function pickRunLog(logs: readonly RunLogInfo[], generation: number | undefined): RunLogInfo | null {
  if (generation === undefined) return logs.at(-1) ?? null;
  return logs.find((log) => log.generation === generation) ?? null;
}

export function readRunLogPage(store: StoreReader, query: RunLogQuery, canOpen = false): RunLogPage {
  const run = store.getRun(query.runId);
  const logs = store.listRunLogs(query.runId);
  const log = pickRunLog(logs, query.generation);
  if (query.generation !== undefined && log === null) {
    throw new RunwardenError('NOT_FOUND', `Run ${query.runId} has no log of generation ${query.generation}.`);
  }
  const latest = log !== null && log === logs.at(-1);
  // Live while the claim that writes it is held by a living owner: a killed runner never closes its log.
  const detail =
    latest && !isTerminalRunStatus(run.status) ? store.getRunDetail(run.id, { eventsLimit: 1 }) : null;
  const writing =
    detail !== null && detail.display.liveOwner && detail.snapshot.lease?.generation === log?.generation;
  const page: RunLogPage = {
    runId: run.id,
    generation: log?.generation ?? null,
    generations: logs.map((l) => l.generation),
    parentRunId: run.parentRunId,
    records: [],
    lastSeq: 0,
    reset: false,
    bytes: log?.bytes ?? 0,
    truncated: log?.truncated ?? false,
    removed: log?.removedAt !== null && log?.removedAt !== undefined,
    live: writing,
    canOpen: canOpen && log !== null && log.removedAt === null,
  };
  if (log === null || page.removed) return page;
  if (!isOwnLogPath(store.path, log.path)) {
    throw new RunwardenError(
      'FORBIDDEN',
      `The log recorded for run ${run.id} is not in this store's logs folder.`,
    );
  }
  const result = readLog(log.path, {
    ...(query.tail !== undefined && { tail: query.tail }),
    ...(query.afterSeq !== undefined && { afterSeq: query.afterSeq }),
    ...(query.stream !== undefined && { stream: query.stream }),
    ...(query.limit !== undefined && { limit: query.limit }),
  });
  page.records = result.records;
  page.lastSeq = Math.max(result.lastSeq, query.afterSeq ?? 0);
  page.reset = result.reset;
  page.truncated = page.truncated || result.truncated;
  if (page.live) page.bytes = logBytesOnDisk(log.path);
  return page;
}

/** The file of a run's log, checked to be this store's own, for "open file" and `logs --raw` of a whole log. */
export function runLogPath(store: StoreReader, runId: string, generation?: number): string | null {
  const log = pickRunLog(store.listRunLogs(runId), generation);
  if (log === null || log.removedAt !== null) return null;
  if (!isOwnLogPath(store.path, log.path)) {
    throw new RunwardenError(
      'FORBIDDEN',
      `The log recorded for run ${runId} is not in this store's logs folder.`,
    );
  }
  return log.path;
}
