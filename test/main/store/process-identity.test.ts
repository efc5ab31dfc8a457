import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, parseStartTime, processStartId } from '../../../main/store/process-identity';

describe('processStartId', () => {
  it('parses field 22 even when the command contains spaces and parentheses', () => {
    const rest = Array.from({ length: 20 }, (_, i) => String(i + 3)).join(' ');
    expect(parseStartTime(`123 (my (weird) cmd) ${rest}`)).toBe('22');
    expect(parseStartTime('garbage')).toBeNull();
  });

  it.runIf(process.platform === 'linux')(
    'reads this process’s start time on Linux, stable across calls',
    () => {
      const id = processStartId(process.pid);
      expect(id).toMatch(/^\d+$/);
      expect(processStartId(process.pid)).toBe(id);
    },
  );

  it('is null on other platforms and for impossible pids', () => {
    expect(processStartId(process.pid, 'darwin')).toBeNull();
    expect(processStartId(-1)).toBeNull();
    expect(processStartId(2 ** 22 + 12345)).toBeNull();
  });
});

describe('isProcessAlive', () => {
  it('is true for this process with its own start id, false for another start id (pid reuse)', () => {
    const id = processStartId(process.pid);
    expect(isProcessAlive(process.pid, id)).toBe(true);
    if (id !== null) expect(isProcessAlive(process.pid, `${id}0`)).toBe(false);
  });

  it('is false for a process that exited', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid ?? -1;
    await new Promise((resolve) => child.on('exit', resolve));
    expect(isProcessAlive(pid, null)).toBe(false);
  });

  it('treats EPERM as alive and ESRCH as gone', () => {
    const eperm = () => {
      throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
    };
    const esrch = () => {
      throw Object.assign(new Error('ESRCH'), { code: 'ESRCH' });
    };
    expect(isProcessAlive(1, null, { kill: eperm })).toBe(true);
    expect(isProcessAlive(1, '5', { kill: eperm, startIdOf: () => '5' })).toBe(true);
    expect(isProcessAlive(1, '5', { kill: eperm, startIdOf: () => '6' })).toBe(false);
    expect(isProcessAlive(1, null, { kill: esrch })).toBe(false);
    expect(isProcessAlive(0, null)).toBe(false);
  });
});
