/**
 * How long each kind of text a runner or a person writes may be, in characters (UTF-16 units, as
 * JavaScript counts them). The store refuses longer text with VALIDATION and writes nothing, whoever
 * calls it; the CLI checks the same caps first so that its message names the flag.
 */
export const TEXT_CAPS = {
  title: 500,
  name: 300,
  key: 300,
  summary: 500,
  reason: 500,
  note: 2000,
  progress: 2000,
  detail: 2000,
  prompt: 10_000,
  body: 10_000,
  /** An answer or a default, as JSON text. */
  payload: 64 * 1024,
  /** The command line `exec` records (every argument together). */
  command: 64 * 1024,
} as const;

export type TextKind = keyof typeof TEXT_CAPS;

/** `text` cut to the cap of its kind, ending in "…" when cut: for text Runwarden composes itself. */
export function fitText(text: string, kind: TextKind): string {
  const cap = TEXT_CAPS[kind];
  return text.length <= cap ? text : `${text.slice(0, cap - 1)}…`;
}
