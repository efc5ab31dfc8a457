/** Projects: one row per canonical folder path (symlinks resolved; docs/ARCHITECTURE.md#run-model-and-state-machine). */
import type * as NodeFs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Project } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { toProject, type ProjectRow } from './row-mapping';
import type { ReadableDB, WritableDB } from './store-context';

// node:fs through require, not `import`: its ESM wrapper reads every export, which loads fs/promises,
// readline and the stream modules into every runner call (docs/CLI.md#start-up).
const fs = createRequire(import.meta.url)('node:fs') as typeof NodeFs;

/** realpath of a project folder; VALIDATION when it does not exist. */
export function canonicalProjectPath(projectPath: string): string {
  if (typeof projectPath !== 'string' || projectPath.trim() === '') {
    throw new RunwardenError('VALIDATION', 'A project path is required.');
  }
  try {
    return fs.realpathSync(projectPath);
  } catch {
    throw new RunwardenError('VALIDATION', `Project folder ${projectPath} does not exist.`);
  }
}

/** Inserts the project if new; returns its id. Runs inside the caller's transaction. */
export function upsertProject(ctx: WritableDB, canonicalPath: string, now: number): number {
  ctx
    .prep(
      `INSERT INTO projects (canonical_path, name, created_at) VALUES (?, ?, ?) ON CONFLICT(canonical_path) DO NOTHING`,
    )
    .run(canonicalPath, path.basename(canonicalPath) || canonicalPath, now);
  const row = ctx.prep(`SELECT id FROM projects WHERE canonical_path = ?`).get(canonicalPath) as {
    id: number;
  };
  return row.id;
}

export function findProjectByPath(ctx: ReadableDB, canonicalPath: string): Project | null {
  const row = ctx.prep(`SELECT * FROM projects WHERE canonical_path = ?`).get(canonicalPath) as
    ProjectRow | undefined;
  return row === undefined ? null : toProject(row);
}

export function allProjects(ctx: ReadableDB): Project[] {
  return (ctx.prep(`SELECT * FROM projects ORDER BY canonical_path`).all() as ProjectRow[]).map(toProject);
}

/** Canonical form of a path used as a filter: realpath when it exists, else the resolved path as given. */
export function filterPath(projectPath: string): string {
  try {
    return fs.realpathSync(projectPath);
  } catch {
    return path.resolve(projectPath);
  }
}
