/**
 * The import graph of main/, shared/ and renderer/src/, read from the sources as text: static imports,
 * `export … from`, `import('…')` and `import.meta.glob('…')` with a literal path. Used by
 * test/main/import-graph.test.ts to hold the layers of docs/ARCHITECTURE.md#parts and to refuse circles.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

export type Sources = Record<string, string>;

const SOURCE = /\.(ts|svelte|js|mjs|cjs)$/;
const IMPORT =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\.meta\.glob(?:<[^>]*>)?\(\s*['"]([^'"]+)['"]/gm;

/** Every source file under the roots, by repository-relative path with forward slashes. */
export function readSources(repo: string, roots: readonly string[]): Sources {
  const out: Sources = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const path = posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        out[path] = readFileSync(join(repo, path), 'utf8');
      }
    }
  };
  for (const root of roots) if (existsSync(join(repo, root))) walk(root);
  return out;
}

/** The import specifiers a source names, comments left out. */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(IMPORT)].map((m) => (m[1] ?? m[2] ?? m[3]) as string);
}

/** The renderer's aliases (tsconfig.base.json `paths`, electron.vite.config.ts `RENDERER_ALIASES`). */
const ALIASES: Record<string, string> = { $lib: 'renderer/src/lib', $shared: 'shared' };

/** The file an import names, among `files`; null for a package or a file outside them. */
export function resolveImport(from: string, spec: string, files: ReadonlySet<string>): string | null {
  const alias = Object.keys(ALIASES).find((name) => spec === name || spec.startsWith(`${name}/`));
  let base: string;
  if (alias !== undefined) base = posix.join(ALIASES[alias] as string, spec.slice(alias.length));
  else if (spec.startsWith('.')) base = posix.normalize(posix.join(posix.dirname(from), spec));
  else return null;
  const candidates = [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => files.has(candidate)) ?? null;
}

/** Each file's imports that land on another file of the graph. */
export function importGraph(sources: Sources): Map<string, string[]> {
  const files = new Set(Object.keys(sources));
  const graph = new Map<string, string[]>();
  for (const [file, source] of Object.entries(sources)) {
    const targets = specifiers(source)
      .map((spec) => resolveImport(file, spec, files))
      .filter((target): target is string => target !== null && target !== file);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The circles: each strongly connected group of two or more files (Tarjan), sorted for a stable message. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** Whether `path` is a file of the repository (for tests that name files). */
export function isRepoFile(repo: string, path: string): boolean {
  const full = join(repo, path);
  return existsSync(full) && statSync(full).isFile() && !relative(repo, full).startsWith('..');
}

export const repoRoot = join(dirname(new URL(import.meta.url).pathname), '..', '..');
