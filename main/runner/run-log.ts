/**
 * A claim's output log (docs/RUN-OUTPUT.md): made room for within the total budget, opened beside the store,
 * recorded in the store, and closed with its final size before the run's end is written, so a reader that
 * sees the run ended sees all of its output.
 */
import path from 'node:path';
import { DEFAULT_SETTINGS } from '../../shared/views';
import { logFileName } from '../logs/log-files';
import { enforceLogBudget } from '../logs/log-space';
import { LogWriter, type LogSummary } from '../logs/log-writer';
import type { RunStore, StoreReader } from '../store';
import type { OutputSink } from './tee-output';

const MIB = 1024 * 1024;

export interface RunOutputLog extends OutputSink {
  readonly path: string;
  /** Closes the log and records its size; null if logging had failed. Idempotent. */
  finish(): LogSummary | null;
}

function mib(store: StoreReader, key: 'logCapMb' | 'logBudgetMb'): number {
  const value = store.getSetting<unknown>(key, DEFAULT_SETTINGS[key]);
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? value * MIB
    : DEFAULT_SETTINGS[key] * MIB;
}

/** Opens the log of a claim; null (after `warn`) when it cannot be written: the command still runs. */
export function openRunLog(
  store: RunStore,
  claim: { runId: string; generation: number },
  warn: (message: string) => void,
): RunOutputLog | null {
  const dir = store.logsDir;
  const logPath = path.join(dir, logFileName(claim.runId, claim.generation));
  const capBytes = mib(store, 'logCapMb');
  try {
    store.adoptLegacyLogs();
    enforceLogBudget(dir, mib(store, 'logBudgetMb'), capBytes, {
      isActive: (runId) => runId === claim.runId || store.runIsActive(runId),
      onRemoved: (runId, name) => void store.markLogRemoved(runId, path.join(dir, name)),
    });
  } catch (error) {
    warn(`could not make room for logs: ${(error as Error).message}`);
  }
  let writer: LogWriter;
  try {
    writer = LogWriter.open({ path: logPath, capBytes });
  } catch (error) {
    warn(`the command's output is not logged: ${(error as Error).message}`);
    return null;
  }
  try {
    store.recordRunLog({ ...claim, path: logPath, bytes: 0, truncated: false });
  } catch (error) {
    // The store was busy: the log is still written, and recorded when it closes.
    warn(`the log is recorded only when the command ends: ${(error as Error).message}`);
  }
  let failed = false;
  let toldFull = false;
  let summary: LogSummary | null = null;
  return {
    path: logPath,
    write(stream, chunk) {
      if (failed) return;
      try {
        writer.write(stream, chunk);
        // A full disk drops lines, never the command or its heartbeat; a gap marker will count them.
        if (writer.dropping && !toldFull) {
          toldFull = true;
          warn(
            `the disk holding the log is full: output is dropped until there is room, and the log says how much`,
          );
        }
      } catch (error) {
        failed = true;
        warn(`stopped logging the command's output: ${(error as Error).message}`);
      }
    },
    finish() {
      if (summary !== null) return summary;
      try {
        summary = writer.close();
        store.recordRunLog({ ...claim, path: logPath, bytes: summary.bytes, truncated: summary.truncated });
      } catch (error) {
        warn(`could not finish the output log: ${(error as Error).message}`);
        return null;
      }
      return summary;
    },
  };
}
