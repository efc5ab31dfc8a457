/**
 * Runs picked for a bulk action (checkboxes, shift-click ranges, the x key), with the revision seen when
 * picked. It is never moved forward: a run that changed since shows in the dry run as "changed since you
 * looked" instead of being acted on unseen (docs/WINDOW.md#commands-and-retry).
 */
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

  /** Select-all: adds every given row (with the revision on screen) to what is picked. */
  addAll(items: readonly RunListItem[]): void {
    const next = new Map(this.picked);
    for (const item of items) if (!next.has(item.run.id)) next.set(item.run.id, item.run.revision);
    this.picked = next;
  }

  /** The bulk request items, in a stable order. */
  items(): Array<{ runId: string; expectedRevision: number }> {
    return [...this.picked].map(([runId, expectedRevision]) => ({ runId, expectedRevision }));
  }

  /**
   * Keeps only the picked runs among `visible` (the list after a view, project or search change): the
   * selection is what the person can see, so no bulk action reaches a run out of sight. Returns how many
   * were dropped.
   */
  retainOnly(visible: ReadonlySet<string>): number {
    const next = new Map([...this.picked].filter(([runId]) => visible.has(runId)));
    const dropped = this.picked.size - next.size;
    if (dropped === 0) return 0;
    this.picked = next;
    if (this.#anchor !== null && !next.has(this.#anchor)) this.#anchor = null;
    return dropped;
  }

  clear(): void {
    this.picked = new Map();
    this.#anchor = null;
  }
}
