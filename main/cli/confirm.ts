/**
 * A yes/no question on the terminal, for bulk actions over more than a few runs. Only asked when both
 * stdin and stderr are a terminal: a script (no TTY) is never prompted and never hangs.
 */

export function canPrompt(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** True when the person typed y or yes. */
export async function confirm(question: string): Promise<boolean> {
  // Loaded here, not with the CLI: only a bulk action over many runs ever asks.
  const { createInterface } = process.getBuiltinModule('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}
