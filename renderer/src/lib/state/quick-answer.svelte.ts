/**
 * Answering a question where it shows up (a list row, the notifications panel) without opening the run. It
 * sends exactly what the detail form sends: the question's revision as seen (compare-and-set) and an
 * idempotency key kept across a lost connection, so a second press is adopted, not doubled (docs/WINDOW.md#answering).
 */
import type { RunwardenApi } from '$shared/contract';
import type { Interaction } from '$shared/domain';
import type { ErrorInfo } from '$shared/errors';
import { quickForm, quickPayload } from '$shared/quick-choices';
import { newIdempotencyKey } from '$lib/answer-form';
import { answerRefusalText } from './run-detail.svelte';

export type QuickAnswerOutcome = { ok: true; text: string } | { ok: false };

export class QuickAnswerState {
  runId = $state<string | null>(null);
  runTitle = $state('');
  /** The run's first open question, or null when it has none (answered meanwhile, or not a question). */
  interaction = $state.raw<Interaction | null>(null);
  loading = $state(false);
  sending = $state(false);
  /** Why the answer was refused, or why the question could not be read, in words. */
  problem = $state<string | null>(null);

  readonly isOpen = $derived(this.runId !== null);
  /**
   * What one pick answers here (a decision's choices, or the options of a question's one single-choice
   * field), or why the run's own form is needed (several picks or questions, fields, free text).
   */
  readonly form = $derived(this.interaction === null ? null : quickForm(this.interaction));
  readonly choices = $derived(this.form?.kind === 'choices' ? this.form.choices : null);

  readonly #api: RunwardenApi;
  #key = '';
  #keyFor = '';
  #generation = 0;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  /** Reads the question first and then shows the dialog, so it opens with focus on the first choice. */
  async open(runId: string, runTitle: string): Promise<void> {
    this.interaction = null;
    this.problem = null;
    this.runTitle = runTitle;
    await this.#load(runId);
  }

  /** Reads the run's questions; returns them all (null when the read failed or was superseded). */
  async #load(runId: string | null = this.runId): Promise<Interaction[] | null> {
    if (runId === null) return null;
    const generation = ++this.#generation;
    this.loading = true;
    const result = await this.#api.getRunDetail({ runId, eventsLimit: 1 });
    if (generation !== this.#generation) return null;
    this.loading = false;
    this.runId = runId;
    if (!result.ok) {
      this.problem = result.error.message;
      return null;
    }
    this.runTitle = result.value.snapshot.run.title;
    const open = result.value.snapshot.interactions
      .filter((i) => i.status === 'pending' || i.status === 'presenting')
      .toSorted((a, b) => a.createdAt - b.createdAt);
    this.interaction = open[0] ?? null;
    const key = this.interaction === null ? '' : `${this.interaction.id}@${this.interaction.revision}`;
    if (key !== this.#keyFor) {
      this.#keyFor = key;
      this.#key = newIdempotencyKey();
    }
    return result.value.snapshot.interactions;
  }

  /** Sends one choice; on a refusal the question is re-read and the reason kept in `problem`. */
  async answer(choice: string): Promise<QuickAnswerOutcome> {
    const interaction = this.interaction;
    const form = this.form;
    if (interaction === null || form?.kind !== 'choices' || this.sending) return { ok: false };
    if (!form.choices.some((c) => c.value === choice)) return { ok: false };
    const payload = quickPayload(form.field, choice);
    this.sending = true;
    this.problem = null;
    const result = await this.#api.answerInteraction({
      interactionId: interaction.id,
      interactionRevision: interaction.revision,
      idempotencyKey: this.#key,
      payload,
    });
    this.sending = false;
    if (result.ok) {
      this.#keyFor = '';
      const adopted = result.value.outcome === 'adopted';
      return {
        ok: true,
        text: `${adopted ? 'Answer already recorded' : 'Answered'} “${interaction.title}”: ${choice}.`,
      };
    }
    this.problem = refusalText(result.error, interaction);
    // A lost connection keeps the key, so pressing again is adopted rather than doubled.
    const lost = result.error.code === 'INTERNAL';
    if (!lost) this.#keyFor = '';
    const questions = await this.#load();
    // The answer got there and only its reply was lost: say it was recorded, not that it failed.
    const now = questions?.find((q) => q.id === interaction.id);
    if (
      lost &&
      now?.status === 'settled' &&
      now.provenance === 'human' &&
      sameAnswer(now.response, payload)
    ) {
      this.problem = null;
      return {
        ok: true,
        text: `Answer recorded “${interaction.title}”: ${choice} (the reply was lost on its way back).`,
      };
    }
    return { ok: false };
  }

  close(): void {
    this.#generation += 1;
    this.runId = null;
    this.interaction = null;
    this.problem = null;
    this.loading = false;
    this.sending = false;
  }
}

/** Whether the recorded response is the pick sent (a choice, or `{field: value}`). */
function sameAnswer(response: unknown, payload: unknown): boolean {
  return JSON.stringify(response) === JSON.stringify(payload);
}

function refusalText(error: ErrorInfo, interaction: Interaction): string {
  return answerRefusalText(error, interaction);
}
