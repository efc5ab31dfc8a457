import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  copyFilter,
  electronBuildEnv,
  electronLaunch,
  ensureNativeBinding,
  nativeBindingPath,
  nodeGypArgs,
  prebuildInstallArgs,
  stampMatches,
  type RunSync,
} from '../../../scripts/start.js';
import { electronNativeBindingPath, NATIVE_BINDING_ENV } from '../../../main/electron/native-binding';

const TARGET = { electronVersion: '45.5.0', platform: 'linux' as const, arch: 'x64' };

describe('scripts/start.js helpers', () => {
  it('puts the addon where the app looks for it (main/electron/native-binding.ts)', () => {
    expect(nativeBindingPath('/p', '45.5.0')).toBe(electronNativeBindingPath('/p', '45.5.0'));
  });

  it('builds for Electron, never with Node headers from nodedir (STACK.md pitfall 1)', () => {
    const env = electronBuildEnv(
      {
        PATH: '/usr/bin',
        npm_config_nodedir: '/usr',
        NPM_CONFIG_NODEDIR: '/usr',
        npm_config_runtime: 'node',
        npm_config_target: '20.20.2',
        npm_config_arch: 'ia32',
      },
      TARGET,
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      npm_config_runtime: 'electron',
      npm_config_target: '45.5.0',
      npm_config_disturl: 'https://electronjs.org/headers',
      npm_config_arch: 'x64',
      npm_config_target_arch: 'x64',
    });
  });

  it('asks prebuild-install and node-gyp for the Electron runtime of this version', () => {
    expect(prebuildInstallArgs(TARGET)).toEqual([
      '--runtime=electron',
      '--target=45.5.0',
      '--platform=linux',
      '--arch=x64',
      '--verbose',
    ]);
    expect(nodeGypArgs(TARGET)).toEqual([
      'rebuild',
      '--release',
      '--runtime=electron',
      '--target=45.5.0',
      '--arch=x64',
      '--dist-url=https://electronjs.org/headers',
    ]);
  });

  it('launches the project folder with the addon path, and never as plain Node', () => {
    const launch = electronLaunch({
      electronPath: '/cache/electron',
      projectRoot: '/p',
      bindingPath: '/p/.cache/electron-native/45.5.0/better_sqlite3.node',
      env: { HOME: '/home/me', ELECTRON_RUN_AS_NODE: '1' },
      args: ['--hidden'],
    });
    expect(launch).toEqual({
      command: '/cache/electron',
      args: ['/p', '--hidden'],
      env: { HOME: '/home/me', [NATIVE_BINDING_ENV]: '/p/.cache/electron-native/45.5.0/better_sqlite3.node' },
    });
  });

  it('copies the package without a previous build', () => {
    const keep = copyFilter('/nm/better-sqlite3');
    expect(keep('/nm/better-sqlite3')).toBe(true);
    expect(keep('/nm/better-sqlite3/src/better_sqlite3.cpp')).toBe(true);
    expect(keep('/nm/better-sqlite3/build')).toBe(false);
    expect(keep('/nm/better-sqlite3/build/Release/better_sqlite3.node')).toBe(false);
    expect(keep('/nm/better-sqlite3/buildx')).toBe(true);
  });

  it('rebuilds when anything in the stamp differs', () => {
    const stamp = { betterSqliteVersion: '12.11.1', ...TARGET };
    expect(stampMatches({ ...stamp }, stamp)).toBe(true);
    expect(stampMatches({ ...stamp, electronVersion: '45.4.0' }, stamp)).toBe(false);
    expect(stampMatches({ ...stamp, arch: 'arm64' }, stamp)).toBe(false);
    expect(stampMatches(null, stamp)).toBe(false);
  });
});

