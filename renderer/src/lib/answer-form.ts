/**
 * The answer form of an interaction, built from its declared choices or fields. It checks each answer with
 * the same rules the store enforces (shared/answer-rules.ts), in the form's own words, before the round trip.
 */
import { fieldProblem, fieldProblemText, isDeclaredChoice } from '$shared/answer-rules';
import type { FieldOption, FieldType, Interaction, InteractionField } from '$shared/domain';
import { typedValue } from '$shared/answer-value';

/**
 * A choice field's draft: the options ticked (one at most for a single choice), whether "Other" is ticked,
 * and the person's own words typed beside it.
 */
export interface ChoiceDraft {
  picked: string[];
  otherOn: boolean;
  otherText: string;
}

/** The draft after ticking (or unticking) one option, or Other (`option` null). */
export function toggleChoice(
  field: Pick<FormField, 'multi'>,
  draft: ChoiceDraft,
  option: string | null,
  on: boolean,
): ChoiceDraft {
  if (field.multi !== true) {
    // A single choice: one of the options or Other, never both.
    if (!on) return draft;
    return option === null
      ? { ...draft, picked: [], otherOn: true }
      : { ...draft, picked: [option], otherOn: false };
  }
  if (option === null) return { ...draft, otherOn: on };
  const rest = draft.picked.filter((label) => label !== option);
  return { ...draft, picked: on ? [...rest, option] : rest };
}

/** The draft after typing own words: typing ticks Other (for a single choice, in place of an option). */
export function typeOther(field: Pick<FormField, 'multi'>, draft: ChoiceDraft, text: string): ChoiceDraft {
  const ticked = toggleChoice(field, draft, null, true);
  return { ...ticked, otherText: text };
}

export type FieldValue = string | boolean | ChoiceDraft;

export interface FormField {
  name: string;
  type: FieldType;
  label: string;
  required: boolean;
  /** The value the input starts with (from the interaction's default when it has one). */
  initial: FieldValue;
  /** A choice field's options, whether several may be picked, and whether own words are taken. */
  options?: FieldOption[];
  multi?: boolean;
  allowOther?: boolean;
}

/**
 * A question's form: a decision's declared choices, or an input's declared fields. The store refuses a
 * decision without choices and an input without fields (shared/answer-rules.ts), so there is no third form.
 */
export type AnswerFormModel =
  { mode: 'choices'; choices: string[]; initial: string | null } | { mode: 'fields'; fields: FormField[] };

function defaultRecord(interaction: Interaction): Record<string, unknown> {
  const d = interaction.defaultResponse;
  return interaction.hasDefault && typeof d === 'object' && d !== null && !Array.isArray(d)
    ? (d as Record<string, unknown>)
    : {};
}

/** One declared field as the form shows it, starting from the question's default when it has one. */
function formField(f: InteractionField, d: unknown): FormField {
  const options = f.type === 'choice' ? (f.options ?? []) : [];
  const initial: FieldValue =
    f.type === 'choice'
      ? choiceDraft(options, d)
      : f.type === 'boolean'
        ? d === true
        : typeof d === 'string' || typeof d === 'number'
          ? String(d)
          : '';
  const field: FormField = {
    name: f.name,
    type: f.type,
    label: f.label ?? f.name,
    required: f.required ?? false,
    initial,
  };
  if (f.type !== 'choice') return field;
  return { ...field, options, multi: f.multi === true, allowOther: f.allowOther === true };
}

/** The form to show for an interaction. */
export function answerFormModel(interaction: Interaction): AnswerFormModel {
  if (interaction.choices !== null && interaction.choices.length > 0) {
    const d = interaction.defaultResponse;
    const initial =
      interaction.hasDefault && typeof d === 'string' && interaction.choices.includes(d) ? d : null;
    return { mode: 'choices', choices: interaction.choices, initial };
  }
  const defaults = defaultRecord(interaction);
  return { mode: 'fields', fields: (interaction.fields ?? []).map((f) => formField(f, defaults[f.name])) };
}

export type AnswerCheck = { ok: true; payload: unknown } | { ok: false; errors: Record<string, string> };

/** Checks a choice answer. */
export function checkChoice(model: { choices: string[] }, choice: string | null): AnswerCheck {
  if (!isDeclaredChoice(model.choices, choice)) return { ok: false, errors: { choice: 'Pick one.' } };
  return { ok: true, payload: choice };
}

/** A choice field's draft from a value (its default): the options it names, the rest as own words. */
function choiceDraft(options: readonly FieldOption[], value: unknown): ChoiceDraft {
  const values = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  const labels = new Set(options.map((o) => o.label));
  const picked = values.filter((v): v is string => typeof v === 'string' && labels.has(v));
  const own = values.find((v): v is string => typeof v === 'string' && !labels.has(v));
  return { picked, otherOn: own !== undefined, otherText: own ?? '' };
}

/**
 * A choice field's value from its draft: the picked label (a single choice), or the picked labels in the
 * options' order with the own words last (a multi-select, as Claude Code's own dialog orders them); undefined
 * when nothing is picked. Own words ticked but left blank are an error of their own.
 */
function choiceValue(field: FormField, draft: ChoiceDraft): { value?: unknown; error?: string } {
  const own = draft.otherOn ? draft.otherText.trim() : null;
  if (own === '') return { error: `${field.label}: write your own answer, or untick Other.` };
  if (field.multi !== true) return { value: own ?? draft.picked[0] };
  const picked = (field.options ?? []).map((o) => o.label).filter((label) => draft.picked.includes(label));
  const all = own === null ? picked : [...picked, own];
  return { value: all.length === 0 && !field.required ? undefined : all };
}

/** Checks field values and builds the payload object (numbers parsed, empty optional fields left out). */
export function checkFields(fields: readonly FormField[], values: Record<string, FieldValue>): AnswerCheck {
  const errors: Record<string, string> = {};
  const payload: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = values[field.name] ?? field.initial;
    const text = typeof raw === 'string' ? raw.trim() : '';
    // What the person typed, as the value the store will check: an empty text field is left out. A number
    // is a plain decimal, read as `runwarden answer` reads it (shared/answer-value.ts).
    if (field.type === 'choice') {
      const draft = typeof raw === 'object' ? raw : { picked: [], otherOn: false, otherText: '' };
      const { value, error } = choiceValue(field, draft);
      if (error !== undefined) {
        errors[field.name] = error;
        continue;
      }
      if (value !== undefined) payload[field.name] = value;
    } else if (field.type === 'boolean') payload[field.name] = raw === true;
    else if (text !== '' && field.type === 'number') {
      const typed = typedValue('number', text, field.label);
      if (!typed.ok) {
        errors[field.name] = typed.message;
        continue;
      }
      payload[field.name] = typed.value;
    } else if (text !== '') payload[field.name] = raw;
    const problem = fieldProblem(field, payload);
    if (problem !== null) errors[field.name] = fieldProblemText(field, problem, field.label);
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, payload };
}

/** Shows a JSON answer value as short plain text. */
export function answerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** A fresh idempotency key for one answer attempt (kept across retries of the same submission). */
export function newIdempotencyKey(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
