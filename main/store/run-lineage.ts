/** Runs that continue another one: the retries a run already has (docs/CLI.md#person-commands). */
import type { Run } from '../../shared/domain';
import { toRun, type RunRow } from './rows';
import type { StoreContext } from './store-context';

/** Every retry of `runId`, oldest first (indexed by runs_parent). */
export function listRetries(ctx: StoreContext, runId: string): Run[] {
  const rows = ctx
    .prep(`SELECT * FROM runs WHERE parent_run_id = ? AND lineage = 'retry' ORDER BY created_at, id`)
    .all(runId) as RunRow[];
  return rows.map(toRun);
}
