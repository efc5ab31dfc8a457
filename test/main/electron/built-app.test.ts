/**
 * Checks on what `npm run build` produced (the suite runs after it): the CSP meta tag in the built
 * index.html (Electron security checklist 7), no inline or remote script, the sandboxed preload requiring
 * only `electron`, and the main bundle leaving only `electron`, Node built-ins and better-sqlite3 external.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../../shared/csp';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const out = join(root, 'out');
const indexHtml = join(out, 'renderer', 'index.html');
const preload = join(out, 'preload', 'index.cjs');
const mainJs = join(out, 'main', 'index.js');

const rendererBuilt = existsSync(indexHtml);
const appBuilt = existsSync(preload) && existsSync(mainJs);
const NOT_BUILT = 'skipped: the Electron app is not built yet — run `npm run build` (npm test does) first';

const decode = (text: string): string =>
  text
    .replace(/&#39;/g, "'")
    .replace(/&#x27;/gi, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function attributes(tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    const name = m[1]?.toLowerCase();
    if (name !== undefined) attrs[name] = decode(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

describe.skipIf(!rendererBuilt)(
  `built out/renderer/index.html${rendererBuilt ? '' : ` (${NOT_BUILT})`}`,
  () => {
    const html = rendererBuilt ? readFileSync(indexHtml, 'utf8') : '';
    const head = /<head[^>]*>([\s\S]*?)<\/head>/i.exec(html)?.[1] ?? '';
    const cspTags = [...html.matchAll(/<meta\b[^>]*>/gi)]
      .map((m) => m[0])
      .filter((tag) => attributes(tag)['http-equiv']?.toLowerCase() === 'content-security-policy');

    it('carries exactly one CSP meta tag, the policy of shared/csp.ts', () => {
      expect(cspTags).toHaveLength(1);
      expect(attributes(cspTags[0] ?? '').content).toBe(CONTENT_SECURITY_POLICY);
    });

    it('puts the CSP in <head>, before any script or stylesheet it must govern', () => {
      const at = head.indexOf(cspTags[0] ?? '\u0000');
      expect(at).toBeGreaterThanOrEqual(0);
      for (const tag of ['<script', '<link']) {
        const first = head.indexOf(tag);
        if (first >= 0) expect(at).toBeLessThan(first);
      }
    });

    it('the policy allows no inline or eval script and nothing remote', () => {
      const directives = new Map(
        CONTENT_SECURITY_POLICY.split(';').map((d) => {
          const [name = '', ...values] = d.trim().split(/\s+/);
          return [name, values] as const;
        }),
      );
      expect(directives.get('default-src')).toEqual(["'none'"]);
      expect(directives.get('script-src')).toEqual(["'self'"]);
      expect(directives.get('object-src')).toEqual(["'none'"]);
      expect(directives.get('base-uri')).toEqual(["'none'"]);
      expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*|wss?:/);
    });

    it('has no inline script and loads everything from relative paths (file://, base "./")', () => {
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attrs = '', body = ''] of scripts) {
        expect(body.trim()).toBe('');
        expect(attributes(attrs).src).toMatch(/^\.\//);
      }
      for (const m of html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)) {
        expect(m[1]).toMatch(/^\.\//);
      }
      expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    });

    it('ships no source maps', () => {
      const files = readdirSync(join(out, 'renderer'), { recursive: true }).map(String);
      expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    });
  },
);

describe.skipIf(!appBuilt)(`built main and preload${appBuilt ? '' : ` (${NOT_BUILT})`}`, () => {
  it('the preload is one CommonJS file that requires only electron (a sandboxed preload loads nothing else)', () => {
    const code = readFileSync(preload, 'utf8');
    const requires = [...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    expect(requires).toEqual(['electron']);
    expect(code).not.toMatch(/^\s*import\s/m);
    expect(code).not.toMatch(/\bimport\(/);
    expect(statSync(preload).size).toBeLessThan(16 * 1024);
    expect(readdirSync(join(out, 'preload'))).toEqual(['index.cjs']);
  });

  it('the preload exposes through contextBridge and never hands out ipcRenderer', () => {
    const code = readFileSync(preload, 'utf8');
    const exposures = [...code.matchAll(/exposeInMainWorld\(\s*"([^"]+)",\s*([\w$]+)\(/g)];
    expect(exposures.map((m) => [m[1], m[2]])).toEqual([['runwarden', 'createPreloadApi']]);
    expect(code.match(/exposeInMainWorld/g)).toHaveLength(1);
    expect(code).not.toMatch(/sendSync/);
  });

  it('the main bundle leaves only electron, Node built-ins and better-sqlite3 external', () => {
    const files = readdirSync(join(out, 'main'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.js'));
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const externals = new Set<string>();
    for (const file of files) {
      const code = readFileSync(join(out, 'main', file), 'utf8');
      for (const m of code.matchAll(
        /(?:^|\n)\s*import\s[^'"]*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g,
      )) {
        const spec = m[1] ?? m[2] ?? '';
        if (!spec.startsWith('.')) externals.add(spec);
      }
    }
    const unexpected = [...externals].filter(
      (s) => s !== 'electron' && s !== 'better-sqlite3' && !builtins.has(s),
    );
    expect(unexpected).toEqual([]);
    expect(externals.has('electron')).toBe(true);
  });
});
