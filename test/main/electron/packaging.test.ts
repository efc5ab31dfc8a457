/**
 * The packaged app, built offline: electron-builder's `--dir` target for this platform with a stand-in
 * Electron (a copy of this Node: scripts/pack-stand-in.js). What app.asar holds is listed and checked against
 * what the app needs, and the shipped CLI is run from the unpacked app with no Node on the PATH: the stand-in
 * behaves as the real executable does in Node mode (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packWithStandIn } from '../../../scripts/pack-stand-in.js';
import { stableCliLaunch } from '../../../main/platform/stable-cli-path';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
const asar = require('@electron/asar') as {
  listPackage(archive: string, options?: object): string[];
  statFile(archive: string, filename: string): { unpacked?: boolean; size?: number };
};
const target = `${process.platform}-${process.arch}`;
// The stand-in is a bare executable: electron-builder's macOS packager wants an Electron.app bundle, and
// Windows' a whole Electron folder. Linux is where CI runs this.
const onLinux = process.platform === 'linux';
const posix = process.platform !== 'win32';

let work: string;
let app: string;
let resources: string;

beforeAll(async () => {
  if (!onLinux) return;
  for (const built of [
    'out/main/index.js',
    'out/preload/index.cjs',
    'out/renderer/index.html',
    'out/cli/runwarden.js',
  ]) {
    if (!existsSync(join(root, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
  }
  work = mkdtempSync(join(tmpdir(), 'runwarden-pack-'));
  app = await packWithStandIn(work);
  resources =
    process.platform === 'darwin'
      ? join(app, 'Runwarden.app', 'Contents', 'Resources')
      : join(app, 'resources');
}, 300_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

/** Sends `signal` to `pid`; false when it is gone (also what signal 0 asks). */
function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the demo's live runners and waits until they are gone: a runner records its run's end as it exits,
 * and one still writing into the sandbox's store while the folder is removed makes the removal fail.
 */
function stopRunners(pids: readonly number[]): void {
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some((pid) => signal(pid, 0)) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 50);
  for (const pid of pids) signal(pid, 'SIGKILL');
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => statSync(join(dir, file)).isFile())
    .map((file) => file.split('\\').join('/'))
    .sort();
}

describe.runIf(onLinux)('app.asar of `electron-builder --dir`', () => {
  it('holds only out/main, out/preload, out/renderer, package.json and better-sqlite3 (no maps, no CLI)', () => {
    const archive = join(resources, 'app.asar');
    const entries = asar.listPackage(archive, { isPack: false }).map((entry) => entry.split('\\').join('/'));
    const fileEntries = entries.filter((entry) => asar.statFile(archive, entry.slice(1)).size !== undefined);
    expect(fileEntries.length).toBeGreaterThan(5);
    const allowed = /^\/(out\/(main|preload|renderer)\/|package\.json$|node_modules\/better-sqlite3\/)/;
    expect(fileEntries.filter((entry) => !allowed.test(entry))).toEqual([]);
    expect(fileEntries.filter((entry) => entry.endsWith('.map'))).toEqual([]);
    expect(fileEntries).toEqual(
      expect.arrayContaining([
        '/out/main/index.js',
        '/out/preload/index.cjs',
        '/out/renderer/index.html',
        '/package.json',
      ]),
    );
    // better-sqlite3 without its C sources and with this platform's binary only.
    const sqlite = fileEntries.filter((entry) => entry.startsWith('/node_modules/better-sqlite3/'));
    expect(sqlite.filter((entry) => /\/(deps|src)\/|binding\.gyp$/.test(entry))).toEqual([]);
    expect(sqlite.filter((entry) => entry.includes('/prebuilds/'))).toEqual([
      `/node_modules/better-sqlite3/prebuilds/${target}.node`,
    ]);
  });

  it('keeps the native addon unpacked beside the archive (it cannot load from inside it)', () => {
    const archive = join(resources, 'app.asar');
    expect(asar.statFile(archive, `node_modules/better-sqlite3/prebuilds/${target}.node`).unpacked).toBe(
      true,
    );
    expect(
      existsSync(
        join(resources, 'app.asar.unpacked', 'node_modules', 'better-sqlite3', 'prebuilds', `${target}.node`),
      ),
    ).toBe(true);
  });
});

