/**
 * `npm run test:electron` where the Electron binary is not installed: one line with the number of tests not
 * run, exit 0. (Pointing ELECTRON_OVERRIDE_DIST_PATH at an empty folder makes any machine such a machine.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { installedElectron } from '../../../test/electron/electron-binary.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(withPathTxt: boolean, withBinary: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'runwarden-electron-bin-'));
  dirs.push(dir);
  const pkg = join(dir, 'node_modules', 'electron');
  mkdirSync(join(pkg, 'dist'), { recursive: true });
  if (withPathTxt) writeFileSync(join(pkg, 'path.txt'), 'electron');
  if (withBinary) writeFileSync(join(pkg, 'dist', 'electron'), '');
  return dir;
}

describe('test/electron/run.js', () => {
  it('without the binary: one line naming Electron and how many tests were not run, exit 0', () => {
    const empty = mkdtempSync(join(tmpdir(), 'runwarden-no-electron-'));
    dirs.push(empty);
    const result = spawnSync(process.execPath, [join(root, 'test/electron/run.js')], {
      cwd: root,
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty, RUNWARDEN_REQUIRE_ELECTRON: '' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const listed = execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/@playwright/test/cli.js'),
        'test',
        '--list',
        '-c',
        'playwright.electron.config.ts',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    const total = /Total: (\d+) tests?/.exec(listed)?.[1];
    expect(Number(total)).toBeGreaterThanOrEqual(7);
    expect(lines[0]).toMatch(
      new RegExp(
        `^test:electron: the Electron \\d+\\.\\d+\\.\\d+ binary is not installed here .*so ${total} Electron tests were not run\\.$`,
      ),
    );
  });

  it('with RUNWARDEN_REQUIRE_ELECTRON=1 and no binary: exit 1, naming the variable and the install step', () => {
    const empty = mkdtempSync(join(tmpdir(), 'runwarden-no-electron-'));
    dirs.push(empty);
    const result = spawnSync(process.execPath, [join(root, 'test/electron/run.js')], {
      cwd: root,
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty, RUNWARDEN_REQUIRE_ELECTRON: '1' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^test:electron: RUNWARDEN_REQUIRE_ELECTRON=1 but the Electron \d+\.\d+\.\d+ binary is not installed .*node node_modules\/electron\/install\.js.*\d+ Electron tests cannot run\.\n$/,
    );
  });

  it('finds the binary only where electron recorded it and it exists', () => {
    expect(installedElectron(project(false, false))).toBeNull();
    expect(installedElectron(project(true, false))).toBeNull();
    const dir = project(true, true);
    expect(installedElectron(dir)).toBe(join(dir, 'node_modules', 'electron', 'dist', 'electron'));
  });
});
