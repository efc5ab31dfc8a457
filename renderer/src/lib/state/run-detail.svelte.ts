/**
 * The open run: its detail, and every command a person gives about it. A refused command (LIVE_OWNER,
 * STALE_VIEW, ...) is kept as `refusal` with its recovery, and the run is re-read (compare-and-set on the revision).
 */
import type { RunwardenApi } from '$shared/contract';
import type { RunAction } from '$shared/display-status';
import type { Effect, EffectResolution, Interaction, RunEvent } from '$shared/domain';
import type { ErrorInfo, Result } from '$shared/errors';
import type { RunDetail } from '$shared/views';
import { cascadeText } from '$lib/format/event-text';

export interface Refusal {
  /** What the person tried, in words ("Cancel run"). */
  what: string;
  error: ErrorInfo;
}

export interface CommandInput {
  reason: string;
  /**
   * The revision the person confirmed against (a dialog freezes it when it opens). Defaults to the
   * revision on screen now.
   */
  expectedRevision?: number;
}

/** Actions that run from the header (answer / resolve happen in their own sections). */
export type HeaderAction = Exclude<RunAction, 'answer' | 'resolveEffect'>;

const EVENTS_LIMIT = 500;

export class RunDetailState {
  runId = $state<string | null>(null);
  data = $state.raw<RunDetail | null>(null);
  loading = $state(false);
  loadError = $state.raw<ErrorInfo | null>(null);
  refusal = $state.raw<Refusal | null>(null);
  /** A short line on what a command did ("Cancelled (nothing else affected)."). */
  notice = $state<string | null>(null);
  /**
   * The notice's tone: an outcome that now needs a person ("1 applying effect became ambiguous") is a
   * warning, not a success (docs/WINDOW.md#commands-and-retry).
   */
  noticeTone = $state<'success' | 'warning'>('success');
  /** Per-interaction answer refusals, kept across reloads so "already answered" stays visible. */
  answerErrors = $state.raw<Record<string, ErrorInfo>>({});
  busy = $state(false);
  /** Events older than the first page, loaded on request (newest first, like the pages). */
  olderEvents = $state.raw<RunEvent[]>([]);
  /** Cursor for the next older page once one was loaded; null means "ask the first page's cursor". */
  #olderCursor = $state<number | null>(null);
  loadingOlder = $state(false);

  /** Every loaded event, newest first, each once (a reload may overlap the older pages). */
  readonly events = $derived.by(() => {
    const first = this.data?.events ?? [];
    const oldestFirstPage = first.at(-1)?.seq ?? Number.POSITIVE_INFINITY;
    return [...first, ...this.olderEvents.filter((e) => e.seq < oldestFirstPage)];
  });
  readonly hasOlderEvents = $derived(
    this.olderEvents.length > 0 ? this.#olderCursor !== null : (this.data?.nextEventsCursor ?? null) !== null,
  );

  readonly #api: RunwardenApi;
  #generation = 0;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  /** Opens a run (no-op when it is already open). */
  async open(runId: string): Promise<void> {
    if (this.runId === runId && (this.data !== null || this.loading)) return;
    this.runId = runId;
    this.data = null;
    this.olderEvents = [];
    this.#olderCursor = null;
    this.refusal = null;
    this.notice = null;
    this.answerErrors = {};
    await this.reload();
  }

  close(): void {
    this.#generation += 1;
    this.runId = null;
    this.data = null;
    this.loading = false;
    this.loadError = null;
    this.refusal = null;
    this.notice = null;
    this.answerErrors = {};
  }

