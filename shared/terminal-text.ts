/**
 * A command's output is untrusted text (docs/RUN-OUTPUT.md#safety): before it reaches a window or a terminal,
 * every escape sequence (cursor moves, OSC titles and links, DCS, …) and every other control character is
 * neutralised. Colour (SGR) may be kept for a renderer that turns it into classes, never into markup.
 */

// CSI (7-bit and 8-bit), OSC (to BEL or ST, or to the end when unterminated), DCS/SOS/PM/APC strings,
// then any other ESC-introduced sequence. Order matters: the generic ESC form comes last.
const SEQUENCE =
  // oxlint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]?|\u009b[0-?]*[ -/]*[@-~]?|\u001b\][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u009d[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[PX^_][^\u001b\u009c]*(?:\u001b\\|\u009c)?|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u001b[ -/]*[0-~]?/g;
// oxlint-disable-next-line no-control-regex
const SGR = /^\u001b\[[0-9;:]*m$/;
// C0 and C1 controls except tab, plus the bidirectional overrides that reorder what a reader sees.
// oxlint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
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
 * other control characters become spaces.
 */
export function neutraliseLine(text: string, options: NeutraliseOptions = {}): string {
  const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
  const lastReturn = trimmed.lastIndexOf('\r');
  const visible = lastReturn === -1 ? trimmed : trimmed.slice(lastReturn + 1);
  const keep = options.keepColour === true;
  // One pass, so the ESC of a kept colour sequence is never taken for a lone control character.
  return visible.replace(ANY, (match) => {
    if (match.length === 1 && CONTROL_CHAR.test(match) && !SEQUENCE_START.test(match)) return ' ';
    return keep && SGR.test(match) ? match : '';
  });
}
