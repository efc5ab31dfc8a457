/**
 * The open run's output (docs/RUN-OUTPUT.md#reading): its latest lines, then what comes after them each
 * time the host pushes `log` for this run (a watch on the log file) or `changed` (the run ended, or was
 * claimed again under a new generation). No timer and no polling loop: reads happen only on pushes.
 */
import type { RunwardenApi } from '$shared/contract';
import type { ErrorInfo } from '$shared/errors';
import type { LogRecord, RunLogPage } from '$shared/views';
import { logPlainText } from '$lib/format/ansi-spans';

/** Lines read when a run opens, and the most kept while following (older ones scroll away). */
export const LOG_TAIL = 500;
export const LOG_KEEP = 5_000;

export class RunLogState {
  runId = $state<string | null>(null);
  /** Null: the latest log of the run. */
  generation = $state<number | null>(null);
  page = $state.raw<RunLogPage | null>(null);
  records = $state.raw<LogRecord[]>([]);
  error = $state.raw<ErrorInfo | null>(null);
  search = $state('');

  /** Records whose text (without escape sequences) contains the search, case-insensitively. */
  readonly shown = $derived.by(() => {
    const needle = this.search.trim().toLowerCase();
    if (needle === '') return this.records;
    return this.records.filter(
      (r) => r.stream !== 'gap' && logPlainText(r.text).toLowerCase().includes(needle),
    );
  });

  readonly #api: RunwardenApi;
  #unsubscribe: Array<() => void> = [];
  #token = 0;
  #reading = false;
  #again = false;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  /** Starts showing a run's log and following it. */
  open(runId: string, generation: number | null = null): void {
    if (this.#unsubscribe.length === 0) {
      this.#unsubscribe = [
        this.#api.on('log', (push) => {
          if (push.runId === this.runId) void this.#readNew();
        }),
        this.#api.on('changed', (push) => {
          if (push.runIds.length === 0 || (this.runId !== null && push.runIds.includes(this.runId)))
            void this.#readNew();
        }),
      ];
    }
    if (this.runId === runId && this.generation === generation && this.page !== null) return;
    this.#token += 1;
    this.runId = runId;
    this.generation = generation;
    this.page = null;
    this.records = [];
    this.error = null;
    void this.#read(true);
  }

  close(): void {
    this.#token += 1;
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribe = [];
    this.runId = null;
  }

  /** Plain text of what is shown, one line per record, for the clipboard. */
  shownText(): string {
    return this.shown
      .map((r) => `${new Date(r.at).toISOString()} ${r.stream} ${logPlainText(r.text)}`)
      .join('\n');
  }

  async #readNew(): Promise<void> {
    if (this.runId === null) return;
    // One read at a time; pushes during a read ask for one more after it.
    if (this.#reading) {
      this.#again = true;
      return;
    }
    await this.#read(this.page === null);
  }

  async #read(fresh: boolean): Promise<void> {
    const runId = this.runId;
    if (runId === null) return;
    const token = this.#token;
    this.#reading = true;
    try {
      const previous = this.page;
      // A new claim's log replaces the old one when following the latest.
      const sameLog = !fresh && previous !== null && previous.generation !== null;
      const result = await this.#api.getRunLog({
        runId,
        ...(this.generation !== null && { generation: this.generation }),
        ...(sameLog ? { afterSeq: previous.lastSeq } : { tail: LOG_TAIL }),
      });
      if (token !== this.#token) return;
      if (!result.ok) {
        this.error = result.error;
        return;
      }
      this.error = null;
      const page = result.value;
      const switched = previous !== null && page.generation !== previous.generation;
      if (sameLog && switched) {
        // The run was claimed again: start over on its new log.
        this.page = null;
        this.#again = true;
        return;
      }
      const merged = sameLog && !page.reset ? [...this.records, ...page.records] : page.records;
      this.records = merged.length > LOG_KEEP ? merged.slice(-LOG_KEEP) : merged;
      this.page = page;
    } finally {
      this.#reading = false;
      if (this.#again && token === this.#token) {
        this.#again = false;
        void this.#read(this.page === null);
      }
    }
  }

  async openFile(): Promise<ErrorInfo | null> {
    if (this.runId === null) return null;
    const result = await this.#api.openRunLog({
      runId: this.runId,
      ...(this.page?.generation !== null &&
        this.page?.generation !== undefined && { generation: this.page.generation }),
    });
    return result.ok ? null : result.error;
  }
}
