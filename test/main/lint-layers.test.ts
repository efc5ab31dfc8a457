/**
 * The layer rule (docs/ARCHITECTURE.md#parts: shared ← store ← services ← electron / serve / cli) is
 * enforced by `.oxlintrc.json`. These tests run oxlint with the repository's config on probe files in a
 * temporary tree, so a rule that stops biting fails here rather than going unnoticed.
 */
import { describe, expect, it } from 'vitest';
import { lintProbe as lint, type LintFinding as Finding } from '../helpers/lint-probe';

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

  it('keeps the renderer on its aliases: no main/, no Node, no import climbing with ../', () => {
    const findings = lint({
      'renderer/src/lib/state/probe.ts': [
        "import { visibleText } from '../format/visible-text';",
        "import { RUN_VIEWS } from '../../../../shared/views';",
        "import { openStore } from '$lib/../../../main/store/open-store';",
        "import { readFileSync } from 'node:fs';",
        "import { relativeAge } from '$lib/format/time-format';",
        "import { isTerminalRunStatus } from '$shared/domain';",
        "import { toDraft } from './settings-draft';",
        'export { visibleText, RUN_VIEWS, openStore, readFileSync, relativeAge, isTerminalRunStatus, toDraft };',
        '',
      ].join('\n'),
    });
    expect(lines(findings, 'renderer/src/lib/state/probe.ts')).toEqual([1, 2, 3, 4]);
  });
});
