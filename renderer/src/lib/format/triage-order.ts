/**
 * Needs you as a triage queue (shared/triage.ts): the store orders and counts it; a row carries the group the
 * store placed it in. `triageGroupOf` places a run by what it shows, for a row that came without one.
 */
import type { RunListItem } from '$shared/views';
import { triageGroupFor, type TriageGroup } from '$shared/triage';

export { TRIAGE_GROUPS, triageGroupLabel, type TriageGroup } from '$shared/triage';

/** The group a run falls in; an unresolved effect wins over any other reason. */
export function triageGroupOf(
  item: Pick<RunListItem, 'display' | 'ambiguousEffects' | 'triageGroup'>,
): TriageGroup {
  return item.triageGroup ?? triageGroupFor(item.display.status, item.ambiguousEffects);
}