  /** Loads the next page of older events into the timeline. */
  async loadOlderEvents(): Promise<void> {
    const runId = this.runId;
    const cursor = this.olderEvents.length > 0 ? this.#olderCursor : (this.data?.nextEventsCursor ?? null);
    if (runId === null || cursor === null || this.loadingOlder) return;
    this.loadingOlder = true;
    const result = await this.#api.getRunDetail({ runId, eventsLimit: EVENTS_LIMIT, eventsBefore: cursor });
    this.loadingOlder = false;
    if (this.runId !== runId || !result.ok) return;
    this.olderEvents = [...this.olderEvents, ...result.value.events];
    this.#olderCursor = result.value.nextEventsCursor;
  }

  /** Re-reads the open run. */
  async reload(): Promise<void> {
    const runId = this.runId;
    if (runId === null) return;
    const generation = ++this.#generation;
    this.loading = true;
    const result = await this.#api.getRunDetail({ runId, eventsLimit: EVENTS_LIMIT });
    if (generation !== this.#generation) return;
    this.loading = false;
    if (result.ok) {
      this.data = result.value;
      this.loadError = null;
      if (this.olderEvents.length > 0) await this.#joinOlderEvents(runId, generation);
    } else {
      this.loadError = result.error;
      if (result.error.code === 'NOT_FOUND') this.data = null;
    }
  }

  /**
   * New events pushed the first page's window up: fetch what now lies between it and the older pages already
   * loaded, so the timeline never has a hole. If too much happened in between, start the older pages over.
   */
  async #joinOlderEvents(runId: string, generation: number): Promise<void> {
    const firstOldest = this.data?.events.at(-1)?.seq;
    const olderNewest = this.olderEvents[0]?.seq;
    if (firstOldest === undefined || olderNewest === undefined || firstOldest <= olderNewest) return;
    const gap = await this.#api.getRunDetail({ runId, eventsLimit: 1000, eventsBefore: firstOldest });
    if (generation !== this.#generation || !gap.ok) return;
    const between = gap.value.events.filter((e) => e.seq > olderNewest);
    const reachedOlder = between.length < gap.value.events.length || gap.value.nextEventsCursor === null;
    if (reachedOlder) this.olderEvents = [...between, ...this.olderEvents];
    else {
      this.olderEvents = [];
      this.#olderCursor = null;
    }
  }

  #revision(): number | null {
    return this.data?.snapshot.run.revision ?? null;
  }

