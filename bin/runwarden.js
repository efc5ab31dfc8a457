#!/usr/bin/env node
// The `runwarden` command: a thin shim over the built CLI bundle (npm run build:cli).
import { existsSync } from 'node:fs';

const bundle = new URL('../out/cli/runwarden.js', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write("Runwarden's CLI is not built: run npm run build:cli\n");
  process.exit(1);
}
await import(bundle.href);
