/** Runs picked for a bulk action (checkboxes, shift-click ranges, the x key), with the revision seen. */
import type { RunListItem } from '../../../../shared/views';

export class RunSelection {
  /** run id → the revision the person saw when picking it. */
  picked = $state.raw<ReadonlyMap<string, number>>(new Map());
  #anchor: string | null = null;

  readonly count = $derived(this.picked.size);

  has(runId: string): boolean {
    return this.picked.has(runId);
  }

  toggle(item: RunListItem): void {
    const next = new Map(this.picked);
    if (next.has(item.run.id)) next.delete(item.run.id);
    else next.set(item.run.id, item.run.revision);
    this.picked = next;
    this.#anchor = item.run.id;
  }

  /** Shift-click: picks every row between the last toggled one and this one. */
  extendTo(item: RunListItem, items: readonly RunListItem[]): void {
    const from = items.findIndex((i) => i.run.id === this.#anchor);
    const to = items.findIndex((i) => i.run.id === item.run.id);
    if (from === -1 || to === -1) {
      this.toggle(item);
      return;
    }
    const next = new Map(this.picked);
    for (let i = Math.min(from, to); i <= Math.max(from, to); i++) {
      const row = items[i];
      if (row !== undefined) next.set(row.run.id, row.run.revision);
    }
    this.picked = next;
    this.#anchor = item.run.id;
  }

  /** The bulk request items, in a stable order. */
  items(): Array<{ runId: string; expectedRevision: number }> {
    return [...this.picked].map(([runId, expectedRevision]) => ({ runId, expectedRevision }));
  }

  /** Keeps revisions current after a refresh, so a bulk action does not fail on our own stale view. */
  updateFrom(items: readonly RunListItem[]): void {
    if (this.picked.size === 0) return;
    let changed = false;
    const next = new Map(this.picked);
    for (const item of items) {
      const seen = next.get(item.run.id);
      if (seen !== undefined && seen !== item.run.revision) {
        next.set(item.run.id, item.run.revision);
        changed = true;
      }
    }
    if (changed) this.picked = next;
  }

  clear(): void {
    this.picked = new Map();
    this.#anchor = null;
  }
}
