/**
 * The answer rules of a question, once for every runtime: what a runner may declare (choices, fields) and
 * whether an answer fits the declaration. The store enforces them on every answer and default; the
 * window's answer form uses the same per-field rule before the round trip
 * (docs/ARCHITECTURE.md#where-each-behaviour-lives).
 */
import type { FieldOption, FieldType, Interaction, InteractionField } from './domain';
import { TEXT_CAPS } from './text-caps';

export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean', 'choice'];
/** The most options one choice field may declare. */
export const MAX_FIELD_OPTIONS = 20;

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
        message: `Field ${f.name} has type ${String(f.type)}; use string, number, boolean or choice.`,
      };
    }
    seen.add(f.name);
    const one: InteractionField = { name: f.name, type: f.type as FieldType };
    if (typeof f.label === 'string') one.label = f.label;
    if (typeof f.required === 'boolean') one.required = f.required;
    if (one.type === 'choice') {
      const options = checkDeclaredOptions(f.name, f.options);
      if (!options.ok) return options;
      one.options = options.value;
      if (f.multi === true) one.multi = true;
      if (f.allowOther === true) one.allowOther = true;
    }
    out.push(one);
  }
  return { ok: true, value: out };
}

/** A choice field's options: 1–20, each a distinct non-empty label (or `{label, description}`). */
function checkDeclaredOptions(name: string, options: unknown): Declared<FieldOption[]> {
  const bad = (why: string): Declared<FieldOption[]> => ({ ok: false, message: `Field ${name}: ${why}` });
  if (!Array.isArray(options) || options.length === 0 || options.length > MAX_FIELD_OPTIONS)
    return bad(`a choice field needs from 1 to ${MAX_FIELD_OPTIONS} options.`);
  const seen = new Set<string>();
  const out: FieldOption[] = [];
  for (const option of options as unknown[]) {
    const o = typeof option === 'string' ? { label: option } : (option as Record<string, unknown> | null);
    const label = o?.label;
    if (typeof label !== 'string' || label.trim() === '' || seen.has(label))
      return bad('options must have distinct non-empty labels.');
    if (label.length > TEXT_CAPS.title)
      return bad(`an option's label is over ${TEXT_CAPS.title} characters.`);
    const description = o?.description;
    if (description !== undefined && typeof description !== 'string')
      return bad(`the description of ${label} is not a string.`);
    if (typeof description === 'string' && description.length > TEXT_CAPS.detail)
      return bad(`the description of ${label} is over ${TEXT_CAPS.detail} characters.`);
    seen.add(label);
    out.push(typeof description === 'string' && description !== '' ? { label, description } : { label });
  }
  return { ok: true, value: out };
}

/** Whether a present value has the field's type (a number must be finite). */
export function fitsFieldType(type: FieldType, value: unknown): boolean {
  return type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === type;
}

/** What is wrong with one field of an answer object, or null: the rule the store and the form share. */
export type FieldProblem = 'missing' | 'wrong-type' | 'not-an-option' | 'repeated' | 'two-own-answers';

export function fieldProblem(
  field: Pick<InteractionField, 'name' | 'type' | 'required' | 'options' | 'multi' | 'allowOther'>,
  values: Readonly<Record<string, unknown>>,
): FieldProblem | null {
  const has = Object.prototype.hasOwnProperty.call(values, field.name) && values[field.name] !== undefined;
  if (!has) return field.required === true ? 'missing' : null;
  if (field.type === 'choice') return choiceProblem(field, values[field.name]);
  return fitsFieldType(field.type, values[field.name]) ? null : 'wrong-type';
}

/**
 * A choice field's value: one option's label (or, with allowOther, the person's own non-blank words); with
 * multi, a list of distinct labels with at most one answer of the person's own among them.
 */
function choiceProblem(
  field: Pick<InteractionField, 'required' | 'options' | 'multi' | 'allowOther'>,
  value: unknown,
): FieldProblem | null {
  const labels = new Set((field.options ?? []).map((option) => option.label));
  const fits = (v: unknown): boolean =>
    typeof v === 'string' && (labels.has(v) || (field.allowOther === true && v.trim() !== ''));
  if (field.multi !== true)
    return typeof value !== 'string' ? 'wrong-type' : fits(value) ? null : 'not-an-option';
  if (!Array.isArray(value)) return 'wrong-type';
  if (value.length === 0) return field.required === true ? 'missing' : null;
  if (!value.every(fits)) return 'not-an-option';
  if (new Set(value).size !== value.length) return 'repeated';
  return value.filter((v) => !labels.has(v as string)).length > 1 ? 'two-own-answers' : null;
}

/** A field's problem in words, naming it as `name` ("Field replicas", or the form's label). */
export function fieldProblemText(
  field: Pick<InteractionField, 'type' | 'options' | 'multi' | 'allowOther'>,
  problem: FieldProblem,
  name: string,
): string {
  const labels = (field.options ?? []).map((option) => option.label).join(', ');
  const own = field.allowOther === true ? ', or your own words' : '';
  switch (problem) {
    case 'missing':
      return field.multi === true ? `${name}: pick at least one.` : `${name} is required.`;
    case 'wrong-type':
      if (field.type !== 'choice') return `${name} must be a ${field.type}.`;
      return field.multi === true
        ? `${name} must be a list of: ${labels}${own}.`
        : `${name} must be one of: ${labels}${own}.`;
    case 'not-an-option':
      return `${name} must be ${field.multi === true ? 'picked from' : 'one of'}: ${labels}${own}.`;
    case 'repeated':
      return `${name} lists the same answer twice.`;
    case 'two-own-answers':
      return `${name} takes one answer in your own words at most.`;
  }
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
    if (problem !== null) issues.push(fieldProblemText(field, problem, `Field ${field.name}`));
  }
  return issues;
}
