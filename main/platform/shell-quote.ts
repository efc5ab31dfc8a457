/**
 * Commands the CLI prints for a person to paste (`show`'s Next section): each argument
 * quoted for a POSIX shell, so a choice like `$(touch marker)` is passed as text and never run.
 * Arguments holding characters a terminal would act on or hide (controls, bidi) are not printable
 * safely at all; `pasteableArg` says so and callers print a `--json` form with those characters escaped.
 */
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;
const UNPRINTABLE =
  // oxlint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

/** One argument, single-quoted unless it is plainly safe bare; `'` is written as `'\''`. */
export function shellQuote(arg: string): string {
  if (BARE.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A whole command line from its arguments. */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/** Whether `arg` can be printed as itself (no control or invisible characters). */
export function pasteableArg(arg: string): boolean {
  return !UNPRINTABLE.test(arg);
}

/** A JSON value as one shell argument, with every unprintable character escaped inside the JSON. */
export function jsonArg(value: unknown): string {
  // Per UTF-16 unit (no `u` flag): astral characters become a valid surrogate-pair escape.
  const ascii = JSON.stringify(value).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return shellQuote(ascii);
}
