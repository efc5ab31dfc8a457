/** Stored words of a run said as a person reads them (never `headless` or `timed_out` on screen). */
import type { AttemptStatus, ExecutionMode } from '$shared/domain';

/** How the run's command was started: from a terminal a person could type into, or without one. */
export function executionModeText(mode: ExecutionMode): string {
  return mode === 'interactive' ? 'from a terminal' : 'without a terminal';
}

export function attemptStatusText(status: AttemptStatus): string {
  return status === 'timed_out' ? 'timed out' : status;
}

/** When the run first started work: its first attempt's start, or null while it has not started. */
export function firstStart(attempts: ReadonlyArray<{ startedAt: number }>): number | null {
  let first: number | null = null;
  for (const attempt of attempts) if (first === null || attempt.startedAt < first) first = attempt.startedAt;
  return first;
}
