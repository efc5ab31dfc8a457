/**
 * Stopping a command and everything it started. A shell's grandchildren (`sh -c 'runwarden ask ...'`)
 * do not die with the shell, so a stop signal goes to the child's process group when it has one,
 * else to the child and its descendants found under /proc (Linux; elsewhere only the child).
 */
import { readdirSync, readFileSync } from 'node:fs';

export function descendantsOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) follows the parenthesised command name, which may itself contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process exited while we looked.
    }
  }
  const result: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of children.get(next) ?? []) {
      result.push(child);
      queue.push(child);
    }
  }
  return result;
}

/** Sends `signal` to the command: its whole group when detached, else the child and its descendants. */
export function signalTree(pid: number, signal: NodeJS.Signals, ownGroup: boolean): void {
  if (ownGroup) {
    try {
      process.kill(-pid, signal);
      return;
    } catch {
      // The group is gone or was never created: fall through to the single process.
    }
  }
  const targets = [...descendantsOf(pid).toReversed(), pid];
  for (const target of targets) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}
