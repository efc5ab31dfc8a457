/**
 * The CLI's guard for everything it shows a person (docs/CLI.md#output-hygiene): `sanitizeLine` and
 * `sanitizeText` for a field (shared/terminal-text.ts: the rules the log viewer uses too), and
 * `sanitizeTerminal`, the guard every chunk of the CLI's own streams passes through, which keeps only the
 * colour sequences the CLI paints itself, and only when colour is on.
 */
import { sanitizeLine, sanitizeText } from '../../shared/terminal-text';

export { sanitizeLine, sanitizeText };

// Exactly the colour sequences `painter` writes (bold, dim, six colours and their resets): nothing that
// conceals text, sets a background or moves anything.
// oxlint-disable-next-line no-control-regex
const SGR = /\u001b\[(?:1|2|22|3[1-6]|39)m/g;

/**
 * A whole chunk of output: sanitizeText, except the CLI's own colour sequences when `colour` is on (with
 * colour off, as for a pipe or NO_COLOR, no escape sequence at all passes).
 */
export function sanitizeTerminal(chunk: string, colour = true): string {
  if (!colour) return sanitizeText(chunk);
  let out = '';
  let last = 0;
  for (const match of chunk.matchAll(SGR)) {
    out += sanitizeText(chunk.slice(last, match.index));
    out += match[0];
    last = match.index + match[0].length;
  }
  return out + sanitizeText(chunk.slice(last));
}

/**
 * JSON for machine output that stays byte-for-byte inert on a terminal: JSON.stringify already escapes
 * C0 controls; this also escapes DEL, C1, line separators and the invisible characters above, so the
 * parsed value is unchanged but nothing in the text acts on a terminal that shows it.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
