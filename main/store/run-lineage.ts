/**
 * Runs that continue another one (docs/CLI.md#person-commands): the retries a run already has, and the
 * lineage an idempotency key is shared across (docs/LIVENESS.md#unknown-outcomes).
 */
import type { Run } from '../../shared/domain';
import { toRun, type EffectRow, type RunRow } from './row-mapping';
import type { StoreContext } from './store-context';

/** Every retry of `runId`, oldest first (indexed by runs_parent). */
export function listRetries(ctx: StoreContext, runId: string): Run[] {
  const rows = ctx
    .prep(`SELECT * FROM runs WHERE parent_run_id = ? AND lineage = 'retry' ORDER BY created_at, id`)
    .all(runId) as RunRow[];
  return rows.map(toRun);
}

/** Parent links followed at most, up and down: a lineage is a short chain of retries. */
const MAX_DEPTH = 1000;

/**
 * The run's lineage as a CTE named `tree`: its oldest ancestor through retry / continuation links and every
 * run descending from that one (a retry's earlier siblings included: `retry --again` makes them). Bounded by
 * MAX_DEPTH each way; `@runId` names the run.
 */
const LINEAGE_CTE = `WITH RECURSIVE
  up(id, parent, depth) AS (
    SELECT id, CASE WHEN lineage IS NOT NULL THEN parent_run_id END, 0 FROM runs WHERE id = @runId
    UNION ALL
    SELECT r.id, CASE WHEN r.lineage IS NOT NULL THEN r.parent_run_id END, up.depth + 1
    FROM runs r JOIN up ON r.id = up.parent WHERE up.depth < ${MAX_DEPTH}
  ),
  root(id) AS (SELECT id FROM up ORDER BY depth DESC LIMIT 1),
  tree(id, depth) AS (
    SELECT id, 0 FROM root
    UNION
    SELECT r.id, t.depth + 1 FROM runs r JOIN tree t ON r.parent_run_id = t.id
    WHERE r.lineage IS NOT NULL AND t.depth < ${MAX_DEPTH}
  )`;

/** What another run of the lineage holds under an idempotency key: it happened, or nobody knows yet. */
export interface LineageEffect {
  row: EffectRow;
  outcome: 'applied' | 'unknown';
}

/**
 * The effect another run of `runId`'s lineage holds under `key`: applied (or said by a person to have
 * happened) first, else one still applying or ambiguous; undefined when none does. A key a lineage applied
 * is never applied again, and one whose outcome is unknown is never tried again until a person resolves it.
 */
export function lineageEffect(ctx: StoreContext, runId: string, key: string): LineageEffect | undefined {
  const row = ctx
    .prep(
      `${LINEAGE_CTE}
       SELECT e.* FROM tree t JOIN effects e ON e.run_id = t.id
       WHERE t.id != @runId AND e.idempotency_key = @key AND e.status IN ('applied', 'applying', 'ambiguous')
       ORDER BY e.status = 'applied' DESC, e.id DESC LIMIT 1`,
    )
    .get({ runId, key }) as EffectRow | undefined;
  if (row === undefined) return undefined;
  return { row, outcome: row.status === 'applied' ? 'applied' : 'unknown' };
}

/**
 * Effects of the lineage (the run itself included) whose outcome nobody knows: ambiguous, or still applying
 * (a run of it is live, or was left so by an older version). Oldest first.
 */
export function unresolvedInLineage(ctx: StoreContext, runId: string): EffectRow[] {
  return ctx
    .prep(
      `${LINEAGE_CTE}
       SELECT e.* FROM tree t JOIN effects e ON e.run_id = t.id
       WHERE e.status IN ('applying', 'ambiguous') ORDER BY e.id`,
    )
    .all({ runId }) as EffectRow[];
}
