/**
 * The statuses a run never leaves are written once (`TERMINAL_RUN_STATUSES` in shared/domain.ts); the store's
 * SQL (`TERMINAL_RUN_SQL`) and `isTerminalRunStatus` are built from it. A hand-typed copy
 * elsewhere drifts the day a status is added, so none may exist outside that file and the frozen migrations.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TERMINAL_RUN_STATUSES, isTerminalRunStatus, RUN_STATUSES } from '../../shared/domain';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ALLOWED = new Set([
  'shared/domain.ts',
  // The statuses an attempt (a step) finishes with: the same words, another table.
  'main/store/attempts.ts',
  // Every display status, in display order; the terminal ones happen to come last, side by side.
  'shared/display-status.ts',
]);

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return rel === 'main/store/migrations' ? [] : sources(rel);
    return /\.(ts|svelte)$/.test(entry.name) ? [rel] : [];
  });
}

const STATUS = String.raw`['"\`](?:completed|failed|timed_out|cancelled)['"\`]`;
/** Four of them in a row, separated by commas: an array or a SQL `IN (...)` list typed by hand. */
const HAND_TYPED_LIST = new RegExp(String.raw`(?:${STATUS}\s*,\s*){3}${STATUS}`);

describe('terminal run statuses', () => {
  it('are listed by hand only in shared/domain.ts', () => {
    const copies = ['main', 'shared', 'renderer', 'bench']
      .flatMap(sources)
      .filter((file) => !ALLOWED.has(file))
      .filter((file) => HAND_TYPED_LIST.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(copies).toEqual([]);
  });

  it('agree in every form', () => {
    for (const status of RUN_STATUSES) {
      const terminal = TERMINAL_RUN_STATUSES.includes(status);
      expect(isTerminalRunStatus(status)).toBe(terminal);
    }
    expect(isTerminalRunStatus('done')).toBe(false);
  });
});
