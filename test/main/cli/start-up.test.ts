/**
 * What a short CLI process loads and keeps (docs/CLI.md#start-up): the compile cache beside the bundle, a
 * start without it when its folder cannot be made, and a runner's `notify` / `progress` / `step` / `effect`
 * loading only the entry, the CLI's core and the runner chunk — none of the person, host, view and search
 * code, no better-sqlite3 file of its own, and none of the built-in modules only other commands need. Each
 * test runs its own copy of this run's build, so a cache it breaks is nobody else's.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { runnerEnv } from '../../../main/runner/runner-env';
import { REPO_ROOT } from '../../helpers/paths';
import { createTempStore, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

let build: string;
let t: TempStore | null = null;
const cacheDir = () => join(build, 'out/cli/.compile-cache');

beforeAll(() => {
  // Under out/ like the real bundle, so node_modules is found by walking up.
  build = mkdtempSync(join(REPO_ROOT, 'out', 'test-start-up-'));
  const source = inject('runwardenBuild');
  cpSync(join(source, 'bin'), join(build, 'bin'), { recursive: true });
  cpSync(join(source, 'out/cli'), join(build, 'out/cli'), {
    recursive: true,
    filter: (path) => !path.includes('.compile-cache'),
  });
});
afterAll(() => rmSync(build, { recursive: true, force: true }));
afterEach(() => {
  t?.cleanup();
  t = null;
  rmSync(cacheDir(), { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const result = spawnSync(process.execPath, [...nodeArgs, join(build, 'bin/runwarden.js'), ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('CLI start-up', () => {
  it('keeps compiled code beside the bundle, and the next start uses it', () => {
    expect(run(['--version']).code).toBe(0);
    // Its version folder, and one entry for each file --version loads: the entry and the CLI's core.
    const entries = readdirSync(cacheDir(), { recursive: true });
    expect(entries.length).toBeGreaterThanOrEqual(3);
    const again = run(['--version'], { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/code cache for ESM .*out\/cli\/runwarden\.js was accepted/);
    expect(again.stderr).toMatch(/code cache for ESM .*out\/cli\/chunks\/cli-core-[\w-]+\.js was accepted/);
  });

  it('starts without a cache when its folder cannot be made', () => {
    t = createTempStore();
    // A file where the cache folder would go: nothing can be written there.
    writeFileSync(cacheDir(), 'not a folder');
    const result = run(['notify', '--store', t.path, 'no cache here']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(t.store.listNotifications({ limit: 10 }).map((n) => n.title)).toEqual(['no cache here']);
  });

  it('a runner command inside a run loads neither node:crypto, worker_threads, readline nor the stream modules', () => {
    // The CLI reads the real clock: the lease is taken at it.
    t = createTempStore({ start: Date.now() });
    const claim = reserveAndClaim(t, 60_000);
    const env = runnerEnv(t.path, claim);
    const list = join(build, `modules-${process.pid}.txt`);
    const probe = join(build, 'module-probe.cjs');
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
    );
    const loaded = (args: string[]) => {
      const result = run(args, env, ['--require', probe]);
      expect(result.code, result.stderr).toBe(0);
      return readFileSync(list, 'utf8').split('\n');
    };
    const notify = loaded(['notify', 'from the run']);
    const progress = loaded(['progress', 'halfway']);
    for (const modules of [notify, progress]) {
      expect(modules).toContain('NativeModule fs');
      expect(modules).not.toContain('NativeModule worker_threads');
      expect(modules).not.toContain('NativeModule readline');
      expect(modules).not.toContain('NativeModule readline/promises');
      // The ESM wrappers of node:fs and node:tty, and node:child_process, load these (docs/CLI.md#start-up).
      for (const other of [
        'internal/fs/promises',
        'internal/readline/interface',
        'child_process',
        'net',
        'tty',
      ])
        expect(modules).not.toContain(`NativeModule ${other}`);
    }
    // progress checks the run's token by its SHA-256 (`hashToken`, @noble/hashes), notify needs no id and no token:
    // neither loads node:crypto (and the stream modules it needs), and neither prints, so no stream module.
    for (const modules of [notify, progress]) {
      expect(modules).not.toContain('NativeModule crypto');
      expect(modules).not.toContain('NativeModule stream');
    }
    expect(t.store.getRun(claim.runId).statusDetail).toBe('halfway');
  });

  it('a runner command loads the entry, the core and the runner chunk, and none of the rest of the store', () => {
    t = createTempStore({ start: Date.now() });
    const claim = reserveAndClaim(t, 60_000);
    const env = runnerEnv(t.path, claim);
    const list = join(build, `files-${process.pid}.txt`);
    const probe = join(build, 'file-probe.cjs');
    // Every file Node's loader resolves, ES module or CommonJS, through its module hooks.
    writeFileSync(
      probe,
      `const seen = [];
require('node:module').registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, seen.join('\\n')));`,
    );
    const loaded = (args: string[]) => {
      const result = run(args, env, ['--require', probe]);
      expect(result.code, result.stderr).toBe(0);
      return readFileSync(list, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:'))
        .map((url) => fileURLToPath(url));
    };
    // What the rest of the CLI needs and a runner's call must not evaluate: a future import that pulls any
    // of it into these commands' chunks fails here.
    const elsewhere =
      /main\/store\/(run-store|person-commands|run-views|run-counts|search-|list-page|tray-attention|hygiene-worker|doctor|orphans|interaction-deadlines|maintenance|settings)|main\/services\/|main\/logs\//;
    const commands: Array<[string, string[]]> = [
      ['notify', ['notify', 'from the run']],
      ['progress', ['progress', 'halfway']],
      ['step', ['step', 'start', 'build']],
      ['step', ['step', 'end']],
      ['effect', ['effect', 'begin', '--key', 'deploy-1', '--summary', 'deploy']],
    ];
    for (const [name, args] of commands) {
      const files = loaded(args);
      const chunks = files.map((file) => basename(file).replace(/-[\w-]{8}\.js$/, '')).toSorted();
      expect(chunks, args.join(' ')).toEqual(
        ['cli-core', name, 'runner', 'runwarden.js', 'runwarden.js'].toSorted(),
      );
      expect(
        files.filter((file) => file.includes('better-sqlite3')),
        args.join(' '),
      ).toEqual([]);
      for (const file of files.filter((f) => f.includes('/chunks/'))) {
        // One non-ASCII byte and V8 holds the whole file as a two-byte string, decoded on every start.
        expect(
          readFileSync(file).some((byte) => byte > 0x7f),
          `${args.join(' ')}: ${basename(file)} has a non-ASCII character`,
        ).toBe(false);
        const sources = (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources;
        expect(
          sources.filter((source) => elsewhere.test(source)),
          `${args.join(' ')}: ${basename(file)}`,
        ).toEqual([]);
        console.log(`${args.join(' ')}: ${basename(file)} holds ${sources.length} modules`);
      }
    }
    expect(t.store.getRun(claim.runId).statusDetail).toBe('halfway');
  });
});
