/**
 * A real OpenSSH server on 127.0.0.1 for the remote-machine tests (docs/TESTING.md#remote-machines): a temp
 * host key, key authentication only, its own port; and an `ssh` wrapper first on PATH that adds `-F` with
 * this fixture's client config, so the real ~/.ssh is never read or written. The "remote" is this machine
 * with another store, reached as the same account. It imports nothing of vitest: the bench's remote part
 * (bench/remote-ops.ts) starts the same server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { descendantsOf } from '../../main/runner/process-tree';

export const SSHD = '/usr/sbin/sshd';

export interface SshFixture {
  port: number;
  /** The Host alias that connects with the fixture's key. */
  alias: string;
  /** A Host alias with no usable key: the server asks for what BatchMode will not give. */
  lockedAlias: string;
  /** PATH with the wrapper first. */
  env: Record<string, string>;
  start(): Promise<void>;
  /** Kills the server and every session it serves (pulling the cable). */
  kill(): void;
  /** The listening server's pid while it runs (its sessions are its descendants). */
  pid(): number | undefined;
  stop(): void;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export function sshdAvailable(): boolean {
  return existsSync(SSHD) && existsSync('/usr/bin/ssh') && existsSync('/usr/bin/ssh-keygen');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function serverConfig(dir: string, port: number, name: string): string {
  const server = join(dir, name);
  writeFileSync(
    server,
    [
      'ListenAddress 127.0.0.1',
      `Port ${port}`,
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, `${name}.pid`)}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      'UsePAM no',
      'StrictModes no',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  return server;
}

/** The configs: `box` (and `locked`) reach the first port; `other` the second when there is one. */
function writeConfigs(dir: string, port: number, otherPort = port): { server: string; other: string } {
  for (const name of ['host_key', 'client_key']) {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, name)]);
  }
  execFileSync('cp', [join(dir, 'client_key.pub'), join(dir, 'authorized_keys')]);
  const server = serverConfig(dir, port, 'sshd_config');
  const other = otherPort === port ? server : serverConfig(dir, otherPort, 'sshd_config_other');
  const common = (at: number) => [
    '  HostName 127.0.0.1',
    `  Port ${at}`,
    `  User ${userInfo().username}`,
    `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
    '  StrictHostKeyChecking accept-new',
    '  BatchMode yes',
    '  IdentitiesOnly yes',
    '  IdentityAgent none',
    '  LogLevel ERROR',
  ];
  writeFileSync(
    join(dir, 'ssh_config'),
    [
      ...(otherPort === port ? ['Host box other'] : ['Host box']),
      ...common(port),
      `  IdentityFile ${join(dir, 'client_key')}`,
      ...(otherPort === port
        ? []
        : ['Host other', ...common(otherPort), `  IdentityFile ${join(dir, 'client_key')}`]),
      'Host locked',
      ...common(port),
      `  IdentityFile ${join(dir, 'no_such_key')}`,
      '',
    ].join('\n'),
  );
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'ssh'), `#!/bin/sh\nexec /usr/bin/ssh -F '${join(dir, 'ssh_config')}' "$@"\n`);
  chmodSync(join(bin, 'ssh'), 0o755);
  return { server, other };
}

export async function startSshd(dir: string): Promise<SshFixture> {
  const port = await freePort();
  const { server } = writeConfigs(dir, port);
  const fixture = serverFixture(server, port, dir, 'box');
  await fixture.start();
  return fixture;
}

/**
 * Two servers, so that one cable can be pulled while the other stays: `box` reaches the first, `other` the
 * second; both share the wrapper (either fixture's `env`) and the key.
 */
export async function startSshdPair(dir: string): Promise<[SshFixture, SshFixture]> {
  const port = await freePort();
  let otherPort = await freePort();
  while (otherPort === port) otherPort = await freePort();
  const { server, other } = writeConfigs(dir, port, otherPort);
  const fixtures: [SshFixture, SshFixture] = [
    serverFixture(server, port, dir, 'box'),
    serverFixture(other, otherPort, dir, 'other'),
  ];
  for (const fixture of fixtures) await fixture.start();
  return fixtures;
}

function serverFixture(server: string, port: number, dir: string, alias: string): SshFixture {
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  let child: ChildProcess | null = null;
  let log = '';
  const fixture: SshFixture = {
    port,
    alias,
    lockedAlias: 'locked',
    env: { PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` },
    async start() {
      child = spawn(SSHD, ['-D', '-e', '-f', server], { stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
      const started = child;
      await waitFor(`sshd on port ${port} (${log})`, async () => {
        if (started.exitCode !== null) throw new Error(`sshd exited ${started.exitCode}: ${log}`);
        return accepts(port);
      });
    },
    kill() {
      if (child?.pid === undefined) return;
      for (const pid of descendantsOf(child.pid)) killQuietly(pid);
      killQuietly(child.pid);
      child = null;
    },
    pid: () => child?.pid,
    stop() {
      fixture.kill();
    },
  };
  return fixture;
}
