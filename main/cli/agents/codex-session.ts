/**
 * Which process is a Codex session (docs/AGENTS.md#whose-life-is-the-session). `codex exec` runs its session
 * in its own process, and its hooks are its children. Codex's terminal UI does not: it runs every session in a
 * background `codex app-server` daemon, shared by all of them and outliving each, and the hooks are the
 * daemon's children. The session then lives as long as the terminal UI that started it: the daemon's client,
 * found through the daemon's Unix-socket connections (`ss`), or, without `ss`, among the Codex processes of
 * this user. Of several clients, the one in the session's folder that holds no other open session is
 * preferred, then the newest.
 */
// Builtins through getBuiltinModule, and child_process only where `ss` runs: every hook loads this module,
// and a hook that needs no person must stay cheap (docs/AGENTS.md#never-blocking-the-agent).
const { readdirSync, readFileSync, readlinkSync, realpathSync } = process.getBuiltinModule('node:fs');

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'busybox', 'env', 'node', 'timeout']);

export interface ProcessInfo {
  pid: number;
  comm: string;
  ppid: number;
  /** Start time in clock ticks since boot (newer is larger). */
  start: number;
}

export function readProcess(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, comm, ppid: Number(fields[1]), start: Number(fields[19]) };
  } catch {
    return null;
  }
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((arg) => arg !== '');
  } catch {
    return [];
  }
}

/**
 * The nearest ancestor of this hook that is not a shell (the agent's own process), or null. For an agent that
 * is itself a Node program (`nodeIsAgent`: Qwen Code, Gemini CLI) a `node` process is the agent, not a wrapper.
 */
export function nearestAgentAncestor(nodeIsAgent = false): ProcessInfo | null {
  let pid = process.ppid;
  for (let depth = 0; depth < 8 && pid > 1; depth += 1) {
    const info = readProcess(pid);
    if (info === null) return null;
    if (!SHELLS.has(info.comm) || (nodeIsAgent && info.comm === 'node')) return info;
    pid = info.ppid;
  }
  return null;
}

/** Codex's shared session daemon (`codex app-server`), as opposed to a session's own process. */
export function isCodexDaemon(pid: number): boolean {
  const argv = argvOf(pid);
  return argv.includes('app-server');
}

function isCodexClient(pid: number): boolean {
  const info = readProcess(pid);
  if (info === null || !info.comm.startsWith('codex')) return false;
  return !argvOf(pid).includes('app-server');
}

/**
 * The processes connected to `daemon` over Unix sockets, from `ss -xpn`: the daemon's sockets name their
 * peers' inodes, and the peers' lines name their processes. Null when `ss` cannot be run.
 */
export function socketPeers(daemon: number, ssOutput?: string): number[] | null {
  let text = ssOutput;
  if (text === undefined) {
    const { spawnSync } = process.getBuiltinModule('node:child_process');
    const ran = spawnSync('ss', ['-xpn'], { encoding: 'utf8', timeout: 2_000 });
    if (ran.status !== 0 || typeof ran.stdout !== 'string') return null;
    text = ran.stdout;
  }
  const lines = text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((tokens) => tokens.length >= 9 && tokens[0] === 'u_str');
  const pidsOf = (tokens: string[]): number[] =>
    [
      ...tokens
        .slice(8)
        .join(' ')
        .matchAll(/pid=(\d+)/g),
    ].map((match) => Number(match[1]));
  const peerInodes = new Set(
    lines.filter((tokens) => pidsOf(tokens).includes(daemon)).map((tokens) => tokens[7]),
  );
  const peers = new Set<number>();
  for (const tokens of lines) {
    if (!peerInodes.has(tokens[5])) continue;
    for (const pid of pidsOf(tokens)) if (pid !== daemon) peers.add(pid);
  }
  return [...peers];
}

function codexProcesses(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((name) => /^\d+$/.test(name)).map(Number);
}

function cwdOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

function samePath(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return false;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

/**
 * The terminal UI a daemon-run session belongs to: among the daemon's Codex clients, those in the session's
 * `cwd` first, then those that hold no other open session (`taken`), then the newest. Null when none is found.
 */
export function codexClientOf(daemon: number, cwd: string | null, taken: ReadonlySet<number>): number | null {
  const peers = socketPeers(daemon) ?? codexProcesses();
  let candidates = peers
    .filter((pid) => pid !== daemon && isCodexClient(pid))
    .map((pid) => readProcess(pid))
    .filter((info): info is ProcessInfo => info !== null);
  const narrow = (keep: (info: ProcessInfo) => boolean): void => {
    const kept = candidates.filter(keep);
    if (kept.length > 0) candidates = kept;
  };
  narrow((info) => samePath(cwdOf(info.pid), cwd));
  narrow((info) => !taken.has(info.pid));
  candidates.sort((a, b) => b.start - a.start);
  return candidates[0]?.pid ?? null;
}
