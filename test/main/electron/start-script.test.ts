import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  electronLaunch,
  electronMissingMessage,
  isMainModule,
  locateElectron,
} from '../../../scripts/start.js';

describe('scripts/start.js helpers', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('launches the project folder, and never as plain Node', () => {
    const launch = electronLaunch({
      electronPath: '/cache/electron',
      projectRoot: '/p',
      env: { HOME: '/home/me', ELECTRON_RUN_AS_NODE: '1' },
      args: ['--hidden'],
    });
    expect(launch).toEqual({
      command: '/cache/electron',
      args: ['/p', '--hidden'],
      env: { HOME: '/home/me' },
    });
  });

  it('names the missing Electron binary and browser mode when the download fails', () => {
    const failing = () => {
      throw new Error('Electron failed to install correctly.\nmore detail');
    };
    expect(() => locateElectron(failing, '45.5.0')).toThrow(
      electronMissingMessage('45.5.0', 'Electron failed to install correctly.'),
    );
    expect(electronMissingMessage('45.5.0', 'x')).toMatch(/runwarden serve/);
    expect(locateElectron(() => '/dist/electron', '45.5.0')).toBe('/dist/electron');
  });

  it('runs when started through a symlinked checkout', () => {
    const root = mkdtempSync(join(tmpdir(), 'runwarden-start-'));
    dirs.push(root);
    mkdirSync(join(root, 'real', 'scripts'), { recursive: true });
    const script = join(root, 'real', 'scripts', 'start.js');
    writeFileSync(script, '');
    symlinkSync(join(root, 'real'), join(root, 'link'));
    const url = pathToFileURL(script).href;
    expect(isMainModule(url, join(root, 'link', 'scripts', 'start.js'))).toBe(true);
    expect(isMainModule(url, script)).toBe(true);
    expect(isMainModule(url, join(root, 'other.js'))).toBe(false);
    expect(isMainModule(url, undefined)).toBe(false);
  });
});
