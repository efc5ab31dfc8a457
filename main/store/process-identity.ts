/** Process start identity, so a reused pid is not mistaken for a live runner (docs/ARCHITECTURE.md#liveness). */
import fs from 'node:fs';

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
