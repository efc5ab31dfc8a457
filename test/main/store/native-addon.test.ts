/**
 * One better-sqlite3 binary for everything (docs/ARCHITECTURE.md#native-addon): the package's own prebuilt
 * N-API file loads in the main thread, in the hygiene worker thread and in the CLI process, from the same
 * path; nothing in the repository compiles, rebuilds or copies it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHygieneWorker, type HygieneWorker } from '../../../main/store';
import { killQuietly, spawnCli, tempDir, waitFor, type CliProcess, type TempDir } from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';
import { createTempStore, type TempStore } from '../../helpers/temp-store';

const packageDir = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
const onLinux = process.platform === 'linux';

/** The better-sqlite3 addon files a process has mapped (Linux: its /proc maps). */
function mappedAddons(pid: number | 'self'): string[] {
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
  const paths = new Set<string>();
  for (const line of maps.split('\n')) {
    const path = line.slice(line.indexOf('/'));
    if (line.includes('/') && path.includes('better-sqlite3') && path.endsWith('.node')) paths.add(path);
  }
  return [...paths];
}

describe('the better-sqlite3 addon', () => {
  let t: TempStore | null = null;
  let worker: HygieneWorker | null = null;
  let dir: TempDir | null = null;
  let cli: CliProcess | null = null;
  afterEach(async () => {
    killQuietly(cli?.child.pid);
    await cli?.done.catch(() => undefined);
    cli = null;
    await worker?.stop();
    worker = null;
    t?.cleanup();
    t = null;
    dir?.remove();
    dir = null;
  });

  it('is the prebuilt binary the package ships, with nothing compiled beside it', () => {
    expect(existsSync(join(packageDir, 'build'))).toBe(false);
    const prebuilds = readdirSync(join(packageDir, 'prebuilds'));
    expect(prebuilds).toContain(`${process.platform}-${process.arch}.node`);
  });

  it.skipIf(!onLinux)(
    'loads from the same file in this thread, the hygiene worker thread and the CLI (reads /proc maps: Linux)',
    async () => {
      t = createTempStore();
      worker = startHygieneWorker(t.store, { intervalMs: 60_000 });
      expect(await worker.ready).toBe(true);
      // The worker ran a round on its own connection: its addon instance works.
      expect(await worker.runNow()).not.toBeNull();
      const here = mappedAddons('self');
      expect(here).toEqual([join(packageDir, 'prebuilds', `${process.platform}-${process.arch}.node`)]);

      dir = tempDir();
      cli = spawnCli(['exec', '--title', 'addon probe', '--', 'sleep', '30'], {
        store: dir.store,
        cwd: dir.path,
      });
      const pid = cli.child.pid!;
      const inCli = await waitFor('the CLI to open its store', () => {
        const found = mappedAddons(pid);
        return found.length > 0 ? found : undefined;
      });
      expect(inCli).toEqual(here);
    },
  );
});

describe('nothing rebuilds or copies the addon', () => {
  const files = [
    'package.json',
    'electron-builder.yml',
    ...readdirSync(join(REPO_ROOT, 'scripts')).map((name) => `scripts/${name}`),
  ];
  // Tools and settings that compile or replace a native addon for another ABI.
  const forbidden = [
    /electron-rebuild|@electron\/rebuild|install-app-deps/,
    /node-gyp|prebuild-install/,
    /npmRebuild:\s*true|nodeGypRebuild:\s*true|buildDependenciesFromSource:\s*true/,
    /better_sqlite3\.node|nativeBinding|RUNWARDEN_NATIVE_BINDING/,
    /"(pre|post)install"/,
  ];
  it("denies better-sqlite3's inferred `node-gyp rebuild` install script (npm would compile it)", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      allowScripts?: Record<string, boolean>;
    };
    expect(pkg.allowScripts?.['better-sqlite3']).toBe(false);
  });

  it.each(files)('%s', (file) => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const pattern of forbidden) expect(text, `${file} matches ${pattern}`).not.toMatch(pattern);
  });
});
