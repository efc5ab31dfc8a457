#!/usr/bin/env node
/**
 * `npm run test:electron`: the real-Electron tests, wherever the Electron binary is installed. Where it is
 * not (Electron downloads it on first use, and some machines cannot), it says so in one line, with how many
 * tests were not run, and exits 0 — unless RUNWARDEN_REQUIRE_ELECTRON=1, as on CI machines that can download
 * Electron: then a missing binary fails (exit 1). On Linux without a display it runs them under xvfb-run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedElectron } from './electron-binary.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const playwright = join(root, 'node_modules', '@playwright', 'test', 'cli.js');
const config = join(root, 'playwright.electron.config.ts');

/** How many tests the suite has, from Playwright's own listing (no browser, no Electron started). */
function countTests() {
  const listed = spawnSync(process.execPath, [playwright, 'test', '--list', '-c', config], {
    cwd: root,
    encoding: 'utf8',
  });
  const match = /Total: (\d+) tests?/.exec(listed.stdout ?? '');
  if (listed.status !== 0 || match === null) {
    console.error(listed.stdout, listed.stderr);
    throw new Error('could not list the Electron tests (see above)');
  }
  return Number(match[1]);
}

function electronVersion() {
  return JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
}

const electron = installedElectron(root);
if (electron === null) {
  const count = countTests();
  if (process.env.RUNWARDEN_REQUIRE_ELECTRON === '1') {
    console.error(
      `test:electron: RUNWARDEN_REQUIRE_ELECTRON=1 but the Electron ${electronVersion()} binary is not installed (run \`node node_modules/electron/install.js\`), so ${count} Electron tests cannot run.`,
    );
    process.exit(1);
  }
  console.log(
    `test:electron: the Electron ${electronVersion()} binary is not installed here (it is downloaded on first \`npm start\`), so ${count} Electron tests were not run.`,
  );
  process.exit(0);
}
if (!existsSync(join(root, 'out', 'main', 'index.js'))) {
  console.error('test:electron: build the app first (`npm run build`).');
  process.exit(1);
}

const env = { ...process.env, RUNWARDEN_ELECTRON: electron };
let command = process.execPath;
let args = [playwright, 'test', '-c', config, ...process.argv.slice(2)];
const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
if (headless) {
  const xvfb = spawnSync('xvfb-run', ['--help'], { stdio: 'ignore' });
  if (xvfb.error !== undefined) {
    console.error(
      'test:electron: Electron needs a display; install xvfb (xvfb-run) or run from a desktop session.',
    );
    process.exit(1);
  }
  args = ['--auto-servernum', '--server-args=-screen 0 1280x1024x24', command, ...args];
  command = 'xvfb-run';
}
const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
process.exit(result.status ?? 1);
