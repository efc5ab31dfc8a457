/**
 * What the tray shows, in one read (docs/ARCHITECTURE.md#change-feed): the attention summary and the open
 * questions of the runs it lists, from the same snapshot, so a question answered between two reads can
 * never show under a run that no longer needs you, and a change costs the tray one read however many
 * questions it shows.
 */
import type { Interaction } from '../../shared/domain';
import { attentionSummary } from './run-counts';
import { OPEN_INTERACTION_SQL, toInteraction, type InteractionRow } from './row-mapping';
import type { AttentionSummary } from './store-types';
import type { ReadableDB } from './store-context';

export interface TrayAttention {
  summary: AttentionSummary;
  /** Open (pending or presenting) questions of the summary's runs, oldest first within each run. */
  questions: Interaction[];
  /**
   * Of the questions the shell said it shows (desktop notifications), those no longer open — answered,
   * withdrawn, expired, cancelled, or gone — from the same snapshot: their notifications close.
   */
  closed: string[];
}

/** Call inside one read transaction (RunStore.trayAttention). `watched`: the questions the shell shows. */
export function trayAttention(
  ctx: ReadableDB,
  limit: number,
  now: number,
  watched: readonly string[] = [],
): TrayAttention {
  const summary = attentionSummary(ctx, limit, now);
  const closed = closedQuestions(ctx, watched);
  const asking = summary.items.filter((item) => item.openInteractions > 0).map((item) => item.run.id);
  if (asking.length === 0) return { summary, questions: [], closed };
  const rows = ctx
    .prep(
      `SELECT * FROM interactions WHERE run_id IN (SELECT value FROM json_each(?))
         AND status IN ${OPEN_INTERACTION_SQL} ORDER BY created_at, id`,
    )
    .all(JSON.stringify(asking)) as InteractionRow[];
  return { summary, questions: rows.map(toInteraction), closed };
}

/**
 * Those of `ids` that are not open questions of this store (any more). Another machine's questions
 * (`machine:id`, docs/REMOTES.md#in-the-window) are not this store's to say.
 */
function closedQuestions(ctx: ReadableDB, watched: readonly string[]): string[] {
  const ids = watched.filter((id) => !id.includes(':'));
  if (ids.length === 0) return [];
  const open = new Set(
    (
      ctx
        .prep(
          `SELECT id FROM interactions WHERE id IN (SELECT value FROM json_each(?)) AND status IN ${OPEN_INTERACTION_SQL}`,
        )
        .all(JSON.stringify(ids)) as Array<{ id: string }>
    ).map((row) => row.id),
  );
  return ids.filter((id) => !open.has(id));
}