describe.runIf(onLinux)('the CLI the app ships', () => {
  it('lies outside app.asar: launchers, entry, bundle, and one better-sqlite3 binary, no maps', () => {
    const cli = files(join(resources, 'cli'));
    expect(cli).toEqual(
      expect.arrayContaining([
        'entry.js',
        'package.json',
        'runwarden.js',
        'node_modules/better-sqlite3/lib/binding.js',
        `node_modules/better-sqlite3/prebuilds/${target}.node`,
      ]),
    );
    expect(cli.filter((file) => file.endsWith('.map') || file.startsWith('bench'))).toEqual([]);
    expect(cli.filter((file) => file.includes('/prebuilds/'))).toEqual([
      `node_modules/better-sqlite3/prebuilds/${target}.node`,
    ]);
    expect(files(join(resources, 'bin'))).toEqual(['runwarden', 'runwarden.cmd']);
    if (posix) expect(statSync(join(resources, 'bin', 'runwarden')).mode & 0o111).toBe(0o111);
  });

  it.skipIf(!posix)(
    'runs `exec -- true` and `ls` with no Node on the PATH, also through a /usr/bin-style link',
    () => {
      const sandbox = mkdtempSync(join(work, 'cli-'));
      // A PATH of only the few commands the launcher and these runs use: no `node` anywhere on it.
      const tools = join(sandbox, 'tools');
      mkdirSync(tools);
      for (const tool of ['sh', 'readlink', 'true']) {
        const found = ['/usr/bin', '/bin'].map((dir) => join(dir, tool)).find((path) => existsSync(path));
        if (found === undefined) throw new Error(`${tool} not found`);
        symlinkSync(found, join(tools, tool));
      }
      const link = join(sandbox, 'usr-bin', 'runwarden');
      mkdirSync(join(sandbox, 'usr-bin'));
      symlinkSync(join(resources, 'bin', 'runwarden'), link);
      const env = {
        HOME: join(sandbox, 'home'),
        PATH: tools,
        RUNWARDEN_STORE: join(sandbox, 'store.sqlite'),
      };
      const run = (command: string, args: string[]) =>
        spawnSync(command, args, { cwd: sandbox, env, encoding: 'utf8', timeout: 60_000 });

      expect(run('sh', ['-c', 'command -v node || echo none']).stdout.trim()).toBe('none');
      const exec = run(join(resources, 'bin', 'runwarden'), ['exec', '--title', 'packaged', '--', 'true']);
      expect(exec.stderr).toMatch(/run run_\w+ completed/);
      expect(exec.status).toBe(0);
      const ls = run(link, ['ls', '--json']);
      expect(ls.status).toBe(0);
      const listed = JSON.parse(ls.stdout) as {
        ok: boolean;
        value: { items: Array<{ run: { title: string; status: string } }> };
      };
      expect(listed.value.items.map((item) => [item.run.title, item.run.status])).toEqual([
        ['packaged', 'completed'],
      ]);

      // The wrapped command gets the launcher first on its PATH and none of Node mode.
      const inside = run(link, [
        'exec',
        '--quiet',
        '--',
        'sh',
        '-c',
        'echo "${ELECTRON_RUN_AS_NODE-unset}"; command -v runwarden',
      ]);
      expect(inside.status).toBe(0);
      expect(inside.stdout.trim().split('\n')).toEqual(['unset', join(resources, 'bin', 'runwarden')]);
    },
  );

  it.skipIf(!posix)(
    'runs `demo` with its live runners through the launcher, with no Node on the PATH',
    () => {
      const sandbox = mkdtempSync(join(work, 'demo-'));
      const tools = join(sandbox, 'tools');
      mkdirSync(tools);
      for (const tool of ['sh', 'readlink', 'sleep']) {
        const found = ['/usr/bin', '/bin'].map((dir) => join(dir, tool)).find((path) => existsSync(path));
        if (found === undefined) throw new Error(`${tool} not found`);
        symlinkSync(found, join(tools, tool));
      }
      const demo = spawnSync(
        join(resources, 'bin', 'runwarden'),
        ['demo', '--dir', join(sandbox, 'projects'), '--live-minutes', '1', '--json'],
        {
          cwd: sandbox,
          env: { HOME: join(sandbox, 'home'), PATH: tools, RUNWARDEN_STORE: join(sandbox, 'store.sqlite') },
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      const result = JSON.parse(demo.stdout) as {
        value: { runs: Array<{ id: string; live: boolean; expected: string }>; runnerPids: number[] };
      };
      try {
        expect(demo.stderr).not.toMatch(/did not start in time/);
        expect(demo.status).toBe(0);
        const live = result.value.runs.filter((run) => run.live);
        expect(live.map((run) => run.expected).sort()).toEqual(['needs-answer', 'running', 'running']);
        // Each live run was found by its runner (its id is the run's, not the request key).
        for (const run of live) expect(run.id).toMatch(/^run_/);
      } finally {
        stopRunners(result.value.runnerPids);
      }
    },
  );

  it('answers stableCliLaunch() from inside the app: the launcher, or the PATH link that leads to it', () => {
    const fromCli = pathToFileURL(join(resources, 'cli', 'runwarden.js')).href;
    const fromMain = pathToFileURL(join(resources, 'app.asar', 'out', 'main', 'index.js')).href;
    const launcher = join(resources, 'bin', posix ? 'runwarden' : 'runwarden.cmd');
    const home = mkdtempSync(join(work, 'home-'));
    const probe = (moduleUrl: string) => ({
      moduleUrl,
      platform: process.platform,
      execPath: join(app, 'runwarden'),
      inElectron: false,
      home,
      exists: existsSync,
      realpath: (path: string) => {
        try {
          return require('node:fs').realpathSync(path) as string;
        } catch {
          return path;
        }
      },
    });
    expect(stableCliLaunch(probe(fromCli)).argv).toEqual([launcher]);
    expect(stableCliLaunch(probe(fromMain)).argv).toEqual([launcher]);
    if (posix) {
      mkdirSync(join(home, '.local', 'bin'), { recursive: true });
      symlinkSync(launcher, join(home, '.local', 'bin', 'runwarden'));
      expect(stableCliLaunch(probe(fromCli)).argv).toEqual([join(home, '.local', 'bin', 'runwarden')]);
      // A `runwarden` on the PATH that is some other program is not ours to name.
      rmSync(join(home, '.local', 'bin', 'runwarden'));
      writeFileSync(join(home, '.local', 'bin', 'runwarden'), '#!/bin/sh\n');
      expect(stableCliLaunch(probe(fromCli)).argv).toEqual([launcher]);
    }
    expect(relative(resources, launcher)).toMatch(/^bin[/\\]runwarden/);
  });
});
