/**
 * Where the Electron binary of node_modules/electron is, without downloading it (requiring `electron` would
 * start the download): electron's install step writes the binary's path inside dist/ to path.txt.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The absolute path of the installed Electron binary, or null when it is not installed. */
export function installedElectron(projectRoot, env = process.env) {
  const packageDir = join(projectRoot, 'node_modules', 'electron');
  let relative = null;
  try {
    relative = readFileSync(join(packageDir, 'path.txt'), 'utf8').trim();
  } catch {
    return null;
  }
  const dist = env.ELECTRON_OVERRIDE_DIST_PATH || join(packageDir, 'dist');
  const binary = join(dist, relative);
  return existsSync(binary) ? binary : null;
}
