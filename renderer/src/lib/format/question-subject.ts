/**
 * What a waiting question is about, short enough for a list row (docs/WINDOW.md#needs-you): the command or
 * file an agent asks about, as code, first — so two sessions of the same agent never read the same — else
 * null, and the row keeps its reason line ("Waiting for an answer: <title>"). From the reason line the
 * display-status reducer gives a run waiting for one answer.
 */
export interface QuestionSubject {
  /** Words before the code ("Edit on"); empty for a command. */
  text: string;
  /** The command or file, shown as code. */
  code: string;
}

const WAITING = 'Waiting for an answer: ';

export function questionSubject(reason: string): QuestionSubject | null {
  if (!reason.startsWith(WAITING)) return null;
  const title = reason.slice(WAITING.length);
  const run = /^.+? wants to run: (.+)$/su.exec(title);
  if (run?.[1] !== undefined) return { text: '', code: run[1] };
  const use = /^.+? wants to use (.+?) on (.+)$/su.exec(title);
  if (use?.[1] !== undefined && use[2] !== undefined) return { text: `${use[1]} on`, code: use[2] };
  return null;
}

/**
 * The question itself, without "Waiting for an answer: ", for Needs you's "Why / next step" cell, where the
 * Answer… button and the group's header already say a question waits; null for any other reason.
 */
export function questionTitle(reason: string): string | null {
  return reason.startsWith(WAITING) ? reason.slice(WAITING.length) : null;
}
