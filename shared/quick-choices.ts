/**
 * What a question offers to be answered with one pick where it is seen (the tray's menu, the window's quick
 * answer, a notification's buttons): a decision's choices, or the options of a question whose only field is
 * a single choice. Anything more (several picks, several questions, text, the person's own words) is
 * answered in the run's own form, and each surface says why (docs/WINDOW.md#answering).
 */
import type { Interaction } from './domain';

export interface QuickChoice {
  /** What the answer carries: the choice or the option's label. */
  value: string;
  /** The option's description, when the asker gave one. */
  description: string | null;
}

export type QuickForm =
  | {
      kind: 'choices';
      /** The field a pick answers (the payload is `{[field]: value}`), or null for a decision. */
      field: string | null;
      choices: QuickChoice[];
      /** The field also takes the person's own words: that needs the run's form. */
      otherInWindow: boolean;
    }
  | {
      kind: 'window';
      /** Why: several picks of one choice, several questions (choice fields) in one, or other fields. */
      need: 'several-picks' | 'several-questions' | 'fields';
      /** How many fields the question has. */
      count: number;
    };

/** How the question can be answered with one pick, or why it needs the run's own form. */
export function quickForm(question: Pick<Interaction, 'choices' | 'fields'>): QuickForm {
  const choices = question.choices ?? [];
  if (choices.length > 0) {
    return {
      kind: 'choices',
      field: null,
      choices: choices.map((value) => ({ value, description: null })),
      otherInWindow: false,
    };
  }
  const fields = question.fields ?? [];
  const [only] = fields;
  if (
    fields.length === 1 &&
    only !== undefined &&
    only.type === 'choice' &&
    (only.options ?? []).length > 0
  ) {
    if (only.multi === true) return { kind: 'window', need: 'several-picks', count: 1 };
    return {
      kind: 'choices',
      field: only.name,
      choices: (only.options ?? []).map((o) => ({ value: o.label, description: o.description ?? null })),
      otherInWindow: only.allowOther === true,
    };
  }
  const count = fields.length;
  if (count > 1 && fields.every((f) => f.type === 'choice'))
    return { kind: 'window', need: 'several-questions', count };
  return { kind: 'window', need: 'fields', count };
}

/** The answer a pick sends: the choice itself, or the one field's value. */
export function quickPayload(field: string | null, value: string): unknown {
  return field === null ? value : { [field]: value };
}
