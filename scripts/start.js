#!/usr/bin/env node
/**
 * `npm start`: build the app, make sure an Electron-ABI build of better-sqlite3 exists, and run Electron.
 *
 * Why the separate addon (STACK.md pitfall 3): node_modules/better-sqlite3 is built for Node, which the tests
 * and the CLI use. Electron 45 needs another ABI. So a copy of the package is built for Electron into
 * `.cache/electron-native/<electron version>/` (prebuilt download first, compiling from source second), and
 * its path reaches the app in RUNWARDEN_NATIVE_BINDING. node_modules is never touched.
 *
 * Needs internet on first run (the Electron binary, Electron headers or the prebuilt addon). The pure
 * helpers below are unit-tested (test/main/electron/start-script.test.ts); the steps that download or
 * launch a GUI cannot run on the development machines this project is built on.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const NATIVE_BINDING_ENV = 'RUNWARDEN_NATIVE_BINDING';
export const ELECTRON_HEADERS_URL = 'https://electronjs.org/headers';

/** `.cache/electron-native/<electron version>`: one folder per Electron version (same path as main/electron/native-binding.ts). */
export function nativeCacheDir(projectRoot, electronVersion) {
  return join(projectRoot, '.cache', 'electron-native', electronVersion);
}

export function nativeBindingPath(projectRoot, electronVersion) {
  return join(nativeCacheDir(projectRoot, electronVersion), 'better_sqlite3.node');
}

/** What the cached addon was built from; any difference means rebuild. */
export function buildStamp({ betterSqliteVersion, electronVersion, platform, arch }) {
  return { betterSqliteVersion, electronVersion, platform, arch };
}

export function stampMatches(existing, wanted) {
  if (existing === null || typeof existing !== 'object') return false;
  return Object.keys(wanted).every((key) => existing[key] === wanted[key]);
}

/**
 * The environment for building against Electron's headers. A `nodedir` (these machines set
 * `npm_config_nodedir=/usr`: STACK.md pitfall 1) would make node-gyp use Node's headers and produce a Node-ABI
 * addon under an Electron name, so it is removed; npm's own runtime/target hints are replaced by ours.
 */
export function electronBuildEnv(env, { electronVersion, arch }) {
  const next = {};
  for (const [key, value] of Object.entries(env)) {
    const lower = key.toLowerCase();
    if (lower === 'npm_config_nodedir' || lower === 'nodedir') continue;
    if (lower === 'npm_config_runtime' || lower === 'npm_config_target' || lower === 'npm_config_disturl')
      continue;
    if (lower === 'npm_config_arch' || lower === 'npm_config_target_arch') continue;
    next[key] = value;
  }
  next.npm_config_runtime = 'electron';
  next.npm_config_target = electronVersion;
  next.npm_config_disturl = ELECTRON_HEADERS_URL;
  next.npm_config_arch = arch;
  next.npm_config_target_arch = arch;
  return next;
}

/** Arguments for prebuild-install: download the prebuilt Electron-ABI addon, if the release has one. */
export function prebuildInstallArgs({ electronVersion, platform, arch }) {
  return [
    '--runtime=electron',
    `--target=${electronVersion}`,
    `--platform=${platform}`,
    `--arch=${arch}`,
    '--verbose',
  ];
}

/** Arguments for node-gyp: compile from source against Electron's headers. */
export function nodeGypArgs({ electronVersion, arch }) {
  return [
    'rebuild',
    '--release',
    '--runtime=electron',
    `--target=${electronVersion}`,
    `--arch=${arch}`,
    `--dist-url=${ELECTRON_HEADERS_URL}`,
  ];
}

/** Copying the package to build it: everything but a previous build's output. */
export function copyFilter(packageDir) {
  const buildDir = join(packageDir, 'build');
  return (source) => source !== buildDir && !source.startsWith(buildDir + sep);
}

/** How Electron is launched: the project folder as the app, the addon in the environment. */
export function electronLaunch({ electronPath, projectRoot, bindingPath, env, args }) {
  const childEnv = { ...env, [NATIVE_BINDING_ENV]: bindingPath };
  // Set, it would make Electron behave as plain Node (and the app would not start).
  delete childEnv.ELECTRON_RUN_AS_NODE;
  return { command: electronPath, args: [projectRoot, ...args], env: childEnv };
}

