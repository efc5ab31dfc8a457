/** Projects with their per-status counts, plus the global counts for the views. */
import type { RunwardenApi } from '$shared/contract';
import type { ErrorInfo } from '$shared/errors';
import type { ProjectSummary, StatusCounts } from '$shared/views';

export class ProjectsState {
  projects = $state.raw<ProjectSummary[]>([]);
  counts = $state.raw<StatusCounts>({});
  needsYou = $state(0);
  filter = $state('');
  error = $state.raw<ErrorInfo | null>(null);
  /** The project list has been read once: before that, no path can be called unknown. */
  loaded = $state(false);

  readonly visible = $derived.by(() => {
    const needle = this.filter.trim().toLowerCase();
    if (needle === '') return this.projects;
    return this.projects.filter(
      (p) => p.canonicalPath.toLowerCase().includes(needle) || p.name.toLowerCase().includes(needle),
    );
  });

  readonly #api: RunwardenApi;
  /** An older answer landing late is dropped: loads for the list, loads and pushed counts for the counts. */
  #loads = 0;
  #counts = 0;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  async load(): Promise<void> {
    const load = ++this.#loads;
    const counts = ++this.#counts;
    const [projects, attention] = await Promise.all([
      this.#api.listProjects({}),
      this.#api.getAttention({ limit: 1 }),
    ]);
    if (load !== this.#loads) return;
    if (projects.ok) {
      this.projects = projects.value;
      this.loaded = true;
    }
    if (attention.ok && counts === this.#counts) {
      this.counts = attention.value.counts;
      this.needsYou = attention.value.needsYou;
    }
    this.error = !projects.ok ? projects.error : !attention.ok ? attention.error : null;
  }

  /** Counts from an `attention` push, without a round trip. */
  applyAttention(counts: StatusCounts, needsYou: number): void {
    this.#counts += 1;
    this.counts = counts;
    this.needsYou = needsYou;
  }

  /** A project path no run in this store was started in (a link to a project that is not here). */
  isUnknown(path: string | null): boolean {
    return path !== null && this.loaded && this.byPath(path) === undefined;
  }

  byPath(path: string | null): ProjectSummary | undefined {
    return path === null ? undefined : this.projects.find((p) => p.canonicalPath === path);
  }
}
