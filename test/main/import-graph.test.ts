/**
 * The folder layout is the architecture (docs/ARCHITECTURE.md#parts): each part imports only the parts
 * below it, and no files import each other in a circle. Lint (`.oxlintrc.json`) refuses the common wrong
 * imports as they are typed; this test reads the whole graph, dynamic imports included, and names the file
 * and the import that break either rule.
 */
import { describe, expect, it } from 'vitest';
import { circles, importGraph, readSources, repoRoot, type Sources } from '../helpers/import-graph';

/** Each part, longest folder first, and the parts it may import (besides itself). */
const PARTS: ReadonlyArray<readonly [folder: string, mayImport: readonly string[]]> = [
  ['shared/', []],
  ['main/logs/', ['shared/']],
  ['main/platform/', ['shared/']],
  ['main/store/', ['shared/', 'main/logs/']],
  ['main/runner/', ['shared/', 'main/logs/', 'main/store/']],
  ['main/services/', ['shared/', 'main/logs/', 'main/store/', 'main/runner/']],
  [
    'main/electron/',
    ['shared/', 'main/logs/', 'main/platform/', 'main/store/', 'main/runner/', 'main/services/'],
  ],
  [
    'main/serve/',
    ['shared/', 'main/logs/', 'main/platform/', 'main/store/', 'main/runner/', 'main/services/'],
  ],
  // `runwarden serve` starts browser mode: the one shell another loads (lazily, main/cli/commands/serve.ts).
  [
    'main/cli/',
    [
      'shared/',
      'main/logs/',
      'main/platform/',
      'main/store/',
      'main/runner/',
      'main/services/',
      'main/serve/',
    ],
  ],
  ['renderer/src/', ['shared/']],
];

function partOf(file: string): string | null {
  return PARTS.find(([folder]) => file.startsWith(folder))?.[0] ?? null;
}

/** Every import that leaves its part for a part it may not use, as "from -> to". */
function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const allowed = new Map(PARTS.map(([folder, below]) => [folder, new Set([folder, ...below])]));
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const part = partOf(file);
    if (part === null) continue;
    for (const target of targets) {
      const to = partOf(target);
      if (to !== null && !allowed.get(part)?.has(to)) wrong.push(`${file} -> ${target}`);
    }
  }
  return wrong.sort();
}

const ROOTS = ['main', 'shared', 'renderer/src'];

describe('the import graph of main/, shared/ and renderer/src/', () => {
  const graph = importGraph(readSources(repoRoot, ROOTS));

  it('has every file of the tree in a part', () => {
    expect([...graph.keys()].filter((file) => partOf(file) === null)).toEqual([]);
    // The reader sees static, type-only and lazy imports alike.
    expect(graph.get('main/cli/run-cli.ts')).toContain('main/cli/commands/index.ts');
    expect(graph.get('main/cli/commands/index.ts')).toContain('main/cli/commands/ls.ts');
  });

  it('has no import running up the layers', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no circle', () => {
    expect(circles(graph)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const probe: Sources = {
    'main/store/a.ts': "import type { B } from './b';\nexport const a = 1;\n",
    'main/store/b.ts': "export async function b() {\n  return import('./a');\n}\n",
    'main/store/c.ts': "// import { x } from './a';\nimport { s } from '../../shared/s';\n",
    'main/store/up.ts': "export { h } from '../services/h';\n",
    'main/services/h.ts': "import { a } from '../store/a';\nexport const h = a;\n",
    'renderer/src/lib/v.ts': "import { s } from '$lib/w';\nimport x from '../../../main/store/a';\n",
    'renderer/src/lib/w.ts': "export * from '../../../shared/s';\n",
    'renderer/src/lib/x.ts': "export { s } from '$shared/s';\n",
    'shared/s.ts': 'export const s = 1;\n',
  };
  const graph = importGraph(probe);

  it('finds a circle through a type import and a lazy import, and not through a comment', () => {
    expect(circles(graph)).toEqual([['main/store/a.ts', 'main/store/b.ts']]);
    expect(graph.get('main/store/c.ts')).toEqual(['shared/s.ts']);
  });

  it('names an import that runs up, through a re-export or an alias', () => {
    expect(upwardImports(graph)).toEqual([
      'main/store/up.ts -> main/services/h.ts',
      'renderer/src/lib/v.ts -> main/store/a.ts',
    ]);
    expect(graph.get('renderer/src/lib/v.ts')).toContain('renderer/src/lib/w.ts');
    expect(graph.get('renderer/src/lib/x.ts')).toEqual(['shared/s.ts']);
  });
});
