/**
 * Ctrl-Z stops a CLI process only between store statements (docs/LIVENESS.md#stopped-processes). The
 * store's calls are synchronous, so a SIGTSTP listener runs outside every write transaction; stopping
 * there never leaves the store's write lock held by a stopped process, which would make every other
 * writer wait until it continues. SIGSTOP itself cannot be caught.
 */
export interface StoppableProcess {
  readonly pid: number;
  readonly platform: NodeJS.Platform;
  on(event: 'SIGTSTP', listener: () => void): unknown;
  off(event: 'SIGTSTP', listener: () => void): unknown;
  kill(pid: number, signal: NodeJS.Signals): unknown;
}

/** Installs the listener (no-op on Windows, which has no job control); returns its removal. */
export function stopBetweenStatements(proc: StoppableProcess = process): () => void {
  if (proc.platform === 'win32') return () => {};
  const stop = (): void => {
    proc.kill(proc.pid, 'SIGSTOP');
  };
  proc.on('SIGTSTP', stop);
  return () => proc.off('SIGTSTP', stop);
}
