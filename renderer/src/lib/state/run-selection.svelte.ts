/**
 * Runs picked for a bulk action (checkboxes, shift-click ranges, the x key), with the revision seen when
 * picked. It is never moved forward: a run that changed since shows in the dry run as "changed since you
 * looked" instead of being acted on unseen (docs/WINDOW.md#commands-and-retry). The title seen is kept too,
 * so a picked run that left the list (and a bulk result about it) is still named, never shown as an id.
 */
import type { RunListItem } from '$shared/views';

/** What the person saw of a run when they picked it. */
export interface PickedRun {
  revision: number;
  title: string;
}

export class RunSelection {
  /** run id → what the person saw when picking it. */
  picked = $state.raw<ReadonlyMap<string, PickedRun>>(new Map());
  #anchor: string | null = null;

  readonly count = $derived(this.picked.size);

  has(runId: string): boolean {
    return this.picked.has(runId);
  }

  /** The title the person saw when they picked the run. */
  titleOf(runId: string): string | null {
    return this.picked.get(runId)?.title ?? null;
  }

  toggle(item: RunListItem): void {
    const next = new Map(this.picked);
    if (next.has(item.run.id)) next.delete(item.run.id);
    else next.set(item.run.id, seen(item));
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
      if (row !== undefined) next.set(row.run.id, seen(row));
    }
    this.picked = next;
    this.#anchor = item.run.id;
  }

  /** Select-all: adds every given row (with the revision on screen) to what is picked. */
  addAll(items: readonly RunListItem[]): void {
    const next = new Map(this.picked);
    for (const item of items) if (!next.has(item.run.id)) next.set(item.run.id, seen(item));
    this.picked = next;
  }

  /** Takes the given runs out of what is picked (the header checkbox unpicking what the list shows). */
  removeAll(runIds: Iterable<string>): void {
    const next = new Map(this.picked);
    for (const runId of runIds) next.delete(runId);
    this.picked = next;
    if (this.#anchor !== null && !next.has(this.#anchor)) this.#anchor = null;
  }

  /** The bulk request items, in a stable order. */
  items(): Array<{ runId: string; expectedRevision: number }> {
    return [...this.picked].map(([runId, { revision }]) => ({ runId, expectedRevision: revision }));
  }

  /** Picked runs the list does not show (they left it after a change), with the title seen. */
  outside(shown: ReadonlySet<string>): Array<{ runId: string; title: string }> {
    return [...this.picked]
      .filter(([runId]) => !shown.has(runId))
      .map(([runId, { title }]) => ({ runId, title }));
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

function seen(item: RunListItem): PickedRun {
  return { revision: item.run.revision, title: item.run.title };
}
