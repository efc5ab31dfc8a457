/** Where the built CLI and test fixtures live, for tests that spawn them. */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_BIN = join(REPO_ROOT, 'bin/runwarden.js');
export const FIXTURES_OUT_DIR = join(REPO_ROOT, 'out/test-fixtures');

export function fixturePath(name: string): string {
  return join(FIXTURES_OUT_DIR, `${name}.js`);
}
