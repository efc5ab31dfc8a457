/**
 * Tray host detection against a real, private D-Bus session bus (dbus-daemon), with a real client owning
 * the StatusNotifierWatcher name (python3-dbus) for the desktop that has one; fakes only for the machines
 * where the bus clients are missing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STATUS_NOTIFIER_WATCHER,
  canHideToTray,
  detectTrayHost,
  type RunCommand,
} from '../../../main/electron/tray-host';

const children: ChildProcess[] = [];
let env: NodeJS.ProcessEnv = {};

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  const daemon = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(daemon);
  const address = await new Promise<string>((resolve, reject) => {
    daemon.once('error', reject);
    createInterface({ input: daemon.stdout as NodeJS.ReadableStream }).once('line', resolve);
  });
  env = { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: address.trim() };
});

afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
});

describe('detectTrayHost on a real session bus', () => {
  it('a bus without a StatusNotifierWatcher (vanilla GNOME) has no tray host', async () => {
    expect(await detectTrayHost('linux', env)).toBe('absent');
    expect(canHideToTray('absent')).toBe(false);
  });

  it('once something owns org.kde.StatusNotifierWatcher, the tray shows', async () => {
    // Debian's python3-dbus lives in the system Python (not a pyenv or venv one that may come first on PATH).
    const owner = spawn(
      '/usr/bin/python3',
      [
        '-c',
        `import dbus, sys, time
bus = dbus.SessionBus()
bus.request_name(${JSON.stringify(STATUS_NOTIFIER_WATCHER)})
print('owned', flush=True)
time.sleep(60)`,
      ],
      { env, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(owner);
    const host = await until(
      () => detectTrayHost('linux', env),
      (value) => value === 'present',
    );
    expect(host).toBe('present');
    expect(canHideToTray(host)).toBe(true);
    owner.kill('SIGTERM');
    const after = await until(
      () => detectTrayHost('linux', env),
      (value) => value === 'absent',
    );
    expect(after).toBe('absent');
  });

  it('gdbus gives the same answer when dbus-send is missing', async () => {
    const withoutDbusSend: RunCommand = (command, args, e) =>
      command === 'dbus-send'
        ? Promise.reject(new Error('spawn dbus-send ENOENT'))
        : new Promise((resolve, reject) => {
            const r = spawnSync(command, [...args], { env: e, encoding: 'utf8', timeout: 5_000 });
            if (r.status === 0) resolve(r.stdout);
            else reject(new Error(r.stderr));
          });
    expect(await detectTrayHost('linux', env, withoutDbusSend)).toBe('absent');
  });
});

describe('detectTrayHost elsewhere', () => {
  it('macOS and Windows always have a tray', async () => {
    const never: RunCommand = () => Promise.reject(new Error('not asked'));
    expect(await detectTrayHost('darwin', {}, never)).toBe('present');
    expect(await detectTrayHost('win32', {}, never)).toBe('present');
  });

  it('no session bus at all: no host', async () => {
    expect(await detectTrayHost('linux', { PATH: process.env.PATH })).toBe('absent');
  });

  it('no D-Bus client installed, or garbage answers: unknown, and the window is not hidden', async () => {
    const missing: RunCommand = (command) => Promise.reject(new Error(`spawn ${command} ENOENT`));
    expect(await detectTrayHost('linux', { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, missing)).toBe(
      'unknown',
    );
    const garbage: RunCommand = () => Promise.resolve('Error org.freedesktop.DBus.Error.NoReply');
    expect(await detectTrayHost('linux', { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, garbage)).toBe(
      'unknown',
    );
    expect(canHideToTray('unknown')).toBe(false);
  });
});
