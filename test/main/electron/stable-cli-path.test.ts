/**
 * stableCliLaunch(): how agent hooks, the pi extension and `demo` start the CLI, per platform. In a checkout
 * (this one, for real), a Node and bin/runwarden.js; installed layouts with fakes here, and for real on a
 * packaged app in packaging.test.ts. Windows never gets a `.cmd`: Node refuses to spawn one without a shell.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  installedLauncher,
  launchCommandLine,
  runningCliLaunch,
  stableCliLaunch,
  type StableCliProbe,
} from '../../../main/platform/stable-cli-path';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const shim = join(root, 'bin', 'runwarden.js');

function probe(moduleUrl: string, over: Partial<StableCliProbe> = {}): StableCliProbe {
  return {
    moduleUrl,
    platform: 'linux',
    execPath: '/opt/node/bin/node',
    inElectron: false,
    home: '/home/someone',
    exists: existsSync,
    realpath: (path) => (existsSync(path) ? realpathSync(path) : path),
    ...over,
  };
}

/** A fake file system holding `files`, where `links` lead to their targets. */
function installed(
  moduleUrl: string,
  platform: NodeJS.Platform,
  files: string[],
  links: Record<string, string> = {},
  over: Partial<StableCliProbe> = {},
): StableCliProbe {
  const present = new Set(files);
  return probe(moduleUrl, {
    platform,
    exists: (path) => present.has(path) || path in links,
    realpath: (path) => links[path] ?? path,
    ...over,
  });
}

