/**
 * The answer form of an interaction, built from its declared choices or fields. It checks each answer with
 * the same rules the store enforces (shared/answer-rules.ts), in the form's own words, before the round trip.
 */
import { fieldProblem, isDeclaredChoice } from '../../../shared/answer-rules';
import type { FieldType, Interaction } from '../../../shared/domain';
import { typedValue } from '../../../shared/answer-value';

export type FieldValue = string | boolean;

export interface FormField {
  name: string;
  type: FieldType;
  label: string;
  required: boolean;
  /** The value the input starts with (from the interaction's default when it has one). */
  initial: FieldValue;
}

export type AnswerFormModel =
  | { mode: 'choices'; choices: string[]; initial: string | null }
  | { mode: 'fields'; fields: FormField[] }
  | { mode: 'text'; initial: string };

function defaultRecord(interaction: Interaction): Record<string, unknown> {
  const d = interaction.defaultResponse;
  return interaction.hasDefault && typeof d === 'object' && d !== null && !Array.isArray(d)
    ? (d as Record<string, unknown>)
    : {};
}

/** The form to show for an interaction. */
export function answerFormModel(interaction: Interaction): AnswerFormModel {
  if (interaction.choices !== null && interaction.choices.length > 0) {
    const d = interaction.defaultResponse;
    const initial =
      interaction.hasDefault && typeof d === 'string' && interaction.choices.includes(d) ? d : null;
    return { mode: 'choices', choices: interaction.choices, initial };
  }
  if (interaction.fields !== null && interaction.fields.length > 0) {
    const defaults = defaultRecord(interaction);
    return {
      mode: 'fields',
      fields: interaction.fields.map((f) => {
        const d = defaults[f.name];
        const initial: FieldValue =
          f.type === 'boolean' ? d === true : typeof d === 'string' || typeof d === 'number' ? String(d) : '';
        return {
          name: f.name,
          type: f.type,
          label: f.label ?? f.name,
          required: f.required ?? false,
          initial,
        };
      }),
    };
  }
  const d = interaction.defaultResponse;
  return { mode: 'text', initial: interaction.hasDefault && typeof d === 'string' ? d : '' };
}

export type AnswerCheck = { ok: true; payload: unknown } | { ok: false; errors: Record<string, string> };

/** Checks a choice answer. */
export function checkChoice(model: { choices: string[] }, choice: string | null): AnswerCheck {
  if (!isDeclaredChoice(model.choices, choice)) return { ok: false, errors: { choice: 'Pick one.' } };
  return { ok: true, payload: choice };
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
    if (field.type === 'boolean') payload[field.name] = raw === true;
    else if (text !== '' && field.type === 'number') {
      const typed = typedValue('number', text, field.label);
      if (!typed.ok) {
        errors[field.name] = typed.message;
        continue;
      }
      payload[field.name] = typed.value;
    } else if (text !== '') payload[field.name] = raw;
    const problem = fieldProblem(field, payload);
    if (problem === 'missing') errors[field.name] = `${field.label} is required.`;
    if (problem === 'wrong-type') errors[field.name] = `${field.label} must be a ${field.type}.`;
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, payload };
}

/** Checks a free-text answer. */
export function checkText(text: string): AnswerCheck {
  return text.trim() === ''
    ? { ok: false, errors: { text: 'Write an answer.' } }
    : { ok: true, payload: text };
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
