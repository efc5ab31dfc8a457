/** A desktop entry's Exec line read back as the Desktop Entry Specification says a session reads it. */
/** The string layer of a desktop entry value: `\s`, `\n`, `\t`, `\r`, `\\` read left to right. */
function unescapeString(value: string): string {
  const codes: Record<string, string> = { s: ' ', n: '\n', t: '\t', r: '\r', '\\': '\\' };
  return value.replace(/\\(.)/g, (whole, char: string) => codes[char] ?? whole);
}

/** The Exec layer: arguments split on spaces, double-quoted ones unescaped; then `%%` → `%`, `%U` kept. */
export function execArguments(entry: string): string[] {
  const line = entry.split('\n').find((l) => l.startsWith('Exec='));
  if (line === undefined) throw new Error('no Exec line');
  const value = unescapeString(line.slice('Exec='.length));
  const args: string[] = [];
  let i = 0;
  while (i < value.length) {
    if (value[i] === ' ') {
      i++;
      continue;
    }
    let arg = '';
    if (value[i] === '"') {
      i++;
      while (value[i] !== '"') {
        if (i >= value.length) throw new Error('unterminated quote');
        if (value[i] === '\\' && '"`$\\'.includes(value[i + 1] ?? '')) i++;
        arg += value[i++];
      }
      i++;
    } else {
      // An unquoted argument may hold no reserved character.
      while (i < value.length && value[i] !== ' ') {
        if ('"\'\\><~|&;$*?#()`'.includes(value[i] ?? ''))
          throw new Error(`reserved character unquoted: ${value}`);
        arg += value[i++];
      }
    }
    args.push(arg.replace(/%(.)/g, (whole, code: string) => (code === '%' ? '%' : whole)));
  }
  return args;
}
