/**
 * A write that records what already happened must not be dropped because the store cannot take it right now
 * (docs/LIVENESS.md#outcomes-of-finished-commands): the end of a run (`exec`, `worker`) and the outcome of an
 * effect (`effect`, `effect end`) are tried again — waiting 0.5 s, doubling up to 5 s — until the store
 * records them. A stop signal (SIGINT, SIGTERM, SIGHUP), before or while it waits, ends the waiting at once.
 * Loads no more than timers: `effect` is a runner-side command that starts often (docs/CLI.md#start-up).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isRunwardenError, type RunwardenError } from '../../shared/errors';

/** The signals that ask a runner to stop now. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface RetryTiming {
  /** First wait between tries; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
}

/** The waiting between tries: backoff, and a stop signal that ends it. */
export interface WriteRetry {
  /** A stop signal came: do not wait any more. */
  readonly interrupted: boolean;
  /** Waits the next backoff step (returns early on a stop signal). */
  pause(): Promise<void>;
}

/** Runs `body` with a WriteRetry whose stop-signal listeners are removed when it returns. */
export async function withWriteRetry<T>(
  timing: RetryTiming,
  body: (retry: WriteRetry) => Promise<T>,
): Promise<T> {
  let wait = timing.retryMs ?? 500;
  const maxWait = timing.maxRetryMs ?? 5_000;
  const interrupt = new AbortController();
  const onSignal = (): void => interrupt.abort();
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  const retry: WriteRetry = {
    get interrupted() {
      return interrupt.signal.aborted;
    },
    async pause() {
      try {
        await sleep(wait, undefined, { signal: interrupt.signal });
      } catch {
        // Interrupted: the caller's next check sees it.
      }
      wait = Math.min(maxWait, wait * 2);
    },
  };
  try {
    return await body(retry);
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}

/** The store cannot take a write now but may later: the disk is full, it became read-only, it stays busy. */
export function isPassingWriteError(error: unknown): error is RunwardenError {
  return (
    isRunwardenError(error) &&
    (error.code === 'DISK_FULL' || error.code === 'READ_ONLY' || error.code === 'BUSY')
  );
}

/**
 * `write()` until the store takes it: a passing error (isPassingWriteError) is told to `onRetry` (with how
 * many tries failed) and tried again after a pause; any other error, or a passing one after a stop signal,
 * is thrown.
 */
export async function recordDurably<T>(
  write: () => T,
  options: RetryTiming & { onRetry?: (error: RunwardenError, tries: number) => void } = {},
): Promise<T> {
  return withWriteRetry(options, async (retry) => {
    for (let tries = 1; ; tries += 1) {
      try {
        return write();
      } catch (error) {
        if (!isPassingWriteError(error) || retry.interrupted) throw error;
        options.onRetry?.(error, tries);
        await retry.pause();
      }
    }
  });
}
