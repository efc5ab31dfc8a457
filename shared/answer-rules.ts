/**
 * The answer rules of a question, once for every runtime: what a runner may declare (choices, fields) and
 * whether an answer fits the declaration. The store enforces them on every answer and default; the
 * window's answer form uses the same per-field rule before the round trip
 * (docs/ARCHITECTURE.md#where-each-behaviour-lives).
 */
import type { FieldType, Interaction, InteractionField } from './domain';

export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean'];

export type Declared<T> = { ok: true; value: T } | { ok: false; message: string };

/** A decision's choices: a non-empty list of distinct non-empty strings. */
export function checkDeclaredChoices(choices: unknown): Declared<string[]> {
  if (!Array.isArray(choices) || choices.length === 0) {
    return { ok: false, message: 'A decision needs a non-empty list of choices.' };
  }
  const seen = new Set<string>();
  for (const choice of choices) {
    if (typeof choice !== 'string' || choice === '' || seen.has(choice)) {
      return { ok: false, message: 'Choices must be distinct non-empty strings.' };
    }
    seen.add(choice);
  }
  return { ok: true, value: [...(choices as string[])] };
}

/** An input's fields: distinct names, a known type each; label and required kept when well-typed. */
export function checkDeclaredFields(fields: unknown): Declared<InteractionField[]> {
  if (!Array.isArray(fields) || fields.length === 0) {
    return { ok: false, message: 'An input interaction needs a non-empty list of fields.' };
  }
  const seen = new Set<string>();
  const out: InteractionField[] = [];
  for (const field of fields as unknown[]) {
    if (typeof field !== 'object' || field === null)
      return { ok: false, message: 'Each field is an object.' };
    const f = field as Record<string, unknown>;
    if (typeof f.name !== 'string' || f.name === '' || seen.has(f.name)) {
      return { ok: false, message: 'Field names must be distinct non-empty strings.' };
    }
    if (!FIELD_TYPES.includes(f.type as FieldType)) {
      return {
        ok: false,
        message: `Field ${f.name} has type ${String(f.type)}; use string, number or boolean.`,
      };
    }
    seen.add(f.name);
    const one: InteractionField = { name: f.name, type: f.type as FieldType };
    if (typeof f.label === 'string') one.label = f.label;
    if (typeof f.required === 'boolean') one.required = f.required;
    out.push(one);
  }
  return { ok: true, value: out };
}

/** Whether a present value has the field's type (a number must be finite). */
export function fitsFieldType(type: FieldType, value: unknown): boolean {
  return type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === type;
}

/** What is wrong with one field of an answer object, or null: the rule the store and the form share. */
export type FieldProblem = 'missing' | 'wrong-type';

export function fieldProblem(
  field: Pick<InteractionField, 'name' | 'type' | 'required'>,
  values: Readonly<Record<string, unknown>>,
): FieldProblem | null {
  const has = Object.prototype.hasOwnProperty.call(values, field.name) && values[field.name] !== undefined;
  if (!has) return field.required === true ? 'missing' : null;
  return fitsFieldType(field.type, values[field.name]) ? null : 'wrong-type';
}

/** Whether `choice` is one of a decision's choices. */
export function isDeclaredChoice(choices: readonly string[] | null, choice: unknown): choice is string {
  return typeof choice === 'string' && (choices ?? []).includes(choice);
}

/** Problems with a response, one line each; empty when it fits the declared choices / fields. */
export function responseIssues(
  interaction: Pick<Interaction, 'kind' | 'choices' | 'fields'>,
  payload: unknown,
): string[] {
  if (interaction.kind === 'decision') {
    return isDeclaredChoice(interaction.choices, payload)
      ? []
      : [`The answer must be one of: ${(interaction.choices ?? []).join(', ')}.`];
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return ['The answer must be an object with the declared fields.'];
  }
  const issues: string[] = [];
  const values = payload as Record<string, unknown>;
  const fields = interaction.fields ?? [];
  const names = new Set(fields.map((f) => f.name));
  for (const key of Object.keys(values)) {
    if (!names.has(key)) issues.push(`Unknown field ${key}.`);
  }
  for (const field of fields) {
    const problem = fieldProblem(field, values);
    if (problem === 'missing') issues.push(`Field ${field.name} is required.`);
    if (problem === 'wrong-type') issues.push(`Field ${field.name} must be a ${field.type}.`);
  }
  return issues;
}
