/** Process start identity, so a reused pid is not mistaken for a live runner (docs/ARCHITECTURE.md#liveness). */
import type { MachineIdentity, ProcessProbe } from './liveness';

// Node's own objects, not through `import` (the ESM wrapper of node:fs loads fs/promises and the stream
// modules: docs/CLI.md#start-up).
const fs = process.getBuiltinModule('node:fs');
const { hostname: osHostname } = process.getBuiltinModule('node:os');

/**
 * Linux: field 22 (starttime, clock ticks since boot) of /proc/<pid>/stat. Other platforms, or a pid
 * that does not exist: null.
 */
export function processStartId(pid: number, platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux' || !Number.isInteger(pid) || pid <= 0) return null;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return parseStartTime(stat);
}

/** Field 22 of a /proc/<pid>/stat line. The command (field 2) may contain spaces and ')', so split after the last ')'. */
export function parseStartTime(stat: string): string | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  // Fields after the command start at field 3 (state); starttime is field 22 → index 19 of the rest.
  const rest = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const start = rest[19];
  return start !== undefined && /^\d+$/.test(start) ? start : null;
}

/**
 * True when `pid` is running and (when both are known) has the same start identity. EPERM means the
 * process exists but belongs to someone else: alive.
 */
export function isProcessAlive(
  pid: number,
  startId: string | null,
  deps: { kill?: (pid: number, signal: number) => void; startIdOf?: (pid: number) => string | null } = {},
): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const kill = deps.kill ?? ((target: number, signal: number) => process.kill(target, signal));
  try {
    kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (startId === null) return true;
  const current = (deps.startIdOf ?? processStartId)(pid);
  return current === null || current === startId;
}

export function readBootId(platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux') return null;
  try {
    const id = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id === '' ? null : id;
  } catch {
    return null;
  }
}

export function readPidNamespace(platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux') return null;
  try {
    return fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

let cached: MachineIdentity | null = null;

/** This process's machine identity (read once: none of it changes while a process lives). */
export function machineIdentity(): MachineIdentity {
  cached ??= { hostname: osHostname(), bootId: readBootId(), pidNs: readPidNamespace() };
  return cached;
}

/**
 * kill(-pgid, 0) answers for the whole group. While any member lives the kernel does not hand the pgid out
 * as a new pid, so a live group is the recorded one — unless the leader's pid now belongs to a different
 * process (the group ended and the number was reused): then its start identity differs.
 */
export function groupAlive(pgid: number, leaderStartId: string | null): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (leaderStartId !== null) {
    const leader = processStartId(pgid);
    if (leader !== null && leader !== leaderStartId) return false;
  }
  return livingMembers(pgid) !== 0;
}

/**
 * Linux: members of the group that are not zombies (a killed process whose parent has not reaped it still
 * answers kill(0)). -1 when /proc cannot be read: then kill's answer stands.
 */
export function livingMembers(pgid: number, platform: NodeJS.Platform = process.platform): number {
  if (platform !== 'linux') return -1;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return -1;
  }
  let living = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // After the parenthesised command: state, ppid, pgrp.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') living += 1;
  }
  return living;
}

/** Linux: the process has exited and waits to be reaped (it still answers kill(0)). */
export function isZombie(pid: number, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/** The probe the store's liveness check uses on this machine. */
export const SYSTEM_PROBE: ProcessProbe = {
  processAlive: (pid, startId) => isProcessAlive(pid, startId) && !isZombie(pid),
  groupAlive,
};

/** One process of a caller's ancestry, with its start identity. */
export interface AncestorProcess {
  pid: number;
  startId: string | null;
}

/**
 * Linux: `pid` and its ancestors, nearest first, up to (not including) pid 1 — what the self-answer check
 * compares with a run's recorded processes (docs/LIVENESS.md#only-a-person-outside-the-run-answers).
 * Elsewhere, or when /proc cannot be read: whatever was read so far (possibly nothing).
 */
export function processAncestry(
  pid: number = process.pid,
  platform: NodeJS.Platform = process.platform,
): AncestorProcess[] {
  const chain: AncestorProcess[] = [];
  if (platform !== 'linux') return chain;
  let current = pid;
  // A bound, not a depth anyone reaches: a ppid loop must not hang the caller.
  for (let depth = 0; depth < 256 && Number.isInteger(current) && current > 1; depth += 1) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${current}/stat`, 'utf8');
    } catch {
      break;
    }
    chain.push({ pid: current, startId: parseStartTime(stat) });
    // After the parenthesised command: state, ppid.
    current = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
  return chain;
}

/** This process as the asker of a question: its pid, start identity and machine. */
export function thisProcessAsAsker(): {
  pid: number;
  startId: string | null;
  hostname: string;
  bootId: string | null;
  pidNs: string | null;
} {
  const here = machineIdentity();
  return { pid: process.pid, startId: processStartId(process.pid), ...here };
}
