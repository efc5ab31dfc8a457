/**
 * The Electron security checklist (https://www.electronjs.org/docs/latest/tutorial/security) over the built
 * main bundle and the packaging config, offline: the scan CI runs even where Electronegativity cannot be
 * fetched or crashes. Every window the bundle creates, and every setting that would weaken one, is looked
 * for in out/main/index.js (what ships), not in the sources; the behaviour of each guard is tested in
 * security-guards.test.ts and window.test.ts, the fuses in electron-builder-config.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mainJs = join(root, 'out', 'main', 'index.js');
const preloadJs = join(root, 'out', 'preload', 'index.cjs');
let bundle = '';

beforeAll(() => {
  if (!existsSync(mainJs) || !existsSync(preloadJs)) {
    throw new Error('out/main or out/preload is missing: run `npm run build` first');
  }
  // Comments name the checklist's words too; only code counts.
  bundle = readFileSync(mainJs, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
});

/** The object literal passed to each `new BrowserWindow(` in the bundle. */
function windowOptions(code: string): string[] {
  const found: string[] = [];
  for (const match of code.matchAll(/new\s+(?:[\w$]+\.)?BrowserWindow\s*\(/g)) {
    let depth = 0;
    let end = match.index + match[0].length;
    for (; end < code.length; end++) {
      const c = code[end];
      if (c === '(' || c === '{') depth++;
      else if (c === ')' || c === '}') {
        if (depth === 0) break;
        depth--;
      }
    }
    found.push(code.slice(match.index + match[0].length, end));
  }
  return found;
}

describe('Electron security checklist over out/main/index.js', () => {
  it('creates exactly one kind of window, and no BrowserView, WebContentsView or <webview>', () => {
    expect(windowOptions(bundle)).toHaveLength(1);
    expect(bundle).not.toMatch(/new\s+(?:[\w$]+\.)?(BrowserView|WebContentsView)\s*\(/);
  });

  it.each([
    ['2 context isolation', /contextIsolation:\s*true/],
    ['3 sandbox', /sandbox:\s*true/],
    ['2 no Node in the page', /nodeIntegration:\s*false/],
    ['2 no Node in workers', /nodeIntegrationInWorker:\s*false/],
    ['2 no Node in frames', /nodeIntegrationInSubFrames:\s*false/],
    ['6 web security on', /webSecurity:\s*true/],
    ['8 no insecure content', /allowRunningInsecureContent:\s*false/],
    ['9 no experimental features', /experimentalFeatures:\s*false/],
    ['12 no <webview>', /webviewTag:\s*false/],
    ['a preload, so the page needs no Node', /preload:\s*\S/],
  ])('every window sets checklist %s', (_item, pattern) => {
    for (const options of windowOptions(bundle)) expect(options).toMatch(pattern);
  });

  it.each([
    ['nodeIntegration: true', /nodeIntegration(InWorker|InSubFrames)?:\s*true/],
    ['contextIsolation: false', /contextIsolation:\s*false/],
    ['sandbox: false', /sandbox:\s*false/],
    ['webSecurity: false', /webSecurity:\s*false/],
    ['allowRunningInsecureContent: true', /allowRunningInsecureContent:\s*true/],
    ['enableBlinkFeatures (10)', /enableBlinkFeatures/],
    ['shell.openExternal on page input (15)', /openExternal\s*\(/],
    ['a remote page (1)', /loadURL\s*\(\s*["'`]https?:/],
    ['the remote module', /enableRemoteModule|@electron\/remote/],
    ['the insecure-content switch', /ignore-certificate-errors|allow-insecure-localhost/],
  ])('nothing sets %s', (_what, pattern) => {
    expect(bundle).not.toMatch(pattern);
  });

  it.each([
    ['5 permission requests and checks answered', /setPermissionRequestHandler\s*\(/],
    ['5 permission checks answered', /setPermissionCheckHandler\s*\(/],
    ['5 device permissions denied', /setDevicePermissionHandler\s*\(/],
    ['7 a CSP header on every response', /onHeadersReceived\s*\(/],
    ['1 requests outside the app cancelled', /onBeforeRequest\s*\(/],
    ['13 navigation limited', /["']will-navigate["']/],
    ['13 frame navigation limited', /["']will-frame-navigate["']/],
    ['12 <webview> attachment refused', /["']will-attach-webview["']/],
    ['14 new windows denied', /setWindowOpenHandler\s*\(\s*\(\)\s*=>\s*\(\s*\{\s*action:\s*["']deny["']/],
    ['every web contents guarded', /["']web-contents-created["']/],
  ])('installs checklist %s', (_item, pattern) => {
    expect(bundle).toMatch(pattern);
  });

  it('the preload exposes an API through contextBridge and requires nothing but electron', () => {
    const preload = readFileSync(preloadJs, 'utf8');
    expect(preload).toMatch(/contextBridge\.exposeInMainWorld\s*\(/);
    expect([...preload.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1])).toEqual([
      'electron',
    ]);
  });
});
