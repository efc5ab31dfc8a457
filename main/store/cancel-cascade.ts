/**
 * The cancel cascade (docs/ARCHITECTURE.md#run-model-and-state-machine): what ending a run as cancelled
 * does to everything it holds. A person's cancel of a stale run and a runner's cancel of its own run both
 * apply it, and the preview counts the same rows without writing.
 */
import {
  countActiveAttempts,
  countAttemptsWithApplyingEffects,
  endActiveAttempts,
  interruptAttemptsWithApplyingEffects,
} from './attempt-rows';
import { cancelPendingEffects, countPendingAndApplyingEffects, markApplyingAmbiguous } from './effect-rows';
import { cancelledQuestionsPayload, cancelOpenInteractions, countOpenInteractions } from './interaction-rows';
import { clearLease } from './lease-rows';
import { setQueueEntry } from './queue-rows';
import { endRunRow } from './run-rows';
import type { CancelCascade } from './store-types';
import type { ReadableDB, WritableDB } from './store-context';

/** What the cancel cascade would do now, without writing. */
export function cascadePreview(ctx: ReadableDB, runId: string): CancelCascade {
  const interrupted = countAttemptsWithApplyingEffects(ctx, runId);
  const effects = countPendingAndApplyingEffects(ctx, runId);
  return {
    attemptsCancelled: countActiveAttempts(ctx, runId) - interrupted,
    attemptsInterrupted: interrupted,
    effectsCancelled: effects.pending,
    effectsAmbiguous: effects.applying,
    interactionsCancelled: countOpenInteractions(ctx, runId),
  };
}

/**
 * Applies the cascade: an attempt with an applying effect → interrupted, other active attempts → cancelled;
 * applying effects → ambiguous, pending effects → cancelled; open questions → cancelled; then run and
 * queue → cancelled and the lease cleared. The caller ends with `commitRun`, its event's payload carrying
 * the cascade and `questions` (the cancelled questions' ids).
 */
export function applyCancel(
  ctx: WritableDB,
  runId: string,
  reason: string,
  now: number,
): { cascade: CancelCascade; questions: { cancelledInteractions?: string[] } } {
  const attemptsInterrupted = interruptAttemptsWithApplyingEffects(ctx, runId, now);
  const attemptsCancelled = endActiveAttempts(ctx, runId, 'cancelled', now);
  const effectsAmbiguous = markApplyingAmbiguous(ctx, runId, now);
  const effectsCancelled = cancelPendingEffects(ctx, runId, now);
  const questions = cancelOpenInteractions(ctx, runId, now);
  const detail = reason === '' ? null : reason;
  endRunRow(ctx, runId, { status: 'cancelled', detail }, now);
  setQueueEntry(ctx, runId, { status: 'cancelled', errorCode: 'cancelled', errorDetail: detail }, now);
  clearLease(ctx, runId);
  return {
    cascade: {
      attemptsCancelled,
      attemptsInterrupted,
      effectsCancelled,
      effectsAmbiguous,
      interactionsCancelled: questions.length,
    },
    questions: cancelledQuestionsPayload(questions),
  };
}