const say = (message) => console.log(`runwarden start: ${message}`);

function runSync(command, args, options) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** Builds (or reuses) the Electron-ABI addon and returns its path. */
export function ensureNativeBinding({
  projectRoot,
  electronVersion,
  platform,
  arch,
  require: req,
  env = process.env,
  run = runSync,
  log = say,
}) {
  const packageDir = dirname(req.resolve('better-sqlite3/package.json'));
  const betterSqliteVersion = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version;
  const cacheDir = nativeCacheDir(projectRoot, electronVersion);
  const target = nativeBindingPath(projectRoot, electronVersion);
  const stampFile = join(cacheDir, 'stamp.json');
  const wanted = buildStamp({ betterSqliteVersion, electronVersion, platform, arch });

  let existing = null;
  try {
    existing = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    existing = null;
  }
  if (existsSync(target) && stampMatches(existing, wanted)) {
    log(
      `using the Electron ${electronVersion} build of better-sqlite3 ${betterSqliteVersion} in ${relative(projectRoot, cacheDir)}`,
    );
    return target;
  }

  log(
    `building better-sqlite3 ${betterSqliteVersion} for Electron ${electronVersion} (${platform}-${arch}), once per version…`,
  );
  const workDir = join(cacheDir, 'better-sqlite3');
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  cpSync(packageDir, workDir, { recursive: true, filter: copyFilter(packageDir) });
  const buildEnv = electronBuildEnv(env, { electronVersion, arch });
  const built = join(workDir, 'build', 'Release', 'better_sqlite3.node');

  log('trying a prebuilt addon (prebuild-install)…');
  let status = 1;
  try {
    const prebuild = req.resolve('prebuild-install/bin.js');
    status = run(process.execPath, [prebuild, ...prebuildInstallArgs({ electronVersion, platform, arch })], {
      cwd: workDir,
      env: buildEnv,
    });
  } catch (error) {
    log(`prebuild-install is not available (${error.message})`);
  }
  if (status !== 0 || !existsSync(built)) {
    log(
      'no prebuilt addon; compiling from source with node-gyp against Electron headers (a C++ toolchain is needed)…',
    );
    const gyp = req.resolve('node-gyp/bin/node-gyp.js');
    status = run(process.execPath, [gyp, ...nodeGypArgs({ electronVersion, arch })], {
      cwd: workDir,
      env: buildEnv,
    });
    if (status !== 0 || !existsSync(built)) {
      throw new Error(
        'could not build better-sqlite3 for Electron. Check the node-gyp output above (Python 3, make and a C++ compiler are required).',
      );
    }
  }
  cpSync(built, target);
  writeFileSync(stampFile, `${JSON.stringify(wanted, null, 2)}\n`);
  rmSync(workDir, { recursive: true, force: true });
  log(`built ${relative(projectRoot, target)}`);
  return target;
}

export async function main(argv = process.argv.slice(2)) {
  const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const req = createRequire(join(projectRoot, 'package.json'));
  const electronVersion = JSON.parse(readFileSync(req.resolve('electron/package.json'), 'utf8')).version;

  say('building main, preload and renderer (electron-vite build)…');
  const viteBin = join(dirname(req.resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');
  if (runSync(process.execPath, [viteBin, 'build'], { cwd: projectRoot }) !== 0) {
    throw new Error('electron-vite build failed (see above).');
  }

  const bindingPath = ensureNativeBinding({
    projectRoot,
    electronVersion,
    platform: process.platform,
    arch: process.arch,
    require: req,
  });

  say(`locating the Electron ${electronVersion} binary (downloaded on first use)…`);
  let electronPath;
  try {
    electronPath = req('electron');
  } catch (error) {
    throw new Error(
      `the Electron binary could not be downloaded (${error.message}). Check the network, or run \`npx install-electron\`.`,
      { cause: error },
    );
  }

  const launch = electronLaunch({ electronPath, projectRoot, bindingPath, env: process.env, args: argv });
  say('starting Runwarden…');
  const child = spawn(launch.command, launch.args, { stdio: 'inherit', env: launch.env, cwd: projectRoot });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (!child.killed) child.kill(signal);
    });
  }
  return await new Promise((resolvePromise) => {
    child.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`runwarden start: ${error.message}`);
      process.exit(1);
    },
  );
}
