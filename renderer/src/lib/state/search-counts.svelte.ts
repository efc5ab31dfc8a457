/**
 * The view tabs' counts while a search is active: how many of the runs it matches each view holds (the store
 * counts them, search-counts.ts). Without a search the tabs use the project counts instead.
 */
import type { RunwardenApi } from '$shared/contract';
import type { StatusCounts } from '$shared/views';

export interface SearchQuery {
  search: string;
  projectPath: string | null;
}

export class SearchCountsState {
  /** The counts of `query`, once they arrived; null while there is no search or before its first answer. */
  counts = $state.raw<StatusCounts | null>(null);
  needsYou = $state(0);
  /** More runs matched than the store counted: every number is a lower bound (shown as "20,000+"). */
  capped = $state(false);
  query = $state.raw<SearchQuery | null>(null);

  readonly #api: RunwardenApi;
  /** This window's key for the host: its counts supersede only its own (other windows' are not touched). */
  readonly #key = `search-counts-${Math.random().toString(36).slice(2, 12)}`;
  #generation = 0;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  /**
   * Counts for a search; an empty search clears them. Answers to older queries are dropped. `settleMs`: ask
   * only if no newer search came within that long (typing: a word still being typed is not counted).
   */
  async load(query: SearchQuery, settleMs = 0): Promise<void> {
    const generation = ++this.#generation;
    const search = query.search.trim();
    if (search === '') {
      this.query = null;
      this.counts = null;
      return;
    }
    const sameQuery =
      this.query !== null && this.query.search === search && this.query.projectPath === query.projectPath;
    if (!sameQuery) this.counts = null;
    this.query = { search, projectPath: query.projectPath };
    if (settleMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, settleMs));
      if (generation !== this.#generation) return;
    }
    const result = await this.#api.getAttention({
      limit: 0,
      search,
      ...(query.projectPath !== null && { projectPath: query.projectPath }),
      // The host counts one search at a time: our newer count replaces our older one while it waits.
      supersede: this.#key,
    });
    if (generation !== this.#generation || !result.ok) return;
    this.counts = result.value.counts;
    this.needsYou = result.value.needsYou;
    this.capped = result.value.capped === true;
  }
}
