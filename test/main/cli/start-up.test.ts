/**
 * What a short CLI process loads and keeps (docs/PERFORMANCE.md, round 6): the compile cache beside the bundle,
 * a start without it when its folder cannot be made, and a runner's `notify` / `progress` starting without
 * the built-in modules only other commands need. Each test runs its own copy of this run's build, so a cache
 * it breaks is nobody else's.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
    const entries = readdirSync(cacheDir(), { recursive: true });
    expect(entries.length).toBeGreaterThan(3);
    const again = run(['--version'], { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/code cache for ESM .*out\/cli\/runwarden\.js was accepted/);
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

  it('a runner command inside a run loads neither node:crypto, worker_threads nor readline', () => {
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
    }
    // progress checks the run's token (a hash); notify needs no id and no token.
    expect(notify).not.toContain('NativeModule crypto');
    expect(t.store.getRun(claim.runId).statusDetail).toBe('halfway');
  });
});
