#!/usr/bin/env node
// The `runwarden` command: a thin shim over the built CLI bundle (npm run build:cli).
import { fileURLToPath } from 'node:url';

// Node's own objects, not through `import`: the ESM wrapper of node:fs reads every export, which loads
// fs/promises, readline and the stream modules into every start (docs/CLI.md#start-up).
const { existsSync } = process.getBuiltinModule('node:fs');
const { enableCompileCache } = process.getBuiltinModule('node:module');

const bundle = new URL('../out/cli/runwarden.js', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write("Runwarden's CLI is not built: run npm run build:cli\n");
  process.exit(1);
}
// Runners start this often (notify, progress, step): V8's compiled code for the bundle and better-sqlite3 is
// kept beside the bundle, so later starts skip compiling it (docs/CLI.md#start-up). Beside the code
// it caches, whoever could write the cache could write the code; an unwritable folder only means no cache.
try {
  enableCompileCache(fileURLToPath(new URL('../out/cli/.compile-cache', import.meta.url)));
} catch {
  // A Node without it, or a cache it cannot use: start without one.
}
await import(bundle.href);
