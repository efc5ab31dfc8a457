/**
 * The run list: keyset-paginated pages of one query, loaded as the person scrolls, refreshed in place on
 * `changed` pushes without losing the active row.
 */
import type { RunwardenApi } from '$shared/contract';
import type { ErrorInfo } from '$shared/errors';
import { LIST_FIRST_PAGE_SIZE, LIST_PAGE_SIZE, type RunListItem, type RunView } from '$shared/views';
import type { TriageCounts } from '$shared/triage';

export interface ListQuery {
  view: RunView;
  projectPath: string | null;
  search: string;
  /** One machine's runs (`this` or a remote's name); absent or null: every attached machine's. */
  machine?: string | null;
}

const MAX_PAGE = 500;
/** Refresh re-reads at most this many rows from the top; rows below keep their last known state. */
const REFRESH_CAP = 1000;

export class RunListState {
  items = $state.raw<RunListItem[]>([]);
  nextCursor = $state<string | null>(null);
  loading = $state(false);
  loadingMore = $state(false);
  error = $state.raw<ErrorInfo | null>(null);
  /** The row j/k moves over (the keyboard cursor). */
  activeId = $state<string | null>(null);
  query = $state.raw<ListQuery>({ view: 'needs-you', projectPath: null, search: '' });
  /** Needs you: runs per triage group over the whole queue, from its first page (null in other views). */
  groups = $state.raw<TriageCounts | null>(null);
  /** True once the first page of the current query has arrived. */
  loaded = $state(false);

  readonly activeIndex = $derived(this.items.findIndex((i) => i.run.id === this.activeId));
  readonly hasMore = $derived(this.nextCursor !== null);

  readonly #api: RunwardenApi;
  readonly #pageSize: number;
  /** Ids of `items`, kept beside it so appending a page dedupes in O(page), not by rehashing every row. */
  #ids = new Set<string>();
  #generation = 0;
  #refreshing: Promise<void> | null = null;
  #refreshAgain = false;
  /** A refresh asked for while a load was in flight: it runs once the load has landed. */
  #afterLoad: { promise: Promise<void>; resolve: () => void } | null = null;

  readonly #firstPageSize: number;

  constructor(api: RunwardenApi, pageSize = LIST_PAGE_SIZE, firstPageSize = LIST_FIRST_PAGE_SIZE) {
    this.#api = api;
    this.#pageSize = Math.min(pageSize, MAX_PAGE);
    this.#firstPageSize = Math.min(firstPageSize, this.#pageSize);
  }

