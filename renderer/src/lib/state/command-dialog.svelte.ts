/** The confirmation for one run's command: target, consequences from the store, and a reason. */
import type { Run } from '$shared/domain';
import type { ErrorInfo } from '$shared/errors';
import type { CancelPreview } from '$shared/views';
import type { Result } from '$shared/errors';
import { commandConsequences, defaultReason, retryConsequences } from '$lib/format/consequences';
import type { HeaderAction, RunDetailState } from './run-detail.svelte';

export class CommandDialogState {
  action = $state<HeaderAction | null>(null);
  target = $state.raw<Run | null>(null);
  preview = $state.raw<CancelPreview | null>(null);
  previewError = $state.raw<ErrorInfo | null>(null);
  reason = $state('');
  submitting = $state(false);
  /** The run revision when the dialog opened: the consequences shown are about that state (the store compares revisions). */
  revision = $state<number | null>(null);
  /** A retry's lines are about the run as it was when the dialog opened. */
  retryLines = $state.raw<string[]>([]);

  readonly isOpen = $derived(this.action !== null);
  readonly consequences = $derived(
    this.action === null
      ? []
      : this.action === 'retry'
        ? this.retryLines
        : commandConsequences(this.action, this.preview),
  );
  readonly reasonRequired = $derived(
    this.action !== null && this.action !== 'resume' && this.action !== 'retry',
  );
  readonly canConfirm = $derived(
    this.action !== null && !this.submitting && (!this.reasonRequired || this.reason.trim() !== ''),
  );

  readonly #detail: RunDetailState;

  constructor(detail: RunDetailState) {
    this.#detail = detail;
  }

  /** Opens the dialog for the open run; a cancel first asks the store what it would cascade to. */
  async open(action: HeaderAction): Promise<void> {
    const data = this.#detail.data;
    if (data === null) return;
    this.action = action;
    this.target = data.snapshot.run;
    this.revision = data.snapshot.run.revision;
    this.reason = defaultReason(action, data.display);
    this.preview = null;
    this.previewError = null;
    this.retryLines = action === 'retry' ? retryConsequences(data) : [];
    if (action === 'cancel') {
      const result = await this.#detail.previewCancel();
      if (this.action !== action || result === null) return;
      if (result.ok) this.preview = result.value;
      else this.previewError = result.error;
    }
  }

  close(): void {
    this.action = null;
    this.target = null;
    this.revision = null;
    this.preview = null;
    this.previewError = null;
    this.submitting = false;
  }

  /** Sends the command; the dialog closes either way and a refusal shows on the run. */
  async confirm(): Promise<{ action: HeaderAction; result: Result<unknown> | null } | null> {
    const action = this.action;
    if (action === null || !this.canConfirm) return null;
    this.submitting = true;
    const result = await this.#detail.run(action, {
      reason: this.reason,
      ...(this.revision !== null && { expectedRevision: this.revision }),
    });
    this.close();
    return { action, result };
  }
}
