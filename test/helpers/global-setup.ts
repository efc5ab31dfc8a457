/**
 * Vitest globalSetup for the node project: builds the real CLI bundle (out/cli, as `npm run build:cli`
 * does) and the reliability fixtures (test/reliability/fixtures/*.ts → out/test-fixtures/*.js) once,
 * before any test file runs. CLI tests then spawn `node bin/runwarden.js` for real.
 * Set RUNWARDEN_SKIP_BUILD=1 to reuse an existing build.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'vite';
import { CLI_ENTRIES, nodeBuildConfig } from '../../vite.cli.config';
import { FIXTURES_OUT_DIR, REPO_ROOT } from './paths';

export default async function setup(): Promise<void> {
  if (process.env.RUNWARDEN_SKIP_BUILD === '1') return;
  await build({ ...nodeBuildConfig(CLI_ENTRIES, join(REPO_ROOT, 'out/cli')), configFile: false });
  const fixturesDir = join(REPO_ROOT, 'test/reliability/fixtures');
  const entries: Record<string, string> = {};
  for (const file of readdirSync(fixturesDir)) {
    if (file.endsWith('.ts')) entries[basename(file, '.ts')] = join(fixturesDir, file);
  }
  if (Object.keys(entries).length > 0) {
    await build({ ...nodeBuildConfig(entries, FIXTURES_OUT_DIR), configFile: false });
  }
}
