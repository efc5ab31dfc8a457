/** Where the built CLI and test fixtures live, for tests that spawn them. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The repository's own shim (bin/runwarden.js → out/cli/runwarden.js, as `npm run build:cli` builds it). */
export const CLI_BIN = join(REPO_ROOT, 'bin/runwarden.js');

declare module 'vitest' {
  export interface ProvidedContext {
    /** A private build made by test/helpers/global-setup.ts: bin/, out/cli/ and fixtures/ inside. */
    runwardenBuild: string;
  }
}

/** Vitest tests: the CLI shim of this test run's private build (immune to a concurrent `npm run build:cli`). */
export function testCliBin(): string {
  return join(inject('runwardenBuild'), 'bin/runwarden.js');
}

/** Vitest tests: a reliability fixture (test/reliability/fixtures/NAME.ts) built for this test run. */
export function fixturePath(name: string): string {
  return join(inject('runwardenBuild'), 'fixtures', `${name}.js`);
}
