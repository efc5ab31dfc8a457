/**
 * Tees a command's stdout and stderr (docs/RUN-OUTPUT.md#capture): each chunk goes to the run's log and on
 * to this process's own stdout / stderr as before. The terminal's backpressure pauses the command's pipe
 * (as a terminal would slow the command itself), never the event loop; the last stderr lines are kept for
 * the failure reason.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { neutraliseLine } from '../../shared/terminal-text';

export interface OutputSink {
  write(stream: 'stdout' | 'stderr', chunk: Buffer): void;
}

export interface Tee {
  /** Resolves once both pipes have closed, or after `graceMs` (a background child may hold them open). */
  drained(graceMs: number): Promise<void>;
  /** The last few non-empty stderr lines, neutralised and shortened, oldest first. */
  recentStderr(): string[];
}

const KEEP_STDERR_LINES = 3;
const MAX_QUOTED_CHARS = 200;

export function teeOutput(
  child: ChildProcess,
  sink: OutputSink | null,
  terminal: { stdout: Writable; stderr: Writable } | null,
): Tee {
  const recent: string[] = [];
  let stderrCarry = '';
  const closed: Array<Promise<void>> = [];
  const remember = (text: string): void => {
    const lines = (stderrCarry + text).split('\n');
    stderrCarry = (lines.pop() ?? '').slice(-4096);
    for (const line of lines) {
      const clean = neutraliseLine(line).trim();
      if (clean === '') continue;
      recent.push(clean.length > MAX_QUOTED_CHARS ? `${clean.slice(0, MAX_QUOTED_CHARS - 1)}…` : clean);
      if (recent.length > KEEP_STDERR_LINES) recent.shift();
    }
  };
  const detach: Array<() => void> = [];
  const pipe = (name: 'stdout' | 'stderr', source: Readable | null): void => {
    if (source === null) return;
    const target = terminal?.[name] ?? null;
    closed.push(new Promise<void>((resolve) => source.once('close', () => resolve())));
    if (target !== null) {
      // The reader went away (`runwarden exec -- yes | head -1`): close the command's pipe too, so it
      // gets SIGPIPE as it did when it wrote to the terminal itself, instead of running on unread.
      const onGone = (): void => void source.destroy();
      target.on('error', onGone);
      detach.push(() => target.off('error', onGone));
    }
    source.on('data', (chunk: Buffer) => {
      sink?.write(name, chunk);
      if (name === 'stderr') remember(chunk.toString('utf8'));
      if (target !== null && !target.destroyed && !target.write(chunk)) {
        source.pause();
        target.once('drain', () => source.resume());
      }
    });
    source.on('error', () => {
      // A pipe torn down with its process: nothing more to copy.
    });
  };
  pipe('stdout', child.stdout);
  pipe('stderr', child.stderr);
  return {
    async drained(graceMs) {
      let timer: NodeJS.Timeout | null = null;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all(closed), grace]);
      if (timer !== null) clearTimeout(timer);
      child.stdout?.destroy();
      child.stderr?.destroy();
      for (const off of detach) off();
    },
    recentStderr() {
      const last = neutraliseLine(stderrCarry).trim();
      return last === '' ? [...recent] : [...recent, last].slice(-KEEP_STDERR_LINES);
    },
  };
}
