/**
 * Untrusted text made inert before it reaches a terminal or a window — one set of rules for a command's
 * output (docs/RUN-OUTPUT.md#safety) and for the fields anyone can write that the CLI shows (titles,
 * answers, folder names: docs/CLI.md#output-hygiene).
 * - Escape sequences (cursor moves, OSC titles, links and clipboard writes, DCS, …) are removed from output;
 *   colour (SGR) may be kept for a renderer that turns it into classes, never into markup.
 * - Other control characters become a space.
 * - Bidi controls and invisible characters (zero-width spaces and joiners, the byte-order mark, the soft
 *   hyphen) are made visible as `<U+202E>`: text must read as what it is. The window and desktop
 *   notifications show them the same way (`showInvisible`, docs/WINDOW.md#text-from-runs).
 */

// Bidi embeddings, overrides, isolates and marks, plus invisible characters that hide text.
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
// oxlint-disable-next-line no-control-regex
const CONTROLS_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
// oxlint-disable-next-line no-control-regex
const CONTROLS_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]+/g;

/** `<U+202E>` for an invisible or bidi character. */
function visible(char: string): string {
  return `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * Text shown as text (the window's elements, a notification): only the bidi and invisible characters are
 * made visible as `<U+202E>`, so a right-to-left override in a folder name cannot make it read reversed.
 * For display only: a value sent back (a choice answered) keeps its characters.
 */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, visible);
}

/** One line of untrusted text: every control (newlines too) becomes a space; bidi controls become visible. */
export function sanitizeLine(text: string): string {
  return text.replace(CONTROLS_LINE, ' ').replace(INVISIBLE, visible);
}

/** Multi-line untrusted text: keeps newlines and tabs, neutralises every other control. */
export function sanitizeText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u2028\u2029]/g, '\n')
    .replace(CONTROLS_TEXT, ' ')
    .replace(INVISIBLE, visible);
}

// CSI (7-bit and 8-bit), OSC (to BEL or ST, or to the end when unterminated), DCS/SOS/PM/APC strings,
// then any other ESC-introduced sequence. Order matters: the generic ESC form comes last.
const SEQUENCE =
  // oxlint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]?|\u009b[0-?]*[ -/]*[@-~]?|\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u009d[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;
// oxlint-disable-next-line no-control-regex
const SGR = /^\u001b\[[0-9;:]*m$/;
// C0 and C1 controls except tab, and the line separators.
// oxlint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_CHAR = new RegExp(`^${CONTROL.source}$`);
// What starts a sequence on its own: removed, not shown as a space.
// oxlint-disable-next-line no-control-regex
const SEQUENCE_START = /^[\u001b\u0090\u0098\u009b\u009d\u009e\u009f]$/;
const ANY = new RegExp(`${SEQUENCE.source}|${CONTROL.source}`, 'g');

export interface NeutraliseOptions {
  /** Keep SGR colour sequences (for a renderer that maps them to classes); default false. */
  keepColour?: boolean;
}

/**
 * One line of output as a terminal would leave it, made inert: text before the last carriage return is
 * dropped (a progress bar's earlier states), escape sequences are removed (SGR kept only when asked),
 * other control characters become spaces, bidi and invisible characters visible.
 */
export function neutraliseLine(text: string, options: NeutraliseOptions = {}): string {
  const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
  const lastReturn = trimmed.lastIndexOf('\r');
  const shown = lastReturn === -1 ? trimmed : trimmed.slice(lastReturn + 1);
  const keep = options.keepColour === true;
  // One pass, so the ESC of a kept colour sequence is never taken for a lone control character.
  const inert = shown.replace(ANY, (match) => {
    if (match.length === 1 && CONTROL_CHAR.test(match) && !SEQUENCE_START.test(match)) return ' ';
    return keep && SGR.test(match) ? match : '';
  });
  return inert.replace(INVISIBLE, visible);
}
