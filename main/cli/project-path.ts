/**
 * Which project a command means (docs/CLI.md#projects): `--project DIR` when given, else the enclosing
 * repository's root (the nearest folder holding `.git`, a folder in a clone or a file in a git worktree),
 * else the current folder. Always the real path, so one folder is one project however it is reached.
 */
import { basename, dirname, join, resolve, sep } from 'node:path';
import { UsageError } from './usage-error';

// Not an ESM import: node:fs's ESM wrapper loads the stream modules, and an agent's hook call that needs no
// person reads its project on every tool call (docs/CLI.md#start-up).
const { existsSync, realpathSync, statSync } = process.getBuiltinModule('node:fs');

export function projectFolder(flag: string | undefined, cwd: string): string {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new UsageError('--project needs a folder');
    return realFolder(resolve(cwd, flag), `no such project folder: ${flag}`);
  }
  const here = realFolder(cwd, `the current folder ${cwd} does not exist`);
  return repositoryRoot(here) ?? here;
}

/** An existing folder's real path; `--project FILE` or a missing folder is a usage error. */
export function realFolder(path: string, missing: string): string {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new UsageError(missing);
  }
  if (!statSync(real).isDirectory()) throw new UsageError(`not a folder: ${path}`);
  return real;
}

function repositoryRoot(from: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Short names for project folders in a table: the folder name, and where two projects share it, as many
 * parent folders as tell them apart (`a/api`, `b/api`).
 */
export function projectLabels(paths: Iterable<string>): Map<string, string> {
  const unique = [...new Set(paths)];
  const parts = new Map(unique.map((path) => [path, path.split(sep).filter((part) => part !== '')]));
  const depth = new Map(unique.map((path) => [path, 1]));
  const label = (path: string): string => {
    const segments = parts.get(path) ?? [basename(path)];
    return segments.slice(-(depth.get(path) ?? 1)).join('/') || path;
  };
  for (let round = 0; round < 64; round += 1) {
    const byLabel = new Map<string, string[]>();
    for (const path of unique) byLabel.set(label(path), [...(byLabel.get(label(path)) ?? []), path]);
    let changed = false;
    for (const group of byLabel.values()) {
      if (group.length < 2) continue;
      for (const path of group) {
        const max = parts.get(path)?.length ?? 1;
        const current = depth.get(path) ?? 1;
        if (current < max) {
          depth.set(path, current + 1);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return new Map(unique.map((path) => [path, label(path)]));
}
