/**
 * Rules about the Electron layer's source that no unit test would catch on its own (docs/ARCHITECTURE.md#electron-shell).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../../main/electron/', import.meta.url));
const sources = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((file) => ({ file, code: readFileSync(`${dir}${file}`, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '') }));

describe('main/electron source policy', () => {
  it.each([
    ['shell.openExternal: links from runs are never opened ', /openExternal\s*\(/],
    ['sendSync / sendToHost: requests use invoke only ', /\bsend(Sync|ToHost)\s*\(/],
    ['ipcMain.on / ipcMain.handle outside ipc-main.ts: one wrapper ', /ipcMain\.(on|once|handle)\s*\(/],
    ['nodeIntegration: true', /nodeIntegration\w*\s*:\s*true/],
    ['webSecurity: false', /webSecurity\s*:\s*false/],
    ['contextIsolation: false / sandbox: false', /(contextIsolation|sandbox)\s*:\s*false/],
    ['loadURL of anything (the window only loads its bundled file)', /\.loadURL\s*\(/],
    ['innerHTML / executeJavaScript', /innerHTML|executeJavaScript/],
  ])('no %s', (_rule, pattern) => {
    const offenders = sources.filter(({ file, code }) => {
      if (file === 'ipc-main.ts' && pattern.source.startsWith('ipcMain')) return false;
      return pattern.test(code);
    });
    expect(offenders.map((o) => o.file)).toEqual([]);
  });

  it('registers IPC only through ipcMain.handle in ipc-main.ts', () => {
    const ipc = sources.find((s) => s.file === 'ipc-main.ts')?.code ?? '';
    expect(ipc).toMatch(/\.handle\(channel,/);
    expect(ipc).not.toMatch(/\.on\(/);
  });

  it('only main/electron imports electron at runtime (others may import its types)', () => {
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const offenders: string[] = [];
    for (const top of ['main', 'shared', 'renderer']) {
      for (const file of readdirSync(`${root}${top}`, { recursive: true }).map(String)) {
        if (!/\.(ts|svelte)$/.test(file) || `${top}/${file}`.startsWith('main/electron/')) continue;
        const code = readFileSync(`${root}${top}/${file}`, 'utf8');
        if (/^\s*import\s+(?!type\b)[^;]*from\s+['"]electron['"]/m.test(code))
          offenders.push(`${top}/${file}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
