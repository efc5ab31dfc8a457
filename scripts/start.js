#!/usr/bin/env node
/**
 * `npm start`: build the app, make sure the Electron binary is present, and run it.
 *
 * better-sqlite3 ships one N-API binary per platform inside its npm package, and the same file loads in
 * Node (CLI, tests) and in Electron: nothing is compiled or copied here (docs/ARCHITECTURE.md#native-addon).
 * The Electron binary is a download on first use; where it cannot be had, this says so within seconds and
 * points at browser mode (`runwarden serve`), which needs no Electron.
 *
 * The pure helpers below are unit-tested (test/main/electron/start-script.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How Electron is launched: the project folder as the app. */
export function electronLaunch({ electronPath, projectRoot, env, args }) {
  const childEnv = { ...env };
  // Set, it would make Electron behave as plain Node (and the app would not start).
  delete childEnv.ELECTRON_RUN_AS_NODE;
  return { command: electronPath, args: [projectRoot, ...args], env: childEnv };
}

/** The sentence for an Electron binary that could not be had, naming the way on without it. */
export function electronMissingMessage(electronVersion, cause) {
  return (
    `the Electron ${electronVersion} binary is not installed and could not be downloaded (${cause}). ` +
    'Check the network (or set ELECTRON_MIRROR) and run `npm start` again. ' +
    'Without Electron, browser mode shows the same window: `npx runwarden serve`.'
  );
}

/** Is this module the script node was asked to run? Compares real paths, so a symlinked checkout works. */
export function isMainModule(moduleUrl, argv1, realpath = realpathSync) {
  if (argv1 === undefined) return false;
  try {
    return realpath(fileURLToPath(moduleUrl)) === realpath(resolve(argv1));
  } catch {
    return moduleUrl === pathToFileURL(resolve(argv1)).href;
  }
}

const say = (message) => console.log(`runwarden start: ${message}`);

function runSync(command, args, options) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** Locates Electron's binary; `require('electron')` downloads it on first use and throws when it cannot. */
export function locateElectron(req, electronVersion) {
  try {
    return req('electron');
  } catch (error) {
    const cause = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(electronMissingMessage(electronVersion, cause), { cause: error });
  }
}

export async function main(argv = process.argv.slice(2)) {
  const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const req = createRequire(join(projectRoot, 'package.json'));
  const electronVersion = JSON.parse(readFileSync(req.resolve('electron/package.json'), 'utf8')).version;

  say(`locating the Electron ${electronVersion} binary (downloaded on first use)…`);
  const electronPath = locateElectron(req, electronVersion);

  say('building main, preload and renderer (electron-vite build)…');
  const viteBin = join(dirname(req.resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');
  if (runSync(process.execPath, [viteBin, 'build'], { cwd: projectRoot }) !== 0) {
    throw new Error('electron-vite build failed (see above).');
  }

  const launch = electronLaunch({ electronPath, projectRoot, env: process.env, args: argv });
  say('starting Runwarden…');
  const child = spawn(launch.command, launch.args, { stdio: 'inherit', env: launch.env, cwd: projectRoot });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (!child.killed) child.kill(signal);
    });
  }
  return await new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

if (isMainModule(import.meta.url, process.argv[1])) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`runwarden start: ${error.message}`);
      process.exit(1);
    },
  );
}
