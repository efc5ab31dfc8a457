import { describe, expect, it } from 'vitest';
import { stopBetweenStatements, type StoppableProcess } from '../../../main/cli/stop-between-statements';

function fakeProcess(platform: NodeJS.Platform) {
  const listeners = new Set<() => void>();
  const kills: Array<[number, NodeJS.Signals]> = [];
  const proc: StoppableProcess = {
    pid: 4242,
    platform,
    on: (_event, listener) => listeners.add(listener),
    off: (_event, listener) => listeners.delete(listener),
    kill: (pid, signal) => kills.push([pid, signal]),
  };
  return { proc, listeners, kills };
}

describe('stopBetweenStatements', () => {
  it('turns SIGTSTP into a SIGSTOP of this process, sent from the event loop; removal undoes it', () => {
    const { proc, listeners, kills } = fakeProcess('linux');
    const remove = stopBetweenStatements(proc);
    expect(listeners.size).toBe(1);
    for (const listener of listeners) listener();
    expect(kills).toEqual([[4242, 'SIGSTOP']]);
    remove();
    expect(listeners.size).toBe(0);
  });

  it('does nothing on Windows, which has no job control', () => {
    const { proc, listeners } = fakeProcess('win32');
    stopBetweenStatements(proc)();
    expect(listeners.size).toBe(0);
  });
});
