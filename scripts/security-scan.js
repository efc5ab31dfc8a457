#!/usr/bin/env node
/**
 * Electron security scan of the built app with Doyensec's Electronegativity (heavy and no longer
 * maintained, so it runs through `npx -y` and is never a dependency). Fails on any HIGH finding, and on any file the
 * scanner could not parse (an unparsed file is an unscanned file, and its checks then report false "missing"
 * findings).
 *
 *   npm run build && node scripts/security-scan.js
 *
 * Electronegativity 1.10.3's parser predates class private fields and other ES2022 syntax, so it scans a copy of
 * out/ whose JavaScript is lowered to ES2019 (same code, older syntax). Needs the npm registry the first time
 * (npx downloads the tool); the scan itself is offline: scripts/electronegativity-offline.cjs makes its
 * release and translation fetches fail at once (a fetch that timed out used to crash it before it wrote a
 * report). Exit 0: no HIGH finding; 1: a HIGH finding or an unparsed file; 2: no result (CI fails on both).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const SCANNER = '@doyensec/electronegativity@1.10.3';
export const SCAN_TARGET = 'es2019';
/** The preload that keeps the scanner off the network (see above). */
export const OFFLINE_PRELOAD = fileURLToPath(new URL('./electronegativity-offline.cjs', import.meta.url));
const REQUIRED = ['main/index.js', 'preload/index.cjs', 'renderer/index.html'];

/** Parses the scanner's CSV report (quoted fields, doubled quotes) into findings. */
export function parseReport(csv) {
  const rows = [];
  let field = '';
  let row = [];
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field.trim());
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && csv[i + 1] === '\n') i++;
      row.push(field.trim());
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  row.push(field.trim());
  if (row.some((f) => f !== '')) rows.push(row);
  const [header, ...data] = rows;
  if (header === undefined) return [];
  const index = (name) => header.findIndex((h) => h.toLowerCase() === name);
  const at = (r, name) => r[index(name)] ?? '';
  return data.map((r) => ({
    check: at(r, 'issue'),
    severity: at(r, 'severity').toUpperCase(),
    confidence: at(r, 'confidence').toUpperCase(),
    file: at(r, 'filename'),
    location: at(r, 'location'),
    description: at(r, 'description'),
  }));
}

/** Files the scanner reported it could not parse. */
export function parseFailures(output) {
  return [...output.matchAll(/^Error parsing (.+?) - (.+)$/gm)].map((m) => ({ file: m[1], error: m[2] }));
}

const SEVERITIES = new Set(['HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL']);
const ROW_START = /^[A-Z][A-Z0-9_]*_CHECK,"?(HIGH|MEDIUM|LOW|INFORMATIONAL)"?,/;

/**
 * Whether a CSV report is whole. Electronegativity 1.10.3 sometimes writes its header over the start of
 * the first row (a race in its writer), which would hide that row's severity: the first data line must be
 * the start of a row, like every row the parser returns.
 */
export function reportIsWhole(csv) {
  const lines = csv.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length === 0 || !/^issue,\s*severity,/.test(lines[0] ?? '')) return false;
  return lines.length === 1 || ROW_START.test(lines[1] ?? '');
}

/** The verdict: fails on any HIGH finding, any unparsed file, or any finding whose severity is unreadable. */
export function verdict(findings, failures) {
  const counts = { HIGH: 0, MEDIUM: 0, LOW: 0, INFORMATIONAL: 0 };
  let unreadable = 0;
  for (const f of findings) {
    if (SEVERITIES.has(f.severity)) counts[f.severity] += 1;
    else unreadable += 1;
  }
  const ok = counts.HIGH === 0 && failures.length === 0 && unreadable === 0;
  return { ok, counts, unreadable };
}

function jsFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => /\.(c|m)?js$/.test(f));
}

export async function main() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const out = join(root, 'out');
  const missing = REQUIRED.filter((f) => !existsSync(join(out, f)));
  if (missing.length > 0) {
    console.error(`security scan: ${missing.join(', ')} missing in out/ — run \`npm run build\` first.`);
    return 2;
  }
  const req = createRequire(join(root, 'package.json'));
  const electronVersion = JSON.parse(readFileSync(req.resolve('electron/package.json'), 'utf8')).version;
  const { transformWithOxc } = await import(pathToFileURL(req.resolve('vite')).href);

  const work = mkdtempSync(join(tmpdir(), 'runwarden-scan-'));
  try {
    const copy = join(work, 'out');
    cpSync(out, copy, { recursive: true, filter: (source) => !source.startsWith(join(out, 'cli')) });
    for (const file of jsFiles(copy)) {
      const path = join(copy, file);
      const lowered = await transformWithOxc(readFileSync(path, 'utf8'), path, {
        target: SCAN_TARGET,
        lang: 'js',
      });
      writeFileSync(path, lowered.code);
    }

    const report = join(work, 'report.csv');
    console.log(
      `security scan: ${SCANNER} over out/ (main, preload, renderer; Electron ${electronVersion})…`,
    );
    let result;
    let output = '';
    // A torn report (see reportIsWhole), or none at all, is a scanner fault, not a finding: scan again, up to
    // four times. Offline, the scanner's own attempts to fetch translations sometimes crash it
    // (p-cancelable's "onCancel handler was attached after the promise settled") before it writes a report.
    for (let attempt = 1; attempt <= 4; attempt++) {
      rmSync(report, { force: true });
      result = spawnSync(
        'npx',
        ['-y', SCANNER, '-i', copy, '-o', report, '-r', '-v', 'false', '-e', electronVersion],
        {
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, NODE_OPTIONS: `--require=${JSON.stringify(OFFLINE_PRELOAD)}` },
        },
      );
      output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
      if (result.error) break;
      if (!existsSync(report)) {
        console.log(
          `security scan: the scanner stopped without a report (attempt ${attempt}, exit ${result.status}); scanning again.`,
        );
        continue;
      }
      if (reportIsWhole(readFileSync(report, 'utf8'))) break;
      console.log(`security scan: the scanner wrote a torn report (attempt ${attempt}); scanning again.`);
    }
    if (result.error || !existsSync(report)) {
      console.error(output);
      console.error(
        `security scan: the scanner did not produce a report (${result.error?.message ?? `exit ${result.status}`}).`,
      );
      return 2;
    }
    const findings = parseReport(readFileSync(report, 'utf8'));
    const failures = parseFailures(output);
    const { ok, counts, unreadable } = verdict(findings, failures);
    if (!reportIsWhole(readFileSync(report, 'utf8')))
      console.log('  the report is torn: its first row is unreadable');

    for (const f of failures) console.log(`  UNPARSED ${f.file}: ${f.error}`);
    for (const f of findings) {
      console.log(
        `  ${f.severity.padEnd(13)} ${f.confidence.padEnd(9)} ${f.check}  ${f.file}:${f.location}  ${f.description}`,
      );
    }
    console.log(
      `security scan: ${findings.length} finding(s): ${counts.HIGH} high, ${counts.MEDIUM} medium, ${counts.LOW} low, ` +
        `${counts.INFORMATIONAL} informational; ${failures.length} unparsed file(s), ${unreadable} unreadable. ${ok ? 'PASS' : 'FAIL'}`,
    );
    return ok ? 0 : 1;
  } finally {
    // RUNWARDEN_SCAN_KEEP=1 keeps the scanned copy and the raw report, to look at a surprising verdict.
    if (process.env.RUNWARDEN_SCAN_KEEP) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`security scan: ${error.stack ?? error.message}`);
      process.exit(2);
    },
  );
}
