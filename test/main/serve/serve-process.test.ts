/**
 * `runwarden serve` as a real process: what it prints for a person signing browsers in, and that idle
 * unauthenticated sockets cannot use up its file descriptors (docs/ARCHITECTURE.md#browser-mode).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killQuietly, spawnCli, tempDir, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function uiDir(dir: TempDir): string {
  const path = join(dir.path, 'ui');
  mkdirSync(path);
  writeFileSync(join(path, 'index.html'), '<!doctype html><head><title>Runwarden</title></head>');
  return path;
}

async function until<T>(read: () => T | null, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('runwarden serve, the process', () => {
  it('prints a one-time URL, and after each sign-in a fresh one for the next browser', async () => {
    const dir = tempDir();
    const serve = spawnCli(['serve', '--ui-dir', uiDir(dir)], { store: dir.store, timeoutMs: 60_000 });
    stops.push(() => {
      killQuietly(serve.child.pid, 'SIGTERM');
      dir.remove();
    });
    const first = await until(
      () => /Runwarden is serving (\S+)/.exec(serve.stdout)?.[1] ?? null,
      'the first URL',
    );
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?code=/);
    expect(serve.stdout).toMatch(/signs one browser in, once/);
    expect((await fetch(first, { redirect: 'manual' })).status).toBe(200);
    const next = await until(
      () => /To sign in another, open (\S+)/.exec(serve.stdout)?.[1] ?? null,
      'the next URL',
    );
    expect(next).not.toBe(first);
    expect((await fetch(first, { redirect: 'manual' })).status).toBe(403);
    expect((await fetch(next, { redirect: 'manual' })).status).toBe(200);
  });

  it('keeps answering under a 160-descriptor limit while 300 idle sockets are open', async () => {
    const dir = tempDir();
    // The limit applies to serve only (sh's ulimit, then exec): this test process keeps its own.
    const child = spawn(
      'sh',
      ['-c', 'ulimit -n 160 && exec "$0" "$@"', process.execPath, testCliBin(), 'serve', '--json'],
      {
        env: { ...process.env, RUNWARDEN_STORE: dir.store, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const sockets: net.Socket[] = [];
    stops.push(() => {
      for (const socket of sockets) socket.destroy();
      killQuietly(child.pid, 'SIGTERM');
      dir.remove();
    });
    const line = await until(
      () => (stdout.includes('\n') ? stdout.slice(0, stdout.indexOf('\n')) : null),
      `serve to start (${stderr})`,
    );
    const { port, token } = JSON.parse(line) as { port: number; token: string };

    let refused = 0;
    for (let i = 0; i < 300; i++) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => (refused += 1));
      await new Promise<void>((resolve) => {
        socket.once('connect', () => resolve());
        socket.once('error', () => resolve());
      });
      sockets.push(socket);
    }
    const answer = await fetch(`http://127.0.0.1:${port}/api/invoke/store:info`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: '{}',
      signal: AbortSignal.timeout(30_000),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { ok: boolean }).ok).toBe(true);
    expect(refused).toBe(0);
    expect(stderr).not.toMatch(/EMFILE/);
  });
});
