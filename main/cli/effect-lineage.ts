/**
 * Whether an effect with this idempotency key already happened in the run's lineage: the run itself or
 * the run it retries or continues (and that one's, up the chain). A retry must not repeat what its parent did,
 * nor what a person said happened (docs/CLI.md#effects).
 */
import type { Effect } from '../../shared/domain';
import type { RunnerStore } from '../store/runner-store';

/** Parent links followed at most; a lineage is a short chain of retries. */
const MAX_DEPTH = 100;

export function appliedInLineage(store: RunnerStore, runId: string, key: string): Effect | null {
  let current: string | null = runId;
  const seen = new Set<string>();
  for (let depth = 0; current !== null && depth < MAX_DEPTH && !seen.has(current); depth += 1) {
    seen.add(current);
    const snapshot = store.getSnapshot(current);
    const applied = snapshot.effects.find((e) => e.idempotencyKey === key && e.status === 'applied');
    if (applied !== undefined) return applied;
    // A retry or a continuation carries on its parent's work, so its parent's effects count.
    current = snapshot.run.lineage === null ? null : snapshot.run.parentRunId;
  }
  return null;
}
