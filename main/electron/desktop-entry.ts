/**
 * One argument of a desktop entry's `Exec` key, written as the Desktop Entry Specification reads it back
 * (section "The Exec key"), for the entries the app writes itself: the XDG autostart entry and the AppImage's
 * `runwarden://` handler. The value goes through two layers, and each gets its own escaping:
 *
 * 1. Quoting (the Exec layer): the argument in double quotes, with `"`, `` ` ``, `$` and `\` preceded by a
 *    backslash; a literal `%` doubled, since `%` starts a field code.
 * 2. The string layer (every `string` value of a desktop entry): a backslash is written `\\`. This layer is
 *    undone first, so one backslash of the path becomes four in the file, as the Desktop Entry Specification says.
 *
 * A line break cannot be part of a key's value: such a path is refused.
 */
export function desktopExecArg(arg: string): string {
  if (/[\r\n]/.test(arg)) throw new Error('a desktop entry cannot hold a path with a line break');
  const quoted = `"${arg.replace(/(["`$\\])/g, '\\$1').replace(/%/g, '%%')}"`;
  return quoted.replace(/\\/g, '\\\\');
}
