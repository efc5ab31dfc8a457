#!/usr/bin/env node
/**
 * `electron-builder --dir` for this machine's platform with a stand-in Electron: a copy of this Node named
 * `electron` (Electron's binary cannot be downloaded everywhere). The stand-in behaves like the real app's
 * executable in Node mode (ELECTRON_RUN_AS_NODE), which is all the shipped CLI uses, so the unpacked app's
 * `resources/bin/runwarden` runs for real. The fuses are not flipped (the stand-in has no fuse sentinel); every
 * other setting is electron-builder.yml's. Needs `npm run build` first.
 *
 *   node scripts/pack-stand-in.js OUT_DIR   → OUT_DIR/<platform>-unpacked (linux-unpacked, mac, win-unpacked)
 */
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

/** Packs the app with a stand-in Electron into `outDir`; returns the unpacked app's folder. */
export async function packWithStandIn(outDir) {
  const { build, Platform, Arch } = require('electron-builder');
  const standIn = join(outDir, 'electron-stand-in');
  mkdirSync(standIn, { recursive: true });
  const binary = join(standIn, process.platform === 'win32' ? 'electron.exe' : 'electron');
  copyFileSync(process.execPath, binary);
  chmodSync(binary, 0o755);
  const platform = Platform.current();
  await build({
    projectDir: root,
    targets: platform.createTarget('dir', Arch[process.arch]),
    publish: 'never',
    // Only what differs: electron-builder loads electron-builder.yml itself and merges these in (lists
    // would be concatenated, so none is given here).
    config: {
      electronDist: standIn,
      electronFuses: null,
      // A stand-in is not signed: no identity lookup on macOS.
      mac: { identity: null },
      directories: { output: join(outDir, 'dist') },
    },
  });
  const unpacked = {
    linux: 'linux-unpacked',
    darwin: process.arch === 'arm64' ? 'mac-arm64' : 'mac',
    win32: 'win-unpacked',
  }[process.platform];
  return join(outDir, 'dist', unpacked);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const outDir = process.argv[2];
  if (outDir === undefined) {
    console.error('usage: node scripts/pack-stand-in.js OUT_DIR');
    process.exit(2);
  }
  packWithStandIn(resolve(outDir)).then(
    (dir) => console.log(dir),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
