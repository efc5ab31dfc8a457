/**
 * stableCliCommand(): the command agent hooks are written with. In a checkout (this one, for real), a Node and
 * bin/runwarden.js; an installed app's answers are tested on a packaged app in packaging.test.ts.
 */
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installedLauncher, stableCliCommand, type StableCliProbe } from '../../../main/cli/stable-cli-path';

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

describe('stableCliCommand()', () => {
  it('in a checkout: the Node running the CLI and bin/runwarden.js, from the sources or the built bundles', () => {
    for (const from of [
      'main/cli/stable-cli-path.ts',
      'out/cli/runwarden.js',
      'out/cli/chunks/x.js',
      'out/main/index.js',
    ]) {
      expect(stableCliCommand(probe(pathToFileURL(join(root, from)).href))).toEqual([
        '/opt/node/bin/node',
        shim,
      ]);
    }
  });

  it("from Electron's main process in a checkout: `node`, since Electron's own executable is not one", () => {
    const url = pathToFileURL(join(root, 'out/main/index.js')).href;
    expect(stableCliCommand(probe(url, { inElectron: true }))).toEqual(['node', shim]);
  });

  it('with the default probe (this process): a Node and this checkout', () => {
    expect(stableCliCommand()).toEqual([process.execPath, shim]);
  });

  it('an installed layout: resources/cli/entry.js beside resources/bin/runwarden(.cmd)', () => {
    const files = new Set([
      '/opt/Runwarden/resources/cli/entry.js',
      '/opt/Runwarden/resources/bin/runwarden',
      'C:\\Apps\\Runwarden\\resources\\cli\\entry.js',
    ]);
    const fake = probe(pathToFileURL('/opt/Runwarden/resources/cli/chunks/cli-core-x.js').href, {
      exists: (path) => files.has(path) || path === '/usr/bin/runwarden',
      realpath: (path) => (path === '/usr/bin/runwarden' ? '/opt/Runwarden/resources/bin/runwarden' : path),
    });
    expect(installedLauncher(fake)).toBe('/opt/Runwarden/resources/bin/runwarden');
    // The deb's /usr/bin/runwarden leads to it: hooks name the link, which survives reinstalls elsewhere.
    expect(stableCliCommand(fake)).toEqual(['/usr/bin/runwarden']);
    // A launcher without the CLI beside it is not an install.
    files.delete('/opt/Runwarden/resources/cli/entry.js');
    expect(installedLauncher(fake)).toBeNull();
    expect(stableCliCommand(fake)).toEqual(['runwarden']);
  });
});
