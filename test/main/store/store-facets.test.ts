/**
 * The reader/writer split is structural (main/store/store-facets.ts): a write declares `this: RunStore`
 * and `StoreReader` leaves it out; below the facade a read is handed a `ReadableDB` (store-context.ts). These tests keep that honest: the compile-time fixture is type-checked,
 * and every store method that goes through the write path declares itself a write (and only those do).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY_OPTIONS } from '../../../shared/display-status';
import { createContext, readerOf } from '../../../main/store/store-context';
import { createTempStore } from '../../helpers/temp-store';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/main/store/fixtures/reader-cannot-write.ts');

function typecheckedFiles(tsconfig: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, tsconfig),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  return (parsed?.fileNames ?? []).map((f) => path.resolve(f));
}

interface StoreMethod {
  file: string;
  name: string;
  declaresWrite: boolean;
  /** Calls `this.write(...)`, `this.maintain(...)` or `this.writeBurst(...)`: the store's write paths. */
  writes: boolean;
}

function storeMethods(file: string): StoreMethod[] {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(path.join(ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const methods: StoreMethod[] = [];
  const callsWritePath = (node: ts.Node): boolean =>
    (ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.expression.kind === ts.SyntaxKind.ThisKeyword &&
      ['write', 'maintain', 'writeBurst'].includes(node.expression.name.text)) ||
    ts.forEachChild(node, callsWritePath) === true;
  source.forEachChild((node) => {
    if (!ts.isClassDeclaration(node)) return;
    for (const member of node.members) {
      if (!ts.isMethodDeclaration(member) || member.body === undefined) continue;
      const isHelper = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.ProtectedKeyword) ?? false;
      if (isHelper) continue;
      const first = member.parameters[0];
      methods.push({
        file,
        name: member.name.getText(source),
        declaresWrite: first !== undefined && first.name.getText(source) === 'this',
        writes: callsWritePath(member.body),
      });
    }
  });
  return methods;
}

describe('store reader and writer handles', () => {
  it('type-checks the fixture in which a reader handle calling a write must not compile', () => {
    const fixture = fs.readFileSync(FIXTURE, 'utf8');
    expect(fixture.match(/@ts-expect-error/g)?.length).toBeGreaterThanOrEqual(9);
    // The read-only open is covered too: its handle is the one a caller actually gets from openStore.
    expect(fixture).toMatch(/openStoreReader\(file\);\n\s+\/\/ @ts-expect-error/);
    expect(typecheckedFiles('tsconfig.node.json')).toContain(FIXTURE);
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.typecheck).toContain(
      'tsc -p tsconfig.node.json',
    );
  });

  it('marks exactly the methods that take a write path as writes', () => {
    const methods = [
      ...storeMethods('main/store/runner-store.ts'),
      ...storeMethods('main/store/run-store.ts'),
    ];
    expect(methods.length).toBeGreaterThan(50);
    const undeclared = methods.filter((m) => m.writes && !m.declaresWrite).map((m) => m.name);
    const needless = methods.filter((m) => !m.writes && m.declaresWrite).map((m) => m.name);
    expect({ undeclared, needless }).toEqual({ undeclared: [], needless: [] });
    const writes = new Set(methods.filter((m) => m.declaresWrite).map((m) => m.name));
    for (const name of ['checkpoint', 'setAutoCheckpoint', 'heartbeat', 'cancelRun', 'pruneTerminalRuns']) {
      expect(writes).toContain(name);
    }
    for (const name of ['listRuns', 'getRun', 'doctor', 'trayAttention', 'autoCheckpointPages']) {
      expect(writes).not.toContain(name);
    }
  });

  it('refuses, as it prepares, a statement that writes handed to a read', () => {
    const t = createTempStore();
    try {
      const reader = readerOf(createContext(t.store.db, () => 0, DEFAULT_DISPLAY_OPTIONS, null));
      expect(reader.prep('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
      expect(() => reader.prep("UPDATE runs SET title = 'x'")).toThrow(
        /A read prepared a statement that writes/,
      );
      expect('db' in reader).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});
