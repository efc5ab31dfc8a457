/** Reading the fixtures' append-only logs (a line torn by SIGKILL is skipped, not trusted). */
import { existsSync, readFileSync } from 'node:fs';

export interface Entry {
  n: number;
  pid: number;
  op: string;
  run?: string;
  gen?: number;
  t0?: number;
  t1?: number;
  ok?: boolean;
  code?: string;
  expiresAt?: number | null;
  kind?: string;
  [key: string]: unknown;
}

export function readLog(path: string): Entry[] {
  if (!existsSync(path)) return [];
  const entries: Entry[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      entries.push(JSON.parse(line) as Entry);
    } catch {
      // Torn by a kill mid-write.
    }
  }
  return entries;
}
