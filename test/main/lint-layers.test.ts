/**
 * The layer rule (docs/ARCHITECTURE.md#parts: shared ← store ← services ← electron / serve / cli) is
 * enforced by `.oxlintrc.json`. These tests run oxlint with the repository's config on probe files in a
 * temporary tree, so a rule that stops biting fails here rather than going unnoticed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OXLINT = path.join(ROOT, 'node_modules/.bin/oxlint');

let tree: string | null = null;
afterEach(() => {
  if (tree !== null) fs.rmSync(tree, { recursive: true, force: true });
  tree = null;
});

interface Finding {
  file: string;
  line: number;
  code: string;
}

/** Lints `files` (path → source) laid out under a temporary root with the repository's config. */
function lint(files: Record<string, string>): Finding[] {
  tree = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-lint-'));
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
}

const RESTRICTED = 'eslint(no-restricted-imports)';

function lines(findings: Finding[], file: string): number[] {
  return findings
    .filter((f) => f.file === file && f.code === RESTRICTED)
    .map((f) => f.line)
    .sort((a, b) => a - b);
}

const UPWARD = [
  "import { createAppHost } from '../services/app-host';",
  "import * as services from '../services';",
  "import { runApp } from '../electron/app-lifecycle';",
  "import { startHttpServer } from '../serve/http-server';",
  "import { main } from '../cli/main';",
  "import { startRun } from '../runner/run-session';",
  "import { logsDirOf } from '../logs/log-files';",
  "import { RunwardenError } from '../../shared/errors';",
  'export { createAppHost, services, runApp, startHttpServer, main, startRun, logsDirOf, RunwardenError };',
  '',
].join('\n');

describe('layer rule in .oxlintrc.json', () => {
  it('refuses an import of services, a shell, the CLI or the runner from main/store', () => {
    const findings = lint({
      'main/store/probe.ts': UPWARD,
      // The three boundary files have their own override: it keeps the layer rule.
      'main/store/open-connection.ts': UPWARD,
      'main/store/migrations/0099-probe.ts': UPWARD.replaceAll("'../", "'../../"),
    });
    expect(lines(findings, 'main/store/probe.ts')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines(findings, 'main/store/open-connection.ts')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines(findings, 'main/store/migrations/0099-probe.ts')).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('refuses an import of a shell or the CLI from main/services, not of the store or the runner', () => {
    const findings = lint({
      'main/services/probe.ts': UPWARD.replace("'../services/app-host'", "'../store'"),
    });
    expect(lines(findings, 'main/services/probe.ts')).toEqual([3, 4, 5]);
  });

  it('lets the store import the logs and shared', () => {
    const findings = lint({
      'main/store/probe.ts': [
        "import { logsDirOf } from '../logs/log-files';",
        "import { RunwardenError } from '../../shared/errors';",
        'export { logsDirOf, RunwardenError };',
        '',
      ].join('\n'),
    });
    expect(findings.filter((f) => f.code === RESTRICTED)).toEqual([]);
  });
});
