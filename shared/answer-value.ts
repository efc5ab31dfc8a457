/**
 * A typed answer's value from the text a person typed, once for every surface: the window's answer form and
 * Settings, and `runwarden answer ID VALUE` (docs/CLI.md#answering). A number is a plain decimal (`12`,
 * `-3.5`, `1e3`): `Number()` would also take `0x10`, `0b11`, `Infinity` and a blank string (as 16, 3, ∞ and
 * 0), which nobody means when answering.
 */
import type { FieldType } from './domain';

const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** The number a text means, or null when it is not a plain decimal number. */
export function parseDecimal(text: string): number | null {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

export type TypedValue = { ok: true; value: string | number | boolean } | { ok: false; message: string };

/**
 * A field's value from typed text: a string (or one choice) as typed, a number as a plain decimal, a boolean as `true` or
 * `false`. The message names the field by `label`.
 */
export function typedValue(type: FieldType, text: string, label: string): TypedValue {
  switch (type) {
    case 'string':
    case 'choice':
      // A choice's text is checked against its options by the question's rules (answer-rules.ts).
      return { ok: true, value: text };
    case 'number': {
      const value = parseDecimal(text);
      return value === null ? { ok: false, message: `${label} must be a number.` } : { ok: true, value };
    }
    case 'boolean':
      return text === 'true' || text === 'false'
        ? { ok: true, value: text === 'true' }
        : { ok: false, message: `${label} must be true or false.` };
  }
}
