import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  OFFLINE_PRELOAD,
  parseFailures,
  parseReport,
  reportIsWhole,
  verdict,
} from '../../../scripts/security-scan.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const CSV = `issue, severity, confidence, filename, location, sample, description, url
CSP_GLOBAL_CHECK,"LOW","FIRM","renderer/index.html","3:0","default-src 'none'; style-src 'self' 'unsafe-inline'","One or more CSP directives detected seems to be vulnerable",https://github.com/doyensec/electronegativity/wiki/CSP_GLOBAL_CHECK
CONTEXT_ISOLATION_JS_CHECK,"HIGH","FIRM","main/index.js","581:16","new BrowserWindow(opts)","Review the use of the contextIsolation option, with a ""quoted"" word, and a comma",https://git.io/Jeu1p
`;

describe('scripts/security-scan.js helpers', () => {
  it('parses the Electronegativity CSV report, quotes and all', () => {
    expect(parseReport(CSV)).toEqual([
      {
        check: 'CSP_GLOBAL_CHECK',
        severity: 'LOW',
        confidence: 'FIRM',
        file: 'renderer/index.html',
        location: '3:0',
        description: 'One or more CSP directives detected seems to be vulnerable',
      },
      {
        check: 'CONTEXT_ISOLATION_JS_CHECK',
        severity: 'HIGH',
        confidence: 'FIRM',
        file: 'main/index.js',
        location: '581:16',
        description: 'Review the use of the contextIsolation option, with a "quoted" word, and a comma',
      },
    ]);
    expect(parseReport('')).toEqual([]);
  });

  it('fails on a HIGH finding', () => {
    const findings = parseReport(CSV);
    expect(verdict(findings, [])).toEqual({
      ok: false,
      counts: { HIGH: 1, MEDIUM: 0, LOW: 1, INFORMATIONAL: 0 },
      unreadable: 0,
    });
    expect(verdict(findings.slice(0, 1), []).ok).toBe(true);
  });

  it('fails when the scanner could not parse a file (its checks then ran blind)', () => {
    const failures = parseFailures(
      'Starting scan...\nError parsing /tmp/x/out/main/index.js - Unknown node type ClassPrivateProperty.\nFetching…',
    );
    expect(failures).toEqual([
      { file: '/tmp/x/out/main/index.js', error: 'Unknown node type ClassPrivateProperty.' },
    ]);
    expect(verdict([], failures).ok).toBe(false);
  });

  it('treats a torn report (header written over the first row) as unreadable, never as clean', () => {
    expect(reportIsWhole(CSV)).toBe(true);
    const torn = CSV.replace(
      /\n[A-Z_]+_CHECK,"[A-Z]+","[A-Z]+","[^"]*","/,
      '\n parse CSP, it may not be valid.",',
    );
    expect(reportIsWhole(torn)).toBe(false);
    const findings = parseReport(torn);
    expect(verdict(findings, []).ok).toBe(false);
  });
});

describe('the scan gates CI', () => {
  it('keeps the scanner off the network: every `got` request fails at once, so it writes its report offline', () => {
    const probe = `
      const got = require('got');
      const seen = [];
      Promise.allSettled([got('https://example.invalid/x.json', { timeout: { request: 1000 } }), got.head('https://example.invalid')])
        .then((results) => console.log(JSON.stringify(results.map((r) => r.status + ':' + (r.reason && r.reason.message)))));
    `;
    const result = spawnSync(process.execPath, ['-e', probe], {
      env: { ...process.env, NODE_OPTIONS: `--require=${JSON.stringify(OFFLINE_PRELOAD)}` },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      'rejected:offline: the security scan makes no network requests',
      'rejected:offline: the security scan makes no network requests',
    ]);
  });

  it('.ci/run fetches no scanner: the settings it checks are pinned by security-checklist.test.ts, which npm test runs', () => {
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    const commands = ci.split('\n').filter((line) => !line.trimStart().startsWith('#'));
    expect(commands.join('\n')).not.toMatch(/security-scan|electronegativity/);
    expect(commands).toContain('npm test');
    expect(
      readFileSync(join(root, 'test', 'main', 'electron', 'security-checklist.test.ts'), 'utf8'),
    ).toMatch(/contextIsolation|sandbox/);
  });
});
