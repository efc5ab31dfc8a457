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
import type { StoreContext } from './store-context';

export interface TrayAttention {
  summary: AttentionSummary;
  /** Open (pending or presenting) questions of the summary's runs, oldest first within each run. */
  questions: Interaction[];
}

/** Call inside one read transaction (RunStore.trayAttention). */
export function trayAttention(ctx: StoreContext, limit: number, now: number): TrayAttention {
  const summary = attentionSummary(ctx, limit, now);
  const asking = summary.items.filter((item) => item.openInteractions > 0).map((item) => item.run.id);
  if (asking.length === 0) return { summary, questions: [] };
  const rows = ctx
    .prep(
      `SELECT * FROM interactions WHERE run_id IN (SELECT value FROM json_each(?))
         AND status IN ${OPEN_INTERACTION_SQL} ORDER BY created_at, id`,
    )
    .all(JSON.stringify(asking)) as InteractionRow[];
  return { summary, questions: rows.map(toInteraction) };
}
