/**
 * Code comments and docs cite `docs/X.md#anchor` (docs/ARCHITECTURE.md); a citation whose heading was renamed
 * or never written sends the reader nowhere. Every such citation must name a heading of that document, and
 * every file of this repository a comment or a doc names must exist.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = ['main', 'shared', 'renderer', 'bench', 'scripts', 'docs', 'test', 'README.md'];
const EXTENSIONS = new Set(['.ts', '.js', '.mjs', '.svelte', '.md']);

function files(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return EXTENSIONS.has(path.extname(full)) ? [full] : [];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((d) => (d.name === 'node_modules' ? [] : files(path.join(entry, d.name))));
}

/** GitHub's heading slug: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(doc: string): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, 'docs', doc), 'utf8');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(match[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const match of text.matchAll(/<a id="([^"]+)"/g)) anchors.add(match[1] ?? '');
  return anchors;
}

describe('doc anchors', () => {
  it('every docs/X.md#anchor cited in code, tests and docs names a heading of that document', () => {
    const docs = new Set(fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')));
    const anchors = new Map([...docs].map((d) => [d, anchorsOf(d)]));
    const broken: string[] = [];
    let cited = 0;
    for (const file of SOURCES.flatMap(files)) {
      if (file === path.join(ROOT, 'test/main/doc-anchors.test.ts')) continue;
      const text = fs.readFileSync(file, 'utf8');
      const inDocs = path.dirname(file) === path.join(ROOT, 'docs');
      const pattern = inDocs
        ? /(?:docs\/|\()([A-Z][A-Z-]*\.md)#([\w-]+)/g
        : /docs\/([A-Z][A-Z-]*\.md)#([\w-]+)/g;
      for (const match of text.matchAll(pattern)) {
        const [, doc = '', anchor = ''] = match;
        cited += 1;
        if (!docs.has(doc)) {
          broken.push(`${path.relative(ROOT, file)}: ${doc} does not exist`);
          continue;
        }
        if (!anchors.get(doc)?.has(anchor)) broken.push(`${path.relative(ROOT, file)}: ${doc}#${anchor}`);
      }
    }
    expect(cited).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('every file of the repository named in a comment or a doc exists', () => {
    const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => f !== '' && !f.includes('node_modules/') && fs.existsSync(path.join(ROOT, f)));
    const paths = new Set(tracked);
    const names = new Set(tracked.map((f) => path.basename(f)));
    const code = tracked.filter(
      (f) => /^(main|shared|renderer|bench|scripts|bin)\//.test(f) && /\.(ts|js|mjs|cjs|svelte)$/.test(f),
    );
    const docs = tracked.filter((f) => /^(README|docs\/[^/]+)\.md$/.test(f));
    const missing: string[] = [];
    let named = 0;
    for (const file of [...code, ...docs]) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const said = file.endsWith('.md') ? text : commentsOf(text);
      for (const [, name = ''] of said.matchAll(FILE_NAME)) {
        // A path of this repository must be there; a bare name of a source file must be one somewhere.
        const ours = OUR_ROOTS.test(name);
        const bare = !name.includes('/') && !file.endsWith('.md') && /\.(ts|svelte)$/.test(name);
        if (!ours && !bare) continue;
        named += 1;
        if (ours ? !paths.has(name) : !names.has(name)) missing.push(`${file}: ${name}`);
      }
    }
    expect(named).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});

/** A file name as prose writes it: `main/store/leases.ts`, `sweeper.ts`, `docs/CLI.md`. */
const FILE_NAME =
  /(?<![\w./$@-])((?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|js|mjs|cjs|svelte|md|css|html))(?![\w/])/g;
const OUR_ROOTS = /^(main|shared|renderer|test|scripts|bench|bin|build|examples)\//;

/** The comments of a source file, joined: what a reader is told, not the code's own strings. */
function commentsOf(source: string): string {
  const found = source.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*|<!--[\s\S]*?-->/g);
  return [...found].map((m) => m[0]).join('\n');
}
