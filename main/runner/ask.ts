/**
 * Asking a person from inside a run: request an interaction under the run's claim, then poll its row
 * (indexed by id, a few times a second) until it is settled, expired or cancelled (docs/ARCHITECTURE.md#run-model-and-state-machine).
 * Deadlines are the store's: once one passes, the store applies the policy (default → settled with
 * provenance timeout_policy; none → expired), the same as the sweeper would.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Actor, Interaction } from '../../shared/domain';
import { isTerminalRunStatus } from '../../shared/domain';
import { isRunwardenError } from '../../shared/errors';
import type { RunStore } from '../store';
import type { EnclosingClaim } from './runner-env';

export type AskInput = Parameters<RunStore['requestInteraction']>[1];

export type AskOutcome =
  | { status: 'answered'; interaction: Interaction; response: unknown }
  | { status: 'expired'; interaction: Interaction }
  | { status: 'cancelled'; interaction: Interaction | null; reason: string }
  | { status: 'fenced'; interaction: Interaction };

export interface WaitOptions {
  /** How often the interaction row is read; default 250 ms. */
  pollMs?: number;
  /** Aborting stops the wait with a `cancelled` outcome (nothing is written). */
  signal?: AbortSignal;
  actor: Actor;
}

/** Requests an interaction and waits for its outcome. */
export async function ask(
  store: RunStore,
  claim: EnclosingClaim,
  input: AskInput,
  options: WaitOptions,
): Promise<AskOutcome> {
  const interaction = store.requestInteraction(claim, input);
  return waitForInteraction(store, claim, interaction.id, options);
}

/** Polls one interaction until it leaves pending/presenting; on an answer the run goes back to running. */
export async function waitForInteraction(
  store: RunStore,
  claim: EnclosingClaim,
  interactionId: string,
  options: WaitOptions,
): Promise<AskOutcome> {
  const pollMs = options.pollMs ?? 250;
  for (let tick = 0; ; tick += 1) {
    if (options.signal?.aborted) {
      return { status: 'cancelled', interaction: null, reason: 'interrupted' };
    }
    const interaction = store.getInteraction(interactionId);
    switch (interaction.status) {
      case 'settled':
        return resumed(store, claim, interaction, {
          status: 'answered',
          interaction,
          response: interaction.response,
        });
      case 'expired':
        return resumed(store, claim, interaction, { status: 'expired', interaction });
      case 'cancelled':
        return { status: 'cancelled', interaction, reason: 'the question was cancelled' };
      case 'pending':
      case 'presenting':
        break;
    }
    if (interaction.deadlineAt !== null && store.now() >= interaction.deadlineAt) {
      store.expireInteractionIfDue(interaction.id, options.actor);
      continue;
    }
    if (tick % 4 === 0 && isTerminalRunStatus(store.getRun(claim.runId).status)) {
      return { status: 'cancelled', interaction, reason: 'the run ended' };
    }
    try {
      await sleep(pollMs, undefined, options.signal ? { signal: options.signal } : {});
    } catch {
      return { status: 'cancelled', interaction, reason: 'interrupted' };
    }
  }
}

function resumed(
  store: RunStore,
  claim: EnclosingClaim,
  interaction: Interaction,
  outcome: AskOutcome,
): AskOutcome {
  try {
    store.resumeAfterInteraction(claim);
  } catch (error) {
    if (isRunwardenError(error) && error.code === 'FENCED') return { status: 'fenced', interaction };
    throw error;
  }
  return outcome;
}