describe('stableCliLaunch() in a checkout', () => {
  it('the Node running the CLI and bin/runwarden.js, from the sources or the built bundles', () => {
    for (const from of [
      'main/platform/stable-cli-path.ts',
      'out/cli/runwarden.js',
      'out/cli/chunks/x.js',
      'out/main/index.js',
    ]) {
      expect(stableCliLaunch(probe(pathToFileURL(join(root, from)).href))).toEqual({
        argv: ['/opt/node/bin/node', shim],
        env: {},
      });
    }
  });

  it("from Electron's main process: `node`, since Electron's own executable is not one", () => {
    const url = pathToFileURL(join(root, 'out/main/index.js')).href;
    expect(stableCliLaunch(probe(url, { inElectron: true })).argv).toEqual(['node', shim]);
  });

  it('with the default probe (this process): a Node and this checkout, which starts for real', () => {
    const launch = stableCliLaunch();
    expect(launch).toEqual({ argv: [process.execPath, shim], env: {} });
    const [file = '', ...args] = launch.argv;
    const run = spawnSync(file, [...args, '--version'], {
      encoding: 'utf8',
      env: { ...process.env, ...launch.env },
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/\d+\.\d+\.\d+/);
  });
});

describe('stableCliLaunch() of an installed app, per platform', () => {
  it('Linux: the deb’s /usr/bin/runwarden when it leads to this launcher, else the launcher itself', () => {
    const files = ['/opt/Runwarden/resources/cli/entry.js', '/opt/Runwarden/resources/bin/runwarden'];
    const url = pathToFileURL('/opt/Runwarden/resources/cli/chunks/cli-core-x.js').href;
    const linked = installed(url, 'linux', files, {
      '/usr/bin/runwarden': '/opt/Runwarden/resources/bin/runwarden',
    });
    expect(installedLauncher(linked)).toBe('/opt/Runwarden/resources/bin/runwarden');
    expect(stableCliLaunch(linked)).toEqual({ argv: ['/usr/bin/runwarden'], env: {} });
    // From the main bundle inside app.asar too.
    const fromMain = installed(
      pathToFileURL('/opt/Runwarden/resources/app.asar/out/main/index.js').href,
      'linux',
      files,
    );
    expect(stableCliLaunch(fromMain)).toEqual({ argv: ['/opt/Runwarden/resources/bin/runwarden'], env: {} });
    // A launcher without the CLI beside it is not an install.
    const partial = installed(url, 'linux', files.slice(1));
    expect(installedLauncher(partial)).toBeNull();
    expect(stableCliLaunch(partial).argv).toEqual(['runwarden']);
  });

  it('macOS: the /usr/local/bin link of the Settings action, else the script in Contents/Resources/bin', () => {
    const resources = '/Applications/Runwarden.app/Contents/Resources';
    const files = [`${resources}/cli/entry.js`, `${resources}/bin/runwarden`];
    const url = pathToFileURL(`${resources}/app.asar/out/main/index.js`).href;
    expect(stableCliLaunch(installed(url, 'darwin', files))).toEqual({
      argv: [`${resources}/bin/runwarden`],
      env: {},
    });
    const linked = installed(url, 'darwin', files, {
      '/usr/local/bin/runwarden': `${resources}/bin/runwarden`,
    });
    expect(stableCliLaunch(linked)).toEqual({ argv: ['/usr/local/bin/runwarden'], env: {} });
    // A link to another copy of the app is not this install's.
    const foreign = installed(url, 'darwin', files, { '/usr/local/bin/runwarden': '/Volumes/Runwarden/x' });
    expect(stableCliLaunch(foreign).argv).toEqual([`${resources}/bin/runwarden`]);
  });

  it('Windows: Runwarden.exe in Node mode on resources\\cli\\entry.js, never runwarden.cmd', () => {
    const resources = 'C:\\Users\\Someone\\AppData\\Local\\Programs\\Runwarden\\resources';
    const files = [`${resources}\\cli\\entry.js`, `${resources}\\bin\\runwarden.cmd`];
    for (const module of ['cli/chunks/cli-core-x.js', 'cli/runwarden.js', 'app.asar/out/main/index.js']) {
      const url = `file:///C:/Users/Someone/AppData/Local/Programs/Runwarden/resources/${module}`;
      const fake = installed(url, 'win32', files);
      expect(installedLauncher(fake)).toBe(`${resources}\\bin\\runwarden.cmd`);
      expect(stableCliLaunch(fake)).toEqual({
        argv: [
          'C:\\Users\\Someone\\AppData\\Local\\Programs\\Runwarden\\Runwarden.exe',
          `${resources}\\cli\\entry.js`,
        ],
        env: { ELECTRON_RUN_AS_NODE: '1' },
      });
    }
  });

  it('Windows checkout: node.exe and bin\\runwarden.js', () => {
    const fake = installed(
      'file:///C:/src/runwarden/out/cli/runwarden.js',
      'win32',
      ['C:\\src\\runwarden\\bin\\runwarden.js', 'C:\\src\\runwarden\\package.json'],
      {},
      { execPath: 'C:\\Program Files\\nodejs\\node.exe' },
    );
    expect(stableCliLaunch(fake)).toEqual({
      argv: ['C:\\Program Files\\nodejs\\node.exe', 'C:\\src\\runwarden\\bin\\runwarden.js'],
      env: {},
    });
  });
});

describe('runningCliLaunch(): the CLI that runs now, started again (demo’s live runners)', () => {
  it('per platform', () => {
    const linux = probe('file:///x.js', { execPath: '/usr/bin/node' });
    expect(runningCliLaunch('/src/bin/runwarden.js', linux)).toEqual({
      argv: ['/usr/bin/node', '/src/bin/runwarden.js'],
      env: {},
    });
    expect(runningCliLaunch('/opt/Runwarden/resources/bin/runwarden', linux)).toEqual({
      argv: ['/opt/Runwarden/resources/bin/runwarden'],
      env: {},
    });
    const win = probe('file:///C:/x.js', {
      platform: 'win32',
      execPath: 'C:\\Apps\\Runwarden\\Runwarden.exe',
    });
    expect(runningCliLaunch('C:\\Apps\\Runwarden\\resources\\bin\\runwarden.cmd', win)).toEqual({
      argv: ['C:\\Apps\\Runwarden\\Runwarden.exe', 'C:\\Apps\\Runwarden\\resources\\cli\\entry.js'],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
  });
});

describe('launchCommandLine(): a hook’s shell command line', () => {
  it('puts the variables first and quotes every argument for sh and Git Bash', () => {
    expect(
      launchCommandLine(
        {
          argv: [
            'C:\\Program Files\\Runwarden\\Runwarden.exe',
            'C:\\Program Files\\Runwarden\\resources\\cli\\entry.js',
          ],
          env: { ELECTRON_RUN_AS_NODE: '1' },
        },
        ['agents', 'hook', 'claude-code'],
      ),
    ).toBe(
      "ELECTRON_RUN_AS_NODE=1 'C:\\Program Files\\Runwarden\\Runwarden.exe' 'C:\\Program Files\\Runwarden\\resources\\cli\\entry.js' agents hook claude-code",
    );
    // And the line runs: a shell with the variable set starts the program with it.
    const line = launchCommandLine({
      argv: [process.execPath, '-e', 'console.log(process.env.RW_X)'],
      env: { RW_X: "it's" },
    });
    expect(spawnSync('sh', ['-c', line], { encoding: 'utf8' }).stdout).toBe("it's\n");
  });
});