describe('ensureNativeBinding (fake build tools, real files in a temp folder)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function project() {
    const root = mkdtempSync(join(tmpdir(), 'runwarden-start-'));
    dirs.push(root);
    const pkg = join(root, 'node_modules', 'better-sqlite3');
    mkdirSync(join(pkg, 'build', 'Release'), { recursive: true });
    mkdirSync(join(pkg, 'src'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '12.11.1' }));
    writeFileSync(join(pkg, 'src', 'better_sqlite3.cpp'), '// source');
    writeFileSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'), 'NODE ABI 115');
    const req = {
      resolve: (id: string) => {
        const map: Record<string, string> = {
          'better-sqlite3/package.json': join(pkg, 'package.json'),
          'prebuild-install/bin.js': '/fake/prebuild-install/bin.js',
          'node-gyp/bin/node-gyp.js': '/fake/node-gyp/bin/node-gyp.js',
        };
        const found = map[id];
        if (found === undefined) throw new Error(`cannot resolve ${id}`);
        return found;
      },
    };
    return { root, pkg, req };
  }

  /** A build tool that "produces" the addon when its name matches, as the real ones write build/Release. */
  function tools(succeeds: 'prebuild' | 'node-gyp' | 'none') {
    const calls: Array<{
      tool: string;
      args: string[];
      cwd: string;
      env: Record<string, string | undefined>;
    }> = [];
    const run: RunSync = (_command, args, options) => {
      const tool = String(args[0]).includes('node-gyp') ? 'node-gyp' : 'prebuild';
      calls.push({ tool, args: args.slice(1), cwd: options.cwd, env: options.env ?? {} });
      // The copy the tool works in must not carry the Node build along.
      expect(existsSync(join(options.cwd, 'build', 'Release', 'better_sqlite3.node'))).toBe(false);
      expect(existsSync(join(options.cwd, 'src', 'better_sqlite3.cpp'))).toBe(true);
      if (tool !== succeeds) return 1;
      mkdirSync(join(options.cwd, 'build', 'Release'), { recursive: true });
      writeFileSync(
        join(options.cwd, 'build', 'Release', 'better_sqlite3.node'),
        `ELECTRON ABI 150 via ${tool}`,
      );
      return 0;
    };
    return { run, calls };
  }

  const quiet = () => {};

  it('uses a prebuilt addon when there is one, and leaves node_modules alone', () => {
    const { root, pkg, req } = project();
    const { run, calls } = tools('prebuild');
    const path = ensureNativeBinding({
      projectRoot: root,
      ...TARGET,
      require: req,
      env: { npm_config_nodedir: '/usr' },
      run,
      log: quiet,
    });
    expect(path).toBe(nativeBindingPath(root, '45.5.0'));
    expect(readFileSync(path, 'utf8')).toBe('ELECTRON ABI 150 via prebuild');
    expect(calls.map((c) => c.tool)).toEqual(['prebuild']);
    expect(calls[0]?.args).toEqual(prebuildInstallArgs(TARGET));
    expect(calls[0]?.env.npm_config_nodedir).toBeUndefined();
    expect(readFileSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'), 'utf8')).toBe('NODE ABI 115');
    expect(existsSync(join(root, '.cache', 'electron-native', '45.5.0', 'better-sqlite3'))).toBe(false);
  });

  it('compiles with node-gyp when no prebuilt addon exists', () => {
    const { root, req } = project();
    const { run, calls } = tools('node-gyp');
    const path = ensureNativeBinding({
      projectRoot: root,
      ...TARGET,
      require: req,
      env: {},
      run,
      log: quiet,
    });
    expect(readFileSync(path, 'utf8')).toBe('ELECTRON ABI 150 via node-gyp');
    expect(calls.map((c) => c.tool)).toEqual(['prebuild', 'node-gyp']);
    expect(calls[1]?.args).toEqual(nodeGypArgs(TARGET));
  });

  it('reuses the cached addon while the stamp matches, and rebuilds for another Electron', () => {
    const { root, req } = project();
    const first = tools('prebuild');
    ensureNativeBinding({ projectRoot: root, ...TARGET, require: req, env: {}, run: first.run, log: quiet });
    const second = tools('prebuild');
    ensureNativeBinding({ projectRoot: root, ...TARGET, require: req, env: {}, run: second.run, log: quiet });
    expect(second.calls).toEqual([]);
    const other = tools('prebuild');
    const path = ensureNativeBinding({
      projectRoot: root,
      ...TARGET,
      electronVersion: '46.0.0',
      require: req,
      env: {},
      run: other.run,
      log: quiet,
    });
    expect(other.calls).toHaveLength(1);
    expect(path).toBe(nativeBindingPath(root, '46.0.0'));
  });

  it('fails with a clear message when nothing can build it', () => {
    const { root, req } = project();
    const { run } = tools('none');
    expect(() =>
      ensureNativeBinding({ projectRoot: root, ...TARGET, require: req, env: {}, run, log: quiet }),
    ).toThrow(/could not build better-sqlite3 for Electron/);
    expect(existsSync(nativeBindingPath(root, '45.5.0'))).toBe(false);
  });
});
