/**
 * Which better-sqlite3 binary a process loads: its loader (lib/binding.js) picks
 * `prebuilds/<platform>-<process.arch>.node` of the process that runs it. So an arm64 Electron started from
 * an x64 (Rosetta) Node loads darwin-arm64.node, whatever architecture npm ran under. Each case runs the real
 * loader in a child Node whose `process.platform` / `process.arch` are set to the case's before it loads.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// The package's exports hide lib/: reach the loader the way Node does, from the package's own folder.
const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
const bindingJs = join(packageDir, 'lib', 'binding.js');

/** The prebuilt binary the real loader would load in a process of this platform and architecture. */
function chosenBinary(platform: string, arch: string): string | null {
  const script = `
    Object.defineProperty(process, 'platform', { value: ${JSON.stringify(platform)} });
    Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} });
    const { getPrebuildPath } = require(${JSON.stringify(bindingJs)});
    process.stdout.write(JSON.stringify(getPrebuildPath()));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as
    string | null;
  return out === null ? null : relative(packageDir, out);
}

describe("better-sqlite3 loads the binary of the running process's architecture", () => {
  it.each([
    ['darwin', 'arm64', 'prebuilds/darwin-arm64.node'],
    ['darwin', 'x64', 'prebuilds/darwin-x64.node'],
    ['win32', 'x64', 'prebuilds/win32-x64.node'],
    ['win32', 'arm64', 'prebuilds/win32-arm64.node'],
    ['linux', 'x64', 'prebuilds/linux-x64.node'],
    ['linux', 'arm64', 'prebuilds/linux-arm64.node'],
  ])('%s %s → %s', (platform, arch, binary) => {
    expect(chosenBinary(platform, arch)).toBe(binary);
    expect(existsSync(join(packageDir, binary))).toBe(true);
  });

  it('an architecture without a prebuilt binary gets none (and no silent fallback to another arch)', () => {
    expect(chosenBinary('darwin', 'ia32')).toBeNull();
  });

  it('nothing compiled shadows the prebuilt binaries (the loader prefers build/ when it exists)', () => {
    expect(existsSync(join(packageDir, 'build', 'Release', 'better_sqlite3.node'))).toBe(false);
    expect(existsSync(join(packageDir, 'build', 'Debug', 'better_sqlite3.node'))).toBe(false);
  });
});
