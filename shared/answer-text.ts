/**
 * An answer (or a question's default) in the question's own terms, for a person: a decision's choice as
 * written, a form's values by their field labels ("TTL: 300 · Purge cache: yes"), anything else as JSON.
 * The window and `runwarden show` use it alike (docs/WINDOW.md#answering).
 */
import type { Interaction } from './domain';

export function answerInTerms(interaction: Pick<Interaction, 'kind' | 'fields'>, value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  const fields = interaction.fields ?? [];
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && fields.length > 0) {
    const record = value as Record<string, unknown>;
    const known = new Set(fields.map((f) => f.name));
    const parts = fields
      .filter((f) => Object.hasOwn(record, f.name))
      .map((f) => `${f.label ?? f.name}: ${plain(record[f.name])}`);
    for (const [name, v] of Object.entries(record)) if (!known.has(name)) parts.push(`${name}: ${plain(v)}`);
    return parts.length === 0 ? 'nothing filled in' : parts.join(' · ');
  }
  return JSON.stringify(value);
}

function plain(value: unknown): string {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  if (value === null || value === undefined || value === '') return '(empty)';
  if (typeof value === 'string') return value;
  // A multi-select choice: the picked options in order.
  if (Array.isArray(value) && value.length === 0) return '(none)';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(', ');
  return JSON.stringify(value);
}
