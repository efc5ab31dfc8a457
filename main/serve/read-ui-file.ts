/**
 * A file of the built UI, read only if its real path (symlinks resolved) is inside the UI folder's real
 * path: a link inside the folder that points elsewhere (at /etc/passwd, at the store) is not served
 * (docs/ARCHITECTURE.md#browser-mode).
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** The file's bytes, or null when it is missing, not a regular file, or resolves outside `uiDir`. */
export async function readUiFile(uiDir: string, relative: string): Promise<Buffer | null> {
  try {
    const root = await realpath(uiDir);
    const real = await realpath(path.resolve(root, relative));
    if (!real.startsWith(root + path.sep)) return null;
    if (!(await stat(real)).isFile()) return null;
    return await readFile(real);
  } catch {
    return null;
  }
}
