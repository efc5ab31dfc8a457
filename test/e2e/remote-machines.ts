/**
 * The other machines of the remote e2e specs (docs/REMOTES.md#in-the-window), over a real sshd on 127.0.0.1:
 * each machine is this one with a store of its own holding the demo's runs, attached with `runwarden remote
 * add`, and `runwarden serve` is started over this machine's workspace (its own demo runs too). Nothing
 * reaches beyond 127.0.0.1 or touches ~/.ssh (test/helpers/sshd.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killQuietly } from '../helpers/cli';
import { sshdAvailable, startSshd, startSshdPair, type SshFixture } from '../helpers/sshd';
import { CLI_BIN, cliJson, createWorkspace, startServe, type Served, type Workspace } from './harness';

/** sshd runs as root only: elsewhere the remote specs skip, and CI, which has both, must not. */
export const CAN_RUN_REMOTES = sshdAvailable() && process.getuid?.() === 0;
if (!CAN_RUN_REMOTES && process.env.CI === 'true')
  throw new Error('CI needs openssh-server and root for the remote tests');

export interface Machines {
  ws: Workspace;
  served: Served;
  /** The folder holding the servers' configs, keys and the machines' stores. */
  dir: string;
  /** Each machine's store, by name. */
  stores: Record<string, string>;
  /** One server per machine, in the order named: `kill()` pulls its cable, `start()` brings it back. */
  sshds: SshFixture[];
  stop(): Promise<void>;
}

/**
 * `box` alone, or `box` and `other`, each with the demo's runs: `true` keeps the demo's runners alive for a few
 * minutes (a live question), `false` leaves every run parked or stale.
 */
export async function startMachines(live: { box: boolean; other?: boolean }): Promise<Machines> {
  const dir = mkdtempSync(join(tmpdir(), 'runwarden-e2e-ssh-'));
  const names = live.other === undefined ? ['box'] : ['box', 'other'];
  const sshds = names.length === 1 ? [await startSshd(dir)] : await startSshdPair(dir);
  const ws = createWorkspace();
  ws.env.PATH = sshds[0]?.env.PATH ?? '';
  const stores: Record<string, string> = {};
  const runnerPids: number[] = [];
  for (const [i, name] of names.entries()) {
    const store = join(dir, `${name}.sqlite`);
    stores[name] = store;
    const keep = live[name as 'box' | 'other'] === true ? ['--live-minutes', '5'] : ['--no-live'];
    const demo = onStore<{ runnerPids: number[] }>(store, [
      'demo',
      '--dir',
      join(dir, `${name}-projects`),
      ...keep,
    ]);
    runnerPids.push(...demo.runnerPids);
    const command = `env RUNWARDEN_STORE=${store} ${process.execPath} ${CLI_BIN}`;
    await cliJson(ws, ['remote', 'add', name, sshds[i]?.alias ?? name, '--runwarden', command]);
  }
  await cliJson(ws, ['demo', '--no-live', '--dir', ws.dir]);
  const served = await startServe(ws);
  return {
    ws,
    served,
    dir,
    stores,
    sshds,
    async stop() {
      await served.stop();
      for (const pid of runnerPids) killQuietly(pid, 'SIGKILL');
      for (const sshd of sshds) sshd.stop();
      ws.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `runwarden ARGS --json` on that store, as the machine's own CLI; its value. */
export function onStore<T>(store: string, args: string[]): T {
  const out = execFileSync(process.execPath, [CLI_BIN, ...args, '--json'], {
    env: { ...process.env, RUNWARDEN_STORE: store },
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { value: T }).value;
}
