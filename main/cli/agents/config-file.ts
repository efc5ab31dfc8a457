/**
 * Writing Runwarden's entries into an agent's own configuration file, reversibly (docs/AGENTS.md#installing):
 * beside the file, a small record keeps its bytes as they were before the first install and a hash of what
 * Runwarden wrote. `uninstall` puts the original bytes back when the file is still what Runwarden wrote;
 * when the person edited it since, it removes only Runwarden's entries and keeps their edits.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface InstallRecord {
  /** The file's bytes before Runwarden first wrote to it (base64), or null when it did not exist. */
  original: string | null;
  /** SHA-256 of the bytes Runwarden last wrote. */
  written: string;
}

/** The one sentence every agent's installer refuses a file it cannot parse with; nothing is changed. */
export function notParsable(path: string, format: 'JSON' | 'TOML', error: unknown): Error {
  const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return new Error(`${path} is not valid ${format} (${detail}); fix it first, nothing was changed`, {
    cause: error,
  });
}

export function recordPathOf(configPath: string): string {
  return `${configPath}.runwarden-install.json`;
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function readBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export function readRecord(configPath: string): InstallRecord | null {
  const bytes = readBytes(recordPathOf(configPath));
  if (bytes === null) return null;
  try {
    const value = JSON.parse(bytes.toString('utf8')) as Partial<InstallRecord>;
    if (typeof value.written !== 'string') return null;
    return { original: typeof value.original === 'string' ? value.original : null, written: value.written };
  } catch {
    return null;
  }
}

/** Writes a file atomically (a temporary file beside it, then a rename), keeping an existing file's mode. */
export function writeAtomic(path: string, content: string | Buffer, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.runwarden-${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, path);
}

/**
 * Writes `next` as the agent's configuration, recording the original bytes on the first install. A file
 * changed since Runwarden wrote it (the person, or the agent rewriting its own config) is recorded without
 * Runwarden's entries (`withoutOurs`), so a later uninstall never puts them back.
 */
export function writeInstalled(
  configPath: string,
  before: Buffer | null,
  next: string,
  withoutOurs: (text: string) => string | null = (text) => text,
): void {
  const record = readRecord(configPath);
  let original: string | null;
  if (record !== null && before !== null && sha256(before) === record.written) original = record.original;
  else if (before === null) original = null;
  else {
    const text = before.toString('utf8');
    const clean = withoutOurs(text);
    original =
      clean === null
        ? null
        : clean === text
          ? before.toString('base64')
          : Buffer.from(clean).toString('base64');
  }
  writeAtomic(configPath, next);
  writeAtomic(
    recordPathOf(configPath),
    `${JSON.stringify({ original, written: sha256(next) }, null, 2)}\n`,
    0o600,
  );
}

/**
 * Undoes the install: the original bytes when the file is still what Runwarden wrote (a file that did not
 * exist is removed), else `withoutOurs` (the person's edits kept). Returns what the file now holds (null: gone).
 */
export function writeUninstalled(
  configPath: string,
  current: Buffer | null,
  withoutOurs: string | null,
): Buffer | null {
  const record = readRecord(configPath);
  let result: Buffer | null;
  if (record !== null && current !== null && sha256(current) === record.written) {
    result = record.original === null ? null : Buffer.from(record.original, 'base64');
  } else {
    result = withoutOurs === null ? current : Buffer.from(withoutOurs, 'utf8');
  }
  if (result === null) {
    if (existsSync(configPath)) rmSync(configPath);
  } else if (current === null || !result.equals(current)) {
    writeAtomic(configPath, result);
  }
  rmSync(recordPathOf(configPath), { force: true });
  return result;
}

/** A short line diff for `--dry-run`: removed lines with "-", added with "+", a little context. */
export function lineDiff(path: string, before: string, after: string): string {
  if (before === after) return `${path}: no change\n`;
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const out = [`--- ${path}`, `+++ ${path}`];
  for (let i = Math.max(0, start - 2); i < start; i += 1) out.push(`  ${a[i]}`);
  for (let i = start; i < endA; i += 1) out.push(`- ${a[i]}`);
  for (let i = start; i < endB; i += 1) out.push(`+ ${b[i]}`);
  for (let i = endA; i < Math.min(a.length, endA + 2); i += 1) out.push(`  ${a[i]}`);
  return `${out.join('\n')}\n`;
}
