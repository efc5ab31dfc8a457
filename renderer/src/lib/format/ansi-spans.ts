/**
 * A log line for the window (docs/RUN-OUTPUT.md#safety): colour through anser's JSON output, turned into
 * text spans with class names from a fixed list; never HTML from the data. Every other escape sequence
 * and control character is neutralised first.
 */
import Anser from 'anser';
import { neutraliseLine } from '$shared/terminal-text';

export interface LogSpan {
  text: string;
  /** Space-separated class names, each from the fixed set below. */
  classes: string;
}

const COLOURS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
const NAMED = new Set(COLOURS.flatMap((c) => [`ansi-${c}`, `ansi-bright-${c}`]));
const DECORATIONS = new Set(['bold', 'dim', 'italic', 'underline', 'strikethrough']);

/** anser's colour name, or a palette index 0–15, as one of our classes; other colours stay default. */
function colourClass(name: string | null, layer: 'fg' | 'bg'): string | null {
  if (name === null) return null;
  const palette = /^ansi-palette-(\d+)$/.exec(name);
  if (palette !== null) {
    const index = Number(palette[1]);
    if (index > 15) return null;
    const colour = COLOURS[index % 8] as string;
    return `ansi-${index >= 8 ? 'bright-' : ''}${colour}-${layer}`;
  }
  return NAMED.has(name) ? `${name}-${layer}` : null;
}

export function logSpans(raw: string): LogSpan[] {
  const clean = neutraliseLine(raw, { keepColour: true });
  if (!clean.includes('\u001b')) return [{ text: clean, classes: '' }];
  const spans: LogSpan[] = [];
  for (const entry of Anser.ansiToJson(clean, { use_classes: true, remove_empty: true })) {
    const classes = [
      colourClass(entry.fg, 'fg'),
      colourClass(entry.bg, 'bg'),
      ...entry.decorations.filter((d) => DECORATIONS.has(d)).map((d) => `ansi-${d}`),
    ].filter((c): c is string => c !== null);
    // What anser leaves is text; neutralised again in case it kept any control character.
    spans.push({ text: neutraliseLine(entry.content), classes: classes.join(' ') });
  }
  return spans;
}

/** The text of a line as a person reads it (search, copy): no escape sequences at all. */
export function logPlainText(raw: string): string {
  return neutraliseLine(raw);
}