  #request(query: ListQuery, limit: number, cursor: string | null) {
    return this.#api.listRuns({
      view: query.view,
      ...(query.projectPath !== null && { projectPath: query.projectPath }),
      ...(query.search.trim() !== '' && { search: query.search.trim() }),
      ...(query.machine && { machine: query.machine }),
      limit,
      cursor,
    });
  }

  /** Loads the first page of a (new) query; answers to older queries are dropped. */
  async load(query: ListQuery): Promise<void> {
    const generation = ++this.#generation;
    this.query = query;
    this.loading = true;
    this.loadingMore = false;
    this.error = null;
    const result = await this.#request(query, this.#firstPageSize, null);
    if (generation !== this.#generation) return;
    this.loading = false;
    this.loaded = true;
    if (!result.ok) {
      this.error = result.error;
      this.#setItems([]);
      this.nextCursor = null;
      this.groups = null;
    } else {
      this.#setItems(result.value.items);
      this.nextCursor = result.value.nextCursor;
      this.groups = result.value.groups ?? null;
      if (this.activeId === null || this.activeIndex === -1) this.activeId = this.items[0]?.run.id ?? null;
    }
    const after = this.#afterLoad;
    this.#afterLoad = null;
    if (after !== null) void this.refresh().then(after.resolve);
  }

  /** Appends the next page, if any; called as the list scrolls near its end. */
  async loadMore(): Promise<void> {
    if (this.nextCursor === null || this.loading || this.loadingMore) return;
    const generation = this.#generation;
    this.loadingMore = true;
    const result = await this.#request(this.query, this.#pageSize, this.nextCursor);
    if (generation !== this.#generation) return;
    this.loadingMore = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const fresh = result.value.items.filter((i) => !this.#ids.has(i.run.id));
    for (const item of fresh) this.#ids.add(item.run.id);
    // `$state.raw` signals by reference, so the list gets a new array: one pointer copy, no per-row work.
    // Pages come in the store's order (Needs you's too: a keyset on its triage order), so rows only append.
    this.items = this.items.concat(fresh);
    this.nextCursor = result.value.nextCursor;
  }

  /** Replaces the rows (first page, refresh) and their id set. */
  #setItems(items: RunListItem[]): void {
    this.items = items;
    this.#ids = new Set(items.map((i) => i.run.id));
  }

  /** Re-reads what is loaded (up to a cap) after a `changed` push; concurrent calls coalesce into one more. */
  refresh(): Promise<void> {
    if (this.loading) {
      // The page in flight may have been read before the change this refresh is for: re-read after it.
      if (this.#afterLoad === null) {
        let resolve = () => {};
        const promise = new Promise<void>((r) => (resolve = r));
        this.#afterLoad = { promise, resolve };
      }
      return this.#afterLoad.promise;
    }
    if (this.#refreshing !== null) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        await this.#refreshOnce();
      } while (this.#refreshAgain);
    })().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #refreshOnce(): Promise<void> {
    if (!this.loaded) return;
    const generation = this.#generation;
    const before = this.items;
    const want = Math.min(Math.max(before.length, this.#pageSize), REFRESH_CAP);
    const head: RunListItem[] = [];
    let cursor: string | null = null;
    let groups: TriageCounts | null = null;
    do {
      const result = await this.#request(this.query, Math.min(MAX_PAGE, want - head.length), cursor);
      if (generation !== this.#generation) return;
      if (!result.ok) {
        this.error = result.error;
        return;
      }
      head.push(...result.value.items);
      if (cursor === null) groups = result.value.groups ?? null;
      cursor = result.value.nextCursor;
    } while (cursor !== null && head.length < want);
    if (generation !== this.#generation) return;

    const activeIndexBefore = this.activeIndex;
    this.groups = groups;
    const tail = cursor === null ? [] : this.#tailAfter(before, head);
    if (tail.length > 0) {
      // Rows past the refreshed head keep their place; the old cursor still points past them.
      this.#setItems([...head, ...tail]);
    } else {
      this.#setItems(head);
      this.nextCursor = cursor;
    }
    this.error = null;
    // The first rows of an empty view arrived by a push: the keyboard cursor starts on the first.
    if (this.activeId === null) this.activeId = this.items[0]?.run.id ?? null;
    else if (this.activeIndex === -1 && this.items.length > 0) {
      const index = Math.min(Math.max(activeIndexBefore, 0), this.items.length - 1);
      this.activeId = this.items[index]?.run.id ?? null;
    }
  }

  /**
   * The loaded rows that come after a refreshed head, in the list's order: by id (newest first) in a view in
   * the store's order, and in Needs you the rows after the head's last row as it stood before.
   */
  #tailAfter(before: readonly RunListItem[], head: readonly RunListItem[]): RunListItem[] {
    const lastHeadId = head.at(-1)?.run.id;
    if (lastHeadId === undefined || before.length <= head.length) return [];
    if (this.query.view !== 'needs-you') return before.filter((i) => i.run.id < lastHeadId);
    const at = before.findIndex((i) => i.run.id === lastHeadId);
    if (at === -1) return [];
    const inHead = new Set(head.map((i) => i.run.id));
    return before.slice(at + 1).filter((i) => !inHead.has(i.run.id));
  }

  /** Moves the keyboard cursor by `delta` rows, clamped; returns the new index. */
  moveActive(delta: number): number {
    if (this.items.length === 0) return -1;
    const from = this.activeIndex === -1 ? (delta > 0 ? -1 : this.items.length) : this.activeIndex;
    const index = Math.min(Math.max(from + delta, 0), this.items.length - 1);
    this.activeId = this.items[index]?.run.id ?? null;
    return index;
  }

  itemById(runId: string): RunListItem | undefined {
    return this.items.find((i) => i.run.id === runId);
  }
}
