/**
 * Answering a question from outside the window (a tray menu item, a notification button). The answer takes
 * the window's own path: the `interactions:answer` channel through the host's dispatcher, with the
 * question's revision as the compare-and-set and an idempotency key per (question, revision, choice), so a
 * second click on the same choice is adopted, not recorded twice, and a click on a question that moved on
 * is refused by the store. The question leaves the tray at once; it comes back only if the store refused.
 */
import type { ErrorInfo, Result } from '../../shared/errors';
import { quickPayload } from '../../shared/quick-choices';

export interface QuickAnswer {
  runId: string;
  interactionId: string;
  /** The revision the person saw: the store refuses the answer if the question changed since. */
  revision: number;
  /** The question's one choice field the pick answers; absent or null for a decision's choice. */
  field?: string | null;
  choice: string;
  /** The choice's position among the question's choices (keeps the key short and exact). */
  index: number;
}

export type AnswerDispatch = (
  channel: 'interactions:answer',
  input: { interactionId: string; interactionRevision: number; idempotencyKey: string; payload: unknown },
) => Promise<Result<unknown>>;

export interface QuickAnswersDeps {
  dispatch: AnswerDispatch;
  /** Something the tray shows changed (a question hidden or shown again). */
  changed(): void;
  /** The store refused or the call failed: tell the person (the question is back in the menu). */
  failed(answer: QuickAnswer, error: ErrorInfo): void;
  /** The store recorded it (or adopted a repeat). */
  answered?(answer: QuickAnswer): void;
}

export interface QuickAnswers {
  answer(answer: QuickAnswer): Promise<boolean>;
  /** Questions answered here that the store's next summary may still list: not shown again. */
  readonly hidden: ReadonlySet<string>;
  /** Forget hidden questions the store no longer lists as open. */
  reconcile(openInteractionIds: Iterable<string>): void;
}

/** The idempotency key of one choice of one revision of one question. */
export function quickAnswerKey(answer: Pick<QuickAnswer, 'interactionId' | 'revision' | 'index'>): string {
  return `quick:${answer.interactionId}:r${answer.revision}:c${answer.index}`;
}

const UNEXPECTED: ErrorInfo = {
  code: 'INTERNAL',
  message: 'The answer could not be sent; nothing was recorded.',
};

export function createQuickAnswers(deps: QuickAnswersDeps): QuickAnswers {
  const hidden = new Set<string>();
  return {
    hidden,
    async answer(answer) {
      hidden.add(answer.interactionId);
      deps.changed();
      let result: Result<unknown>;
      try {
        result = await deps.dispatch('interactions:answer', {
          interactionId: answer.interactionId,
          interactionRevision: answer.revision,
          idempotencyKey: quickAnswerKey(answer),
          payload: quickPayload(answer.field ?? null, answer.choice),
        });
      } catch {
        result = { ok: false, error: UNEXPECTED };
      }
      if (result.ok) {
        deps.answered?.(answer);
        return true;
      }
      hidden.delete(answer.interactionId);
      deps.changed();
      deps.failed(answer, result.error);
      return false;
    },
    reconcile(openInteractionIds) {
      const open = new Set(openInteractionIds);
      for (const id of hidden) if (!open.has(id)) hidden.delete(id);
    },
  };
}
