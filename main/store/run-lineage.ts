/**
 * Runs that continue another one (docs/CLI.md#person-commands): the retries a run already has, and the
 * family an idempotency key is shared across — its lineage and its nested runs
 * (docs/LIVENESS.md#unknown-outcomes, docs/LIVENESS.md#nested-runs).
 */
import type { Run, RunStatus } from '../../shared/domain';
import { TERMINAL_RUN_SQL, toRun, type EffectRow, type RunRow } from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';

/** Every retry of `runId`, oldest first (indexed by runs_parent). */
export function listRetries(ctx: ReadableDB, runId: string): Run[] {
  const rows = ctx
    .prep(`SELECT * FROM runs WHERE parent_run_id = ? AND lineage = 'retry' ORDER BY created_at, id`)
    .all(runId) as RunRow[];
  return rows.map(toRun);
}

/**
 * The run's family as a CTE named `tree` (docs/LIVENESS.md#nested-runs): every run above it through retry /
 * continuation links and enclosing-run links (the run a nested `exec` was started inside), and every run
 * descending from any of those through either link — the root's lineage, its children, their retries and
 * their children. `retry --again` siblings are descendants of the run they retry. UNION stops at a run
 * already seen; `@runId` names the run.
 */
const LINEAGE_CTE = `WITH RECURSIVE
  up(id) AS (
    SELECT @runId
    UNION
    SELECT r.parent_run_id FROM runs r JOIN up ON r.id = up.id
      WHERE r.lineage IS NOT NULL AND r.parent_run_id IS NOT NULL
    UNION
    SELECT r.enclosing_run_id FROM runs r JOIN up ON r.id = up.id WHERE r.enclosing_run_id IS NOT NULL
  ),
  tree(id) AS (
    SELECT id FROM up
    UNION
    SELECT r.id FROM runs r JOIN tree t ON r.parent_run_id = t.id WHERE r.lineage IS NOT NULL
    UNION
    SELECT r.id FROM runs r JOIN tree t ON r.enclosing_run_id = t.id
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
export function lineageEffect(ctx: ReadableDB, runId: string, key: string): LineageEffect | undefined {
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
export function unresolvedInLineage(ctx: WritableDB, runId: string): EffectRow[] {
  return ctx
    .prep(
      `${LINEAGE_CTE}
       SELECT e.* FROM tree t JOIN effects e ON e.run_id = t.id
       WHERE e.status IN ('applying', 'ambiguous') ORDER BY e.id`,
    )
    .all({ runId }) as EffectRow[];
}

/** A run started inside another one, as the run it was started inside lists it. */
export interface ChildRun {
  id: string;
  title: string;
  status: RunStatus;
}

/** The runs started inside `runId` (nested `exec`s), oldest first (indexed by runs_enclosing). */
export function listChildren(ctx: ReadableDB, runId: string): ChildRun[] {
  return ctx
    .prep(`SELECT id, title, status FROM runs WHERE enclosing_run_id = ? ORDER BY created_at, id`)
    .all(runId) as ChildRun[];
}

/** The run `runId` was started inside; null for a top-level run. */
export function enclosingRunOf(ctx: ReadableDB, runId: string): string | null {
  const row = ctx.prep(`SELECT enclosing_run_id AS id FROM runs WHERE id = ?`).get(runId) as
    { id: string | null } | undefined;
  return row?.id ?? null;
}

/**
 * Runs started inside `runId`, at any depth, that have not ended: what a person's cancel of `runId` asks to
 * stop too. Nearest first.
 */
export function liveDescendants(ctx: WritableDB, runId: string): string[] {
  const rows = ctx
    .prep(
      `WITH RECURSIVE below(id, depth) AS (
         SELECT @runId, 0
         UNION
         SELECT r.id, b.depth + 1 FROM runs r JOIN below b ON r.enclosing_run_id = b.id
       )
       SELECT r.id FROM below b JOIN runs r ON r.id = b.id
       WHERE b.depth > 0 AND r.status NOT IN ${TERMINAL_RUN_SQL} ORDER BY b.depth, r.created_at, r.id`,
    )
    .all({ runId }) as Array<{ id: string }>;
  return rows.map((row) => row.id);
}

/** An effect a retry of a run will not perform again: applied (or said to have happened) in its family. */
export interface FamilyApplied {
  key: string;
  type: string;
  summary: string;
  /** The run that applied it first (a carried copy names its source). */
  runId: string;
  effectId: number;
}

/**
 * Every key applied anywhere in `runId`'s family — the run itself, its lineage, the runs nested in any of
 * them — with the run that applied it first: what a retry of `runId` will skip. Oldest first.
 */
export function appliedInFamily(ctx: ReadableDB, runId: string): FamilyApplied[] {
  return ctx
    .prep(
      `${LINEAGE_CTE}
       SELECT e.idempotency_key AS key, e.type, e.summary, e.run_id AS runId, e.id AS effectId
       FROM tree t JOIN effects e ON e.run_id = t.id
       WHERE e.status = 'applied' AND e.id = (
         SELECT MIN(f.id) FROM tree u JOIN effects f ON f.run_id = u.id
         WHERE f.idempotency_key = e.idempotency_key AND f.status = 'applied')
       ORDER BY e.id`,
    )
    .all({ runId }) as FamilyApplied[];
}

/**
 * The other runs of `runId`'s lineage parked because `key` had an unknown outcome in `runId` (what
 * `runwarden effect` writes when it parks: docs/LIVENESS.md#unknown-outcomes), and the detail they hold.
 */
export function parkedOnEffect(
  ctx: WritableDB,
  runId: string,
  key: string,
): Array<{ id: string; detail: string }> {
  return ctx
    .prep(
      `${LINEAGE_CTE}
       SELECT q.run_id AS id, q.error_detail AS detail FROM tree t JOIN queue_entries q ON q.run_id = t.id
       WHERE t.id != @runId AND q.status = 'parked' AND q.error_code = 'effectAmbiguous'
         AND substr(q.error_detail, 1, length(@prefix)) = @prefix`,
    )
    .all({ runId, prefix: `Effect ${key} has an unknown outcome in run ${runId}:` }) as Array<{
    id: string;
    detail: string;
  }>;
}
