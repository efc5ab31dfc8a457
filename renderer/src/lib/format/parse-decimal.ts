/**
 * Strict decimal numbers for fields a person types: `12`, `-3.5`, `1e3`. `Number()` would also take `0x10`,
 * `0b11`, `Infinity` and a blank string (as 16, 3, ∞ and 0), which nobody means in a form.
 */
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** The number a field's text means, or null when it is not a plain decimal number. */
export function parseDecimal(text: string): number | null {
  const trimmed = text.trim();
  if (!DECIMAL.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}