  async #command<T>(
    what: string,
    call: () => Promise<Result<T>>,
    describe: (value: T) => string,
    needsPerson: (value: T) => boolean = () => false,
  ) {
    const runId = this.runId;
    this.busy = true;
    this.refusal = null;
    this.notice = null;
    const result = await call();
    this.busy = false;
    // The person moved to another run while this one answered: its result must not show there.
    if (this.runId !== runId) return result;
    if (result.ok) {
      this.notice = describe(result.value);
      this.noticeTone = needsPerson(result.value) ? 'warning' : 'success';
    } else this.refusal = { what, error: result.error };
    await this.reload();
    return result;
  }

  /** Runs one header action with the revision on screen. */
  async run(action: HeaderAction, input: CommandInput): Promise<Result<unknown> | null> {
    const runId = this.runId;
    const expectedRevision = input.expectedRevision ?? this.#revision();
    if (runId === null || expectedRevision === null) return null;
    const base = { runId, expectedRevision };
    const reason = input.reason.trim();
    switch (action) {
      case 'cancel':
        return this.#command(
          'Cancel run',
          () => this.#api.cancelRun({ ...base, reason }),
          (v) =>
            v.cascade.effectsAmbiguous > 0
              ? `Cancelled, and it needs you: ${cascadeText(v.cascade)}. Resolve ${v.cascade.effectsAmbiguous === 1 ? 'it' : 'them'} before retrying.`
              : `Cancelled: ${cascadeText(v.cascade)}.`,
          (v) => v.cascade.effectsAmbiguous > 0,
        );
      case 'requestCancel':
        return this.#command(
          'Request cancel',
          () => this.#api.requestCancel({ ...base, reason }),
          () => 'Cancel requested: the runner stops at its next heartbeat.',
        );
      case 'requestPause':
        return this.#command(
          'Request pause',
          () => this.#api.requestPause({ ...base, reason }),
          () => 'Pause requested: the runner parks at its next heartbeat.',
        );
      case 'pause':
        return this.#command(
          'Pause',
          () => this.#api.pauseRun({ ...base, reason }),
          () => 'Paused.',
        );
      case 'resume':
      case 'resumeAnyway':
        return this.#command(
          action === 'resume' ? 'Resume' : 'Resume anyway',
          () =>
            this.#api.resumeRun({
              ...base,
              anyway: action === 'resumeAnyway',
              ...(reason !== '' && { reason }),
            }),
          () => 'Resumed: the run is queued again.',
        );
      case 'retry':
        return this.#command(
          'Retry',
          () => this.#api.retryRun(base),
          (run) => `Retried as a new run ${run.id}.`,
        );
      case 'stopCommand':
        return this.#command(
          'Stop the command',
          () => this.#api.stopCommand({ ...base, reason }),
          (v) =>
            `Stopping the command: SIGTERM sent to process group ${v.commandPgid ?? v.commandPid}; SIGKILL follows if it is still there after ${Math.round(v.graceMs / 1000)} s.`,
        );
    }
  }

  /** Asks the store what a stale cancel would do (shown in the confirmation). */
  previewCancel() {
    const runId = this.runId;
    if (runId === null) return Promise.resolve(null);
    return this.#api.previewCancel({ runId });
  }

  /** Submits an answer; the idempotency key comes from the form so a retry of the same answer is adopted. */
  async answer(interaction: Interaction, payload: unknown, idempotencyKey: string): Promise<boolean> {
    const runId = this.runId;
    this.busy = true;
    const result = await this.#api.answerInteraction({
      interactionId: interaction.id,
      interactionRevision: interaction.revision,
      idempotencyKey,
      payload,
    });
    this.busy = false;
    if (this.runId !== runId) return result.ok;
    const { [interaction.id]: _dropped, ...rest } = this.answerErrors;
    if (result.ok) {
      this.answerErrors = rest;
      this.noticeTone = 'success';
      this.notice =
        result.value.outcome === 'adopted' ? 'Answer already recorded (same submission).' : 'Answer sent.';
    } else {
      this.answerErrors = { ...rest, [interaction.id]: result.error };
    }
    await this.reload();
    return result.ok;
  }

  /** Records whether an ambiguous effect happened, with the person's note. */
  async resolveEffect(effect: Effect, resolution: EffectResolution, note: string) {
    const expectedRevision = this.#revision();
    if (expectedRevision === null) return null;
    const machine = /^([a-z][a-z0-9-]{0,31}):/.exec(this.runId ?? '')?.[1];
    return this.#command(
      'Resolve effect',
      () =>
        this.#api.resolveEffect({
          effectId: effect.id,
          expectedRevision,
          resolution,
          note,
          // Another machine's run (NAME:ID): its effect is resolved there (docs/REMOTES.md#in-the-window).
          ...(machine !== undefined && { machine }),
        }),
      (e) => `Recorded: "${e.summary}" ${resolution === 'applied' ? 'happened' : 'did not happen'}.`,
    );
  }

  dismissRefusal(): void {
    this.refusal = null;
  }
}

/** "Already answered" when a refusal says the question is settled, else the store's own words. */
export function answerRefusalText(error: ErrorInfo, current: Interaction | null): string {
  const fresh = error.fresh;
  const freshStatus =
    typeof fresh === 'object' && fresh !== null && 'status' in fresh ? (fresh as Interaction).status : null;
  const status = freshStatus ?? current?.status ?? null;
  if (status === 'settled') return `Already answered. ${error.message}`;
  if (status === 'cancelled') return `This question was cancelled. ${error.message}`;
  if (status === 'expired') return `This question expired. ${error.message}`;
  return error.message;
}
