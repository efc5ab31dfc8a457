/**
 * Functions under main/, shared/ and renderer/src/ are at most 80 lines: a longer one is split into
 * named phases, or says why it must stay whole in the comment that lets it (docs/CLI.md#how-a-command-reads).
 * `.oxlintrc.json` holds the rule; these tests run oxlint with it on probe files, so a rule that stops biting
 * fails here.
 */
import { describe, expect, it } from 'vitest';
import { lintProbe } from '../helpers/lint-probe';

const RULE = 'eslint(max-lines-per-function)';

/** A function of exactly `lines` lines (its signature and closing brace included), after `before`. */
function functionOf(lines: number, before = ''): string {
  const body = Array.from({ length: lines - 3 }, (_, i) => `  out.push(${i});`);
  return `${before}export function phase(out: number[]): number {\n${body.join('\n')}\n  return out.length;\n}\n`;
}

/** The files of `files` (path → source) the rule flags, linted with the repository's config. */
function flagged(files: Record<string, string>): string[] {
  return lintProbe(files)
    .filter((finding) => finding.code === RULE)
    .map((finding) => finding.file)
    .sort();
}

describe('function size in the app, the CLI and the window', () => {
  it('flags a function of 81 lines in each layer, and none of 80', () => {
    const long = [
      'main/cli/commands/long.ts',
      'main/electron/long.ts',
      'main/runner/long.ts',
      'main/serve/long.ts',
      'main/services/long.ts',
      'main/store/long.ts',
      'renderer/src/lib/state/long.ts',
      'shared/long.ts',
    ];
    expect(
      flagged({
        ...Object.fromEntries(long.map((file) => [file, functionOf(81)])),
        'main/cli/commands/fits.ts': functionOf(80),
        'main/store/fits.ts': functionOf(80),
      }),
    ).toEqual(long.sort());
  });

  it('lets a longer function stay whole when the comment above it says why', () => {
    const why =
      '// oxlint-disable-next-line max-lines-per-function -- the order of these steps is the point\n';
    expect(flagged({ 'main/runner/kept.ts': functionOf(120, why) })).toEqual([]);
  });
});
