/**
 * A run's output, end to end with real processes: `runwarden exec` tees the command's stdout and stderr to
 * the run's log, `runwarden logs` reads it back (in order, per stream, JSON, raw, follow), the failure reason
 * quotes stderr, hostile output is inert on a terminal, a SIGKILLed supervisor leaves a readable log, a
 * resumed run gets a log per claim, retention takes logs with their runs, and doctor reports their space.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../shared/views';
import { descendantsOf } from '../../../main/runner/process-tree';
import { openStore, type DoctorReport, type RunDetail } from '../../../main/store';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';

let dir: TempDir;
let project: string;
beforeAll(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  fs.mkdirSync(project);
});
afterAll(() => dir.remove());

const runIdIn = (stderr: string): string | undefined => /run (run_[A-Za-z0-9_]+)/.exec(stderr)?.[1];

async function execToEnd(script: string, extra: string[] = []) {
  const result = await runCli(['exec', '--project', project, ...extra, '--', 'sh', '-c', script], {
    store: dir.store,
  });
  const runId = runIdIn(result.stderr);
  if (runId === undefined) throw new Error(`no run id: ${result.stderr}`);
  return { ...result, runId };
}

function jsonLines(stdout: string): LogRecord[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LogRecord);
}

describe('runwarden exec captures output; runwarden logs reads it', () => {
  it('the done-when case: both lines in order with their streams, and the failure quotes stderr', async () => {
    const exec = await execToEnd('echo hi; echo oops >&2; exit 2');
    expect(exec.code).toBe(2);
    // Still passed through to the terminal as before.
    expect(exec.stdout).toBe('hi\n');
    expect(exec.stderr).toContain('oops\n');
    const logs = await runCli(['logs', exec.runId], { store: dir.store });
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/^\S+Z stdout hi\n\S+Z stderr oops\n$/);
    const { body } = await runJson<RunDetail>(['show', exec.runId], { store: dir.store });
    expect(body.ok && body.value.snapshot.run.error).toBe('sh exited with code 2; last stderr: oops');
  });

  it('--no-log gives the command the terminal itself and keeps no log', async () => {
    const exec = await execToEnd('echo direct', ['--no-log']);
    expect(exec.stdout).toBe('direct\n');
    const logs = await runCli(['logs', exec.runId], { store: dir.store });
    // 4 as its --help says: there is no log to print.
    expect(logs).toMatchObject({ code: 4, stdout: '' });
    expect(logs.stderr).toContain('has no output log');
    expect(fs.existsSync(join(`${dir.store}.logs`, `${exec.runId}.log`))).toBe(false);
  });

  it('--json escapes a bidi override as \\u202e: the record parses to the text the command wrote', async () => {
    const exec = await execToEnd("printf 'file-\\342\\200\\256gpj.exe\\n'");
    expect(exec.code).toBe(0);
    const logs = await runCli(['logs', exec.runId, '--json'], { store: dir.store });
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('file-\\u202egpj.exe');
    expect(logs.stdout).not.toContain('<U+202E>');
    expect(logs.stdout).not.toContain('\u202e');
    expect(jsonLines(logs.stdout).map((r) => r.text)).toEqual(['file-\u202egpj.exe']);
    // The text form shows it visibly instead.
    const text = await runCli(['logs', exec.runId], { store: dir.store });
    expect(text.stdout).toContain('file-<U+202E>gpj.exe');
  });

  it('a known interleaving of the two streams is kept, and --stream, --tail, --json select from it', async () => {
    const steps = ['o1', 'e1', 'o2', 'o3', 'e2', 'o4'];
    const script = steps.map((s) => `echo ${s}${s.startsWith('e') ? ' >&2' : ''}; sleep 0.15`).join('; ');
    const exec = await execToEnd(script);
    expect(exec.code).toBe(0);
    const all = await runCli(['logs', exec.runId, '--json'], { store: dir.store });
    const records = jsonLines(all.stdout);
    expect(records.map((r) => `${r.stream}:${r.text}`)).toEqual(
      steps.map((s) => `${s.startsWith('e') ? 'stderr' : 'stdout'}:${s}`),
    );
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(records.every((r, i) => i === 0 || r.at >= (records[i - 1]?.at ?? 0))).toBe(true);
    const text = await runCli(['logs', exec.runId], { store: dir.store });
    expect(
      text.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ').slice(1).join(' ')),
    ).toEqual(steps.map((s) => `${s.startsWith('e') ? 'stderr' : 'stdout'} ${s}`));
    const stderrOnly = await runCli(['logs', exec.runId, '--stream', 'stderr', '--raw'], {
      store: dir.store,
    });
    expect(stderrOnly.stdout).toBe('e1\ne2\n');
    const tail = await runCli(['logs', exec.runId, '--tail', '2', '--raw'], { store: dir.store });
    expect(tail.stdout).toBe('e2\no4\n');
    const bad = await runCli(['logs', exec.runId, '--stream', 'both'], { store: dir.store });
    expect(bad.code).toBe(2);
    const missing = await runCli(['logs', 'run_nope'], { store: dir.store });
    expect(missing.code).toBe(4);
  });

  it('--follow prints output as it comes and ends when the run ends', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        'for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.3; done; echo done >&2',
      ],
      { store: dir.store },
    );
    const runId = await waitFor('the run id', () => runIdIn(exec.stderr));
    await waitFor('the first tick in the log', async () => {
      const r = await runCli(['logs', runId, '--raw'], { store: dir.store });
      return r.stdout.includes('tick 1');
    });
    const follow = spawnCli(['logs', runId, '--follow', '--raw', '--poll-ms', '50'], { store: dir.store });
    // It is still following while the run runs, and has printed what came so far.
    await waitFor('follow to print a later tick', () => follow.stdout.includes('tick 3'));
    expect(follow.child.exitCode).toBeNull();
    const [execResult, followResult] = await Promise.all([exec.done, follow.done]);
    expect(execResult.code).toBe(0);
    expect(followResult.code).toBe(0);
    expect(followResult.stdout).toBe('tick 1\ntick 2\ntick 3\ntick 4\ntick 5\ntick 6\ndone\n');
  });

  it("when the reader of exec's output goes away, the command is stopped as before (`exec -- yes | head`)", async () => {
    const pipeline = spawnSync('sh', ['-c', `${process.execPath} ${testCliBin()} exec -- yes | head -n 2`], {
      env: { ...process.env, RUNWARDEN_STORE: dir.store, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(pipeline.error).toBeUndefined();
    expect(pipeline.stdout).toBe('y\ny\n');
    const runId = runIdIn(pipeline.stderr) ?? '';
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    expect(body.ok && body.value.snapshot.run.status).toBe('failed');
  });

  it('hostile output (escape sequences, OSC, HTML) is inert in `logs` on a terminal; --raw keeps it', async () => {
    const hostile =
      "printf '\\033]0;owned title\\007\\033[2J\\033[31mred\\033[0m <img src=x onerror=alert(1)>\\n'; " +
      "printf '\\033]8;;https://evil.example\\033\\\\link\\033]8;;\\033\\\\ \\033P+q\\033\\\\ bell\\007 end\\n' >&2";
    const exec = await execToEnd(hostile);
    expect(exec.code).toBe(0);
    // A real terminal (a pty from script(1)) on stdout.
    const onTerminal = spawnSync(
      'script',
      ['-qec', `${process.execPath} ${testCliBin()} logs ${exec.runId}`, '/dev/null'],
      { env: { ...process.env, RUNWARDEN_STORE: dir.store, NO_COLOR: '1' }, encoding: 'utf8' },
    );
    expect(onTerminal.status).toBe(0);
    const shown = onTerminal.stdout;
    expect(shown).toContain('stdout red <img src=x onerror=alert(1)>');
    expect(shown).toContain('stderr link  bell  end');
    // Nothing but the terminal's own line endings: no ESC, BEL, or C1 control left.
    // oxlint-disable-next-line no-control-regex
    expect(shown.replace(/\r\n/g, '\n')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const raw = await runCli(['logs', exec.runId, '--raw', '--stream', 'stdout'], { store: dir.store });
    expect(raw.stdout).toBe(
      '\u001b]0;owned title\u0007\u001b[2J\u001b[31mred\u001b[0m <img src=x onerror=alert(1)>\n',
    );
  });

  it('SIGKILL of the supervisor mid-output leaves a log readable to its last complete line', async () => {
    const store = openStore(dir.store);
    // A small cap, so the kill lands while the tail is still in its rotating segments.
    store.setSetting('logCapMb', 0.0625, { type: 'human', id: 'test', surface: 'cli' });
    store.close();
    const exec = spawn(
      process.execPath,
      [
        testCliBin(),
        'exec',
        '--project',
        project,
        '--',
        'sh',
        '-c',
        'i=0; while :; do echo "line $i"; i=$((i+1)); done',
      ],
      { env: { ...process.env, RUNWARDEN_STORE: dir.store }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    exec.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const runId = await waitFor('the run id', () => runIdIn(stderr));
    const logFile = join(`${dir.store}.logs`, `${runId}.log`);
    await waitFor('the tail segments', () => fs.existsSync(`${logFile}.tail-old`));
    // The command runs in its own process group: note it, to end it after its supervisor.
    const commandPids = descendantsOf(exec.pid ?? -1);
    killQuietly(exec.pid, 'SIGKILL');
    await new Promise((resolve) => exec.once('exit', resolve));
    for (const pid of commandPids) killQuietly(pid, 'SIGKILL', true);
    const logs = await runCli(['logs', runId, '--json'], { store: dir.store });
    expect(logs.code).toBe(0);
    const records = jsonLines(logs.stdout);
    const lines = records.filter((r) => r.stream === 'stdout');
    expect(lines[0]?.text).toBe('line 0');
    // Every record whole, numbered without repeats; the head and the tail each contiguous.
    for (const r of lines) expect(r.text).toMatch(/^line \d+$/);
    expect(new Set(records.map((r) => r.seq)).size).toBe(records.length);
    const last = Number(lines.at(-1)?.text.split(' ')[1]);
    expect(last).toBeGreaterThan(1000);
    expect(lines.at(-1)?.seq).toBe(last + 1);
    const tail = lines.slice(lines.findIndex((r, i) => i > 0 && r.seq !== (lines[i - 1]?.seq ?? 0) + 1));
    for (let i = 1; i < tail.length; i++) expect(tail[i]?.seq).toBe((tail[i - 1]?.seq ?? 0) + 1);
    const reset = openStore(dir.store);
    reset.setSetting('logCapMb', 8, { type: 'human', id: 'test', surface: 'cli' });
    reset.close();
  });

  it('a resumed run gets its own log per claim; the first stays readable', async () => {
    const exec = spawnCli(
      [
        'exec',
        '--project',
        project,
        '--lease-ms',
        '600',
        '--',
        'sh',
        '-c',
        'echo "claim $RUNWARDEN_LEASE_GENERATION"; sleep 30',
      ],
      { store: dir.store },
    );
    const runId = await waitFor('the run id', () => runIdIn(exec.stderr));
    await waitFor(
      'the first output',
      async () => (await runCli(['logs', runId, '--raw'], { store: dir.store })).stdout !== '',
    );
    expect((await runCli(['pause', '--request', runId], { store: dir.store })).code).toBe(0);
    expect((await exec.done).code).toBe(130);
    expect((await runCli(['resume', runId], { store: dir.store })).code).toBe(0);
    // A worker claims it again (generation 2) and re-runs the command: stop it after its first line.
    const worker = spawnCli(['worker', '--once', '--lease-ms', '600'], { store: dir.store });
    await waitFor('the second claim to print', async () => {
      const r = await runCli(['logs', runId, '--raw'], { store: dir.store });
      return r.stdout === 'claim 2\n';
    });
    expect((await runCli(['cancel', '--request', runId], { store: dir.store })).code).toBe(0);
    await worker.done;
    const first = await runCli(['logs', runId, '--generation', '1', '--raw'], { store: dir.store });
    expect(first.stdout).toBe('claim 1\n');
    expect(fs.readdirSync(`${dir.store}.logs`)).toEqual(
      expect.arrayContaining([`${runId}.log`, `${runId}.2.log`]),
    );
    const none = await runCli(['logs', runId, '--generation', '7'], { store: dir.store });
    expect(none.code).toBe(4);
  });

  it('retention removes logs with their runs; doctor reports the space logs use', async () => {
    const kept = await execToEnd('echo keep me');
    const doctor = await runJson<DoctorReport>(['doctor'], { store: dir.store });
    expect(doctor.body.ok && doctor.body.value.logs).toMatchObject({
      dir: `${dir.store}.logs`,
      capBytes: 8 * 1024 * 1024,
      budgetBytes: 1024 * 1024 * 1024,
    });
    const before = doctor.body.ok ? doctor.body.value.logs : null;
    expect(before?.files).toBeGreaterThan(0);
    expect(before?.bytes).toBeGreaterThan(0);
    const human = await runCli(['doctor'], { store: dir.store });
    expect(human.stdout).toMatch(/logs\s+\S+ \S+ in \d+ file\(s\) of 1024\.0 MiB/);

    const logFile = join(`${dir.store}.logs`, `${kept.runId}.log`);
    expect(fs.existsSync(logFile)).toBe(true);
    // The sweeper's retention step with a clock two days on: every finished run is older than a day.
    const store = openStore(dir.store, { clock: () => Date.now() + 2 * 86_400_000 });
    let pruned = 0;
    for (let n = store.pruneTerminalRuns(86_400_000, 40); n > 0; n = store.pruneTerminalRuns(86_400_000, 40))
      pruned += n;
    expect(pruned).toBeGreaterThan(0);
    expect(store.listRunLogs(kept.runId)).toEqual([]);
    store.close();
    expect(fs.existsSync(logFile)).toBe(false);
    const remaining = fs.readdirSync(`${dir.store}.logs`);
    expect(remaining.filter((name) => name.startsWith(kept.runId))).toEqual([]);
  });
});
