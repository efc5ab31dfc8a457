/**
 * Bulk cancel / resume / retry: a dry run lists what would happen to each run, then the person confirms —
 * typing the count when the batch is large.
 */
import type { RunwardenApi } from '$shared/contract';
import type { ErrorInfo } from '$shared/errors';
import type { BulkAction, BulkResult } from '$shared/views';
import { bulkDefaultReason } from '$lib/format/consequences';

/** Above this many runs the person types the count to confirm. */
export const BULK_TYPE_THRESHOLD = 5;

export type BulkPhase = 'closed' | 'previewing' | 'preview' | 'running' | 'done';

export class BulkDialogState {
  action = $state<BulkAction | null>(null);
  items = $state.raw<Array<{ runId: string; expectedRevision: number }>>([]);
  /** The title of each run as the person saw it when picking it: runs that leave the list stay named. */
  titles = $state.raw<ReadonlyMap<string, string>>(new Map());
  reason = $state('');
  typed = $state('');
  phase = $state<BulkPhase>('closed');
  preview = $state.raw<BulkResult | null>(null);
  result = $state.raw<BulkResult | null>(null);
  error = $state.raw<ErrorInfo | null>(null);

  /** Cancel requests sent to the live runs the dry run refused, with what came of each. */
  requested = $state.raw<Array<{ runId: string; ok: boolean; message: string }>>([]);
  requesting = $state(false);

  readonly isOpen = $derived(this.phase !== 'closed');
  /** Selected runs the action will not touch (the dry run refused them). */
  readonly skipped = $derived(this.preview === null ? 0 : this.items.length - this.preview.succeeded);
  /** Runs a live runner holds: a cancel is refused for them, a cooperative request is offered instead. */
  readonly live = $derived(
    this.action === 'cancel' && this.preview !== null
      ? this.preview.items.filter((i) => !i.ok && i.code === 'LIVE_OWNER')
      : [],
  );
  /** How many runs the confirm button acts on: those the dry run accepted, not every one selected. */
  readonly actsOn = $derived(this.preview?.succeeded ?? 0);
  readonly requiresTyping = $derived(this.actsOn > BULK_TYPE_THRESHOLD);
  readonly canConfirm = $derived(
    this.phase === 'preview' &&
      this.preview !== null &&
      this.preview.succeeded > 0 &&
      this.reason.trim() !== '' &&
      (!this.requiresTyping || this.typed.trim() === String(this.actsOn)),
  );
  /**
   * What the dialog lists: the dry run, then the real results with the runs the dry run refused kept beside
   * them (with their reason), so nothing selected silently drops out of the list.
   */
  readonly shown = $derived.by((): BulkResult | null => {
    if (this.result === null) return this.preview;
    const refused = (this.preview?.items ?? []).filter((i) => !i.ok);
    const acted = new Set(this.result.items.map((i) => i.runId));
    const kept = refused.filter((i) => !acted.has(i.runId));
    return {
      ...this.result,
      failed: this.result.failed + kept.length,
      items: [...this.result.items, ...kept],
    };
  });

  readonly #api: RunwardenApi;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  async open(
    action: BulkAction,
    items: Array<{ runId: string; expectedRevision: number }>,
    titles: ReadonlyMap<string, string> = new Map(),
  ): Promise<void> {
    if (items.length === 0) return;
    this.action = action;
    this.items = items;
    this.titles = titles;
    this.reason = bulkDefaultReason(action);
    this.typed = '';
    this.preview = null;
    this.result = null;
    this.error = null;
    this.requested = [];
    await this.dryRun();
  }

  async dryRun(): Promise<void> {
    const action = this.action;
    if (action === null) return;
    this.phase = 'previewing';
    const result = await this.#api.bulkAction({
      action,
      items: this.items,
      dryRun: true,
      reason: this.reason.trim() || bulkDefaultReason(action),
    });
    if (this.action !== action) return;
    this.phase = 'preview';
    if (result.ok) {
      this.preview = result.value;
      this.error = null;
    } else this.error = result.error;
  }

  /** Runs the action for real on the items the dry run accepted. */
  async confirm(): Promise<BulkResult | null> {
    const action = this.action;
    const preview = this.preview;
    if (action === null || preview === null || !this.canConfirm) return null;
    const accepted = new Set(preview.items.filter((i) => i.ok).map((i) => i.runId));
    this.phase = 'running';
    const result = await this.#api.bulkAction({
      action,
      items: this.items.filter((i) => accepted.has(i.runId)),
      dryRun: false,
      reason: this.reason.trim(),
    });
    this.phase = 'done';
    if (!result.ok) {
      this.error = result.error;
      return null;
    }
    this.result = result.value;
    return result.value;
  }

  /** Asks each live runner the dry run refused to stop at its next check (the cooperative cancel). */
  async requestCancelLive(): Promise<void> {
    if (this.requesting || this.live.length === 0) return;
    const reason = this.reason.trim() || bulkDefaultReason('cancel');
    const revisions = new Map(this.items.map((i) => [i.runId, i.expectedRevision]));
    this.requesting = true;
    const done: Array<{ runId: string; ok: boolean; message: string }> = [];
    for (const item of this.live) {
      const result = await this.#api.requestCancel({
        runId: item.runId,
        expectedRevision: revisions.get(item.runId) ?? 0,
        reason,
      });
      done.push(
        result.ok
          ? { runId: item.runId, ok: true, message: 'Cancel requested: the runner stops at its next check.' }
          : { runId: item.runId, ok: false, message: result.error.message },
      );
    }
    this.requested = done;
    this.requesting = false;
  }

  /** A run's title as seen when picked, else null (the dialog then asks the list). */
  titleOf(runId: string): string | null {
    return this.titles.get(runId) ?? null;
  }

  close(): void {
    this.requested = [];
    this.titles = new Map();
    this.phase = 'closed';
    this.action = null;
    this.items = [];
    this.preview = null;
    this.result = null;
    this.error = null;
  }
}
