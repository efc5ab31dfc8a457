/**
 * Other machines over SSH (docs/REMOTES.md), against a real OpenSSH server on 127.0.0.1: the "remote" is this
 * machine with another store, started through `--runwarden`. The local CLI lists its runs, answers its live
 * question, cancels its stale run and is refused on its live one, all through the remote's own commands;
 * a machine that wants a password, a remote speaking another protocol, hostile text and a killed sshd
 * each give the sentence a person can act on.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FullRunListItem } from '../../../main/store';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';
import { connectRemote, type RemoteLinkError } from '../../../main/services/remote/ssh-link';
import { sshdAvailable, startSshd, type SshFixture } from '../../helpers/sshd';

const canRun = sshdAvailable() && process.getuid?.() === 0;
if (!canRun && process.env.CI === 'true')
  throw new Error('CI needs openssh-server and root for the remote tests');

let dir: TempDir;
let sshd: SshFixture;
let remoteStore: string;
let runnerPids: number[] = [];

type MachineItem = FullRunListItem & { machine: string | null };
interface MachinesPage {
  items: MachineItem[];
  machines: Array<{ name: string | null; reachable: boolean; error: string | null; kind: string | null }>;
}

const local = (args: string[]) => runCli(args, { store: dir.store, env: sshd.env });
const localJson = <T>(args: string[]) => runJson<T>(args, { store: dir.store, env: sshd.env });
const remoteCommand = (store: string) => `env RUNWARDEN_STORE=${store} ${process.execPath} ${testCliBin()}`;

async function remoteRun(title: string, status?: string): Promise<MachineItem> {
  const { body } = await localJson<MachinesPage>(['ls', '--machine', 'box']);
  if (!body.ok) throw new Error(JSON.stringify(body));
  const found = body.value.items.find(
    (i) => i.run.title === title && (status === undefined || i.display.status === status),
  );
  if (found === undefined)
    throw new Error(
      `no remote run "${title}" in ${JSON.stringify(body.value.items.map((i) => i.run.title))}`,
    );
  return found;
}

describe.runIf(canRun)('remote machines over a real sshd', () => {
  beforeAll(async () => {
    dir = tempDir('runwarden-remote-');
    sshd = await startSshd(dir.path);
    remoteStore = join(dir.path, 'remote.sqlite');
    const demo = await runJson<{ runnerPids: number[] }>(
      ['demo', '--dir', join(dir.path, 'projects'), '--live-minutes', '5'],
      { store: remoteStore },
    );
    if (!demo.body.ok) throw new Error(JSON.stringify(demo.body));
    runnerPids = demo.body.value.runnerPids;
    const added = await local([
      'remote',
      'add',
      'box',
      sshd.alias,
      '--runwarden',
      remoteCommand(remoteStore),
    ]);
    if (added.code !== 0) throw new Error(`remote add failed: ${added.stderr}`);
  });
  afterAll(() => {
    for (const pid of runnerPids) killQuietly(pid, 'SIGKILL');
    sshd?.stop();
    dir?.remove();
  });

  it('remote ls says the machine is reachable, with its version and store', async () => {
    const { code, body } = await localJson<Array<Record<string, unknown>>>(['remote', 'ls']);
    expect(code).toBe(0);
    expect(body.ok && body.value).toEqual([
      expect.objectContaining({ name: 'box', dest: 'box', reachable: true, store: remoteStore, error: null }),
    ]);
    const version = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')).version;
    expect(body.ok && body.value[0]?.version).toBe(version);
  });

  it('ls names the remotes; ls --machine box lists its runs; --machine all lists both', async () => {
    expect((await local(['ls'])).stdout).toContain('1 other machine is attached: runwarden ls --machine all');
    const { body } = await localJson<MachinesPage>(['ls', '--machine', 'box']);
    expect(body.ok && body.value.items.length).toBeGreaterThan(10);
    expect(body.ok && body.value.items.every((i) => i.machine === 'box')).toBe(true);
    const table = await local(['ls', '--machine', 'box', '--status', 'stale']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^MACHINE\s+RUN/);
    expect(table.stdout).toMatch(/box\s+box:run_\w+\s+stale/);
    const all = await localJson<MachinesPage>(['ls', '--machine', 'all']);
    expect(all.body.ok && all.body.value.machines.map((m) => m.name)).toEqual([null, 'box']);
  });

  it('answers a live remote question from the local CLI, recorded there as the person via box', async () => {
    const run = await remoteRun('Deploy billing v2.4.1', 'needs-answer');
    const shown = await localJson<{ snapshot: { interactions: Array<{ id: string; status: string }> } }>([
      'show',
      `box:${run.run.id}`,
    ]);
    const question = shown.body.ok
      ? shown.body.value.snapshot.interactions.find((i) => i.status === 'pending')
      : undefined;
    expect(question).toBeDefined();
    const human = await local(['show', `box:${run.run.id}`]);
    // The commands the remote suggests name the machine, ready to paste here.
    expect(human.stdout).toContain(`runwarden answer box:${question?.id}`);
    const answered = await local(['answer', `box:${question?.id}`, 'yes']);
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    // Again: the remote's own compare-and-set refuses it, with its exit code.
    const again = await local(['answer', `box:${question?.id}`, 'yes']);
    expect(again.code).toBe(5);
    const remote = await runJson<{ events: Array<{ type: string; actorId: string | null }> }>(
      ['show', run.run.id],
      {
        store: remoteStore,
      },
    );
    const event = remote.body.ok
      ? remote.body.value.events.find((e) => e.type === 'interaction.answered')
      : undefined;
    expect(event?.actorId).toMatch(/^\S+@\S+ via box$/);
  });

  it('cancels a stale remote run, and is refused on a live one (exit 3) with the remote hint', async () => {
    const stale = await remoteRun('Snapshot production databases', 'stale');
    const cancelled = await local(['cancel', `box:${stale.run.id}`, '--reason', 'runner died']);
    expect(cancelled.code).toBe(0);
    expect((await remoteRun('Snapshot production databases')).display.status).toBe('cancelled');
    const live = await remoteRun('Nightly integration tests', 'running');
    const refused = await local(['cancel', `box:${live.run.id}`]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`runwarden cancel --request box:${live.run.id}`);
    expect((await remoteRun('Nightly integration tests')).display.status).toBe('running');
  });

  it('refuses a mix of machines; an unknown remote or remote run is exit 4', async () => {
    expect((await local(['cancel', 'box:run_01', 'run_02'])).code).toBe(2);
    const follow = await local(['logs', '--follow', 'box:run_01']);
    expect(follow.code).toBe(4);
    expect(follow.stderr).toContain('box:');
    const unknown = await local(['show', 'nosuch:run_01']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('No remote machine named "nosuch"');
  });

  it("follows a remote run's log as it prints, and ends when the run does", async () => {
    const project = join(dir.path, 'projects', 'acme-api');
    const script = 'for i in 1 2 3; do echo "line $i"; sleep 0.5; done';
    const exec = spawnCli(['exec', '--project', project, '--title', 'Follow me', '--', 'sh', '-c', script], {
      store: remoteStore,
    });
    const run = await waitFor('the remote run', async () => {
      const listed = await runJson<{ items: Array<{ run: { id: string; title: string } }> }>(['ls'], {
        store: remoteStore,
      });
      return listed.body.ok ? listed.body.value.items.find((i) => i.run.title === 'Follow me') : undefined;
    });
    const follow = spawnCli(['logs', '--follow', '--poll-ms', '100', `box:${run.run.id}`], {
      store: dir.store,
      env: sshd.env,
    });
    const ended = await follow.done;
    expect((await exec.done).code).toBe(0);
    expect(ended.code).toBe(0);
    expect(ended.stdout).toMatch(/ stdout line 1\n[^]* stdout line 2\n[^]* stdout line 3\n/);
  });

  it('hostile titles from the remote reach the terminal inert', async () => {
    const hostile = `evil\u001b]0;pwned\u0007\u001b[2J\u202etitle`;
    const exec = await runCli(
      ['exec', '--project', join(dir.path, 'projects', 'acme-api'), '--title', hostile, '--', 'true'],
      {
        store: remoteStore,
      },
    );
    expect(exec.code).toBe(0);
    for (const args of [
      ['ls', '--machine', 'box'],
      ['ls', '--machine', 'all', '--json'],
    ]) {
      const out = await local(args);
      expect(out.stdout).toContain('evil');
      // oxlint-disable-next-line no-control-regex
      expect(out.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
    }
  });

  it('a machine that wants a password says to connect from a terminal once, with the command', async () => {
    expect(
      (await local(['remote', 'add', 'locked', sshd.lockedAlias, '--runwarden', remoteCommand(remoteStore)]))
        .code,
    ).toBe(0);
    const answer = await local(['answer', 'locked:int_01', 'yes']);
    expect(answer.code).toBe(10);
    expect(answer.stderr).toContain('connect to it from a terminal once: ssh locked');
    const { body } = await localJson<Array<{ name: string; reachable: boolean; kind: string }>>([
      'remote',
      'ls',
    ]);
    expect(body.ok && body.value.find((r) => r.name === 'locked')).toMatchObject({
      reachable: false,
      kind: 'needs-terminal',
    });
    expect((await local(['remote', 'rm', 'locked'])).code).toBe(0);
  });

  it('a remote speaking a newer or an older protocol says which side to upgrade', async () => {
    const fake = join(dir.path, 'fake-remote.js');
    writeFileSync(
      fake,
      `process.stdout.write(JSON.stringify({t:'hello',protocol:Number(process.argv[2]),runwarden:'9.9.9',store:'/x',machine:'m'})+'\\n');
process.stdin.resume(); process.stdin.on('end', () => process.exit(0));\n`,
    );
    for (const [protocol, upgrade] of [
      ['2', 'upgrade Runwarden on this machine'],
      ['0', 'upgrade Runwarden on old'],
    ] as const) {
      // The remote command is given the protocol to claim; " serve --stdio" follows as ignored arguments.
      expect(
        (
          await local([
            'remote',
            'add',
            'old',
            'other',
            '--runwarden',
            `${process.execPath} ${fake} ${protocol}`,
          ])
        ).code,
      ).toBe(0);
      const shown = await local(['show', 'old:run_01']);
      expect(shown.code).toBe(10);
      expect(shown.stderr).toContain(`remote protocol ${protocol}`);
      expect(shown.stderr).toContain(upgrade);
      expect((await local(['remote', 'rm', 'old'])).code).toBe(0);
    }
  });

  it('with sshd killed, a command says the machine is unreachable and why; it works again when sshd is back', async () => {
    const closed: RemoteLinkError[] = [];
    const link = await connectRemote({
      remote: { name: 'box', dest: sshd.alias, runwarden: remoteCommand(remoteStore) },
      person: 'ada@laptop',
      surface: 'app',
      feed: true,
      version: 'test',
      env: { ...process.env, ...sshd.env },
      onClose: (error) => closed.push(error),
    });
    expect(link.hello.store).toBe(remoteStore);
    const killedAt = Date.now();
    sshd.kill();
    const error = await waitFor('the open session to end', () => closed[0], 10_000, 20);
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    expect(error.message).toMatch(/^box: unreachable — ssh: /);
    await expect(link.call('runs:list', {})).rejects.toThrow(/box: unreachable/);
    const down = await local(['ls', '--machine', 'box']);
    expect(down.code).toBe(10);
    const json = await localJson(['show', 'box:run_01']);
    expect(json.code).toBe(10);
    expect(json.body).toMatchObject({ ok: false, error: { code: 'REMOTE', kind: 'unreachable' } });
    expect(down.stdout).toMatch(/box: unreachable — ssh: .*Connection refused/);
    const all = await localJson<MachinesPage>(['ls', '--machine', 'all']);
    expect(all.code).toBe(0);
    expect(all.body.ok && all.body.value.machines[1]).toMatchObject({
      name: 'box',
      reachable: false,
      kind: 'unreachable',
    });
    await sshd.start();
    await waitFor('box to answer again', async () => (await local(['ls', '--machine', 'box'])).code === 0);
  });
});
