/**
 * Vitest globalSetup for the node project: builds the real CLI bundle and the reliability fixtures
 * (test/reliability/fixtures/*.ts) once per test run, into a private folder under out/ laid out like the
 * package (bin/ shims beside out/cli/), so CLI tests spawn the real `runwarden` and a concurrent
 * `npm run build:cli` (which empties out/cli) cannot pull the bundle from under them.
 * node_modules is found by walking up from out/, as for the real bundle.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { CLI_ENTRIES, HOOK_ENTRY, nodeBuildConfig } from '../../vite.cli.config';
import { REPO_ROOT } from './paths';

export default async function setup(project: TestProject): Promise<() => void> {
  mkdirSync(join(REPO_ROOT, 'out'), { recursive: true });
  const root = mkdtempSync(join(REPO_ROOT, 'out', 'test-build-'));
  // Every entry `npm run build:cli` builds, so the chunks are cut as in the bundle that ships.
  await build({ ...nodeBuildConfig(CLI_ENTRIES, join(root, 'out/cli')), configFile: false });
  // `agents hook`'s own entry, beside it, as npm run build:cli builds it.
  await build({
    ...nodeBuildConfig(HOOK_ENTRY, join(root, 'out/cli'), { oneFile: true }),
    configFile: false,
  });
  mkdirSync(join(root, 'bin'));
  for (const shim of ['runwarden.js', 'runwarden']) {
    copyFileSync(join(REPO_ROOT, 'bin', shim), join(root, 'bin', shim));
    chmodSync(join(root, 'bin', shim), 0o755);
  }
  const fixturesDir = join(REPO_ROOT, 'test/reliability/fixtures');
  const fixtures: Record<string, string> = {};
  for (const file of readdirSync(fixturesDir)) {
    if (file.endsWith('.ts')) fixtures[basename(file, '.ts')] = join(fixturesDir, file);
  }
  await build({ ...nodeBuildConfig(fixtures, join(root, 'fixtures')), configFile: false });
  project.provide('runwardenBuild', root);
  return () => rmSync(root, { recursive: true, force: true });
}
