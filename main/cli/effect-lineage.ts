/**
 * What the run's lineage already holds under an idempotency key, before `runwarden effect` writes anything:
 * the run itself, the runs it retries or continues, and the other retries of them. A retry must not repeat
 * what another run of its lineage did (nor what a person said happened), nor try again what nobody knows
 * the outcome of yet (docs/CLI.md#effects).
 */
import type { Effect } from '../../shared/domain';
import type { RunnerStore } from '../store/runner-store';

export type LineageOutcome = { effect: Effect; outcome: 'applied' | 'unknown' };

export function keyInLineage(store: RunnerStore, runId: string, key: string): LineageOutcome | null {
  const own = store.getSnapshot(runId).effects.find((e) => e.idempotencyKey === key);
  if (own?.status === 'applied') return { effect: own, outcome: 'applied' };
  // This run's own applying or ambiguous one is the ledger's to answer (reserveEffect returns it).
  if (own !== undefined) return null;
  return store.lineageEffect(runId, key);
}
