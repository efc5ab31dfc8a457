/**
 * Lints probe files with the repository's `.oxlintrc.json`, laid out under a temporary root, so a test can
 * show a lint rule still bites (test/main/lint-layers.test.ts, test/main/function-size-lint.test.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OXLINT = path.join(ROOT, 'node_modules/.bin/oxlint');

export interface LintFinding {
  file: string;
  line: number;
  code: string;
}

/** Every finding oxlint reports for `files` (path → source); the temporary tree is gone afterwards. */
export function lintProbe(files: Record<string, string>): LintFinding[] {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-lint-'));
  try {
    fs.copyFileSync(path.join(ROOT, '.oxlintrc.json'), path.join(tree, '.oxlintrc.json'));
    for (const [file, source] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
      fs.writeFileSync(path.join(tree, file), source);
    }
    const result = spawnSync(OXLINT, ['-c', '.oxlintrc.json', '--format', 'json', ...Object.keys(files)], {
      cwd: tree,
      encoding: 'utf8',
    });
    const report = JSON.parse(result.stdout) as {
      diagnostics: Array<{ filename: string; code: string; labels: Array<{ span: { line: number } }> }>;
    };
    return report.diagnostics.map((d) => ({
      file: d.filename,
      line: d.labels[0]?.span.line ?? 0,
      code: d.code,
    }));
  } finally {
    fs.rmSync(tree, { recursive: true, force: true });
  }
}
