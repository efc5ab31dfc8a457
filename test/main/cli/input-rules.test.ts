/**
 * What the CLI refuses before it writes anything, and where it reads from: numbers outside their
 * documented ranges and texts over their caps (exit 2 with a usage sentence, no store created), store
 * paths (an empty --store, read commands on a missing store, a dangling symlink, a foreign file, loose
 * permissions), the project a run belongs to (the repository root), same-named projects in `ls`, and
 * hints that name the command the person ran.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../main/store';
import type { RunDetail } from '../../../main/store';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => dir.remove());

describe('numbers and texts are checked before anything is written', () => {
  const big = 'x'.repeat(100_000);
  it.each([
    [
      ['exec', '--lease-ms', '6442450944', '--', 'true'],
      /--lease-ms must be a whole number from 100 to 86400000/,
    ],
    [
      ['exec', '--lease-ms', '50', '--', 'true'],
      /--lease-ms must be a whole number from 100 to 86400000, got "50"/,
    ],
    [['exec', '--lease-ms', '1e3', '--', 'true'], /--lease-ms must be a whole number/],
    [['worker', '--poll-ms', '5'], /--poll-ms must be a whole number from 10 to 60000/],
    [['worker', '--lease-ms', '99999999999999999999'], /--lease-ms must be a whole number/],
    [['show', 'run_x', '--events', '100000000000'], /--events must be a whole number from 1 to 1000/],
    [['ls', '--limit', '0'], /--limit must be a whole number from 1 to 500/],
    [['cancel', 'run_x', '--revision=-1'], /--revision must be a whole number from 0/],
    [['cancel', 'run_x', '--revision', '-1'], /--revision must be a whole number from 0 to \d+, got "-1"/],
    [['ls', '--limit', '-5'], /--limit must be a whole number from 1 to 500, got "-5"/],
    // Node's recursive mkdir never returns under /proc.
    [['demo', '--dir', '/proc/runwarden-demo'], /--dir: cannot create \/proc\/runwarden-demo: ENOENT/],
    [['resolve', '0', '--happened', '--note', 'n'], /EFFECT must be a whole number from 1/],
    [
      ['ask', '--title', 'T', '--choice', 'a', '--timeout', '99999d'],
      /--timeout must be a duration .* at most 30d/,
    ],
    [['exec', '--title', big, '--', 'true'], /--title is 100000 characters; at most 500 are allowed/],
    [['notify', big], /TITLE is 100000 characters; at most 500 are allowed/],
    [['resolve', '1', '--happened', '--note', 'n'.repeat(2001)], /--note is 2001 characters; at most 2000/],
    [['cancel', 'run_x', '--reason', 'r'.repeat(501)], /--reason is 501 characters; at most 500/],
    [['answer', 'int_x', '--json', `"${big}"`], /--json is 100002 characters; at most 65536/],
    [
      ['ask', '--title', 'T', '--prompt', big, '--choice', 'a'],
      /--prompt is 100000 characters; at most 10000/,
    ],
    [['exec', '--store', '', '--', 'true'], /--store needs a file path/],
    [['ls', '--store='], /--store needs a file path/],
  ])('%# → exit 2 with a usage sentence, nothing written', async (args, message) => {
    const store = join(dir.path, `never-${Math.random().toString(36).slice(2)}`, 'state.sqlite');
    const result = await runCli(args, { store });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(message);
    expect(result.stderr).toMatch(/hint: run "runwarden \S+ --help" for usage/);
    expect(existsSync(store)).toBe(false);
  });
});

describe('listing pages', () => {
  let store: string;
  beforeAll(async () => {
    store = join(dir.path, 'pages', 'state.sqlite');
    for (let i = 0; i < 3; i += 1) {
      const run = await runCli(['exec', '--title', `page ${i}`, '--', 'true'], { store, cwd: dir.path });
      if (run.code !== 0) throw new Error(`exec failed: ${run.stderr}`);
    }
  });

  it('a cursor no page gave out is refused (exit 2), not read as the end of the list', async () => {
    const result = await runCli(['ls', '--cursor', 'garbage'], { store });
    expect(result.code).toBe(2);
    expect(result.stdout).not.toMatch(/No runs/);
    expect(result.stderr).toMatch(/not one a page of runs gave out/);
  });

  it('the "more" line repeats the listing it continues, and that command prints the next page', async () => {
    const first = await runCli(['ls', '--limit', '1', '--status', 'completed'], { store });
    expect(first.code).toBe(0);
    const more = /… more: (runwarden ls .*)$/m.exec(first.stdout)?.[1];
    expect(more).toMatch(/^runwarden ls --limit 1 --status completed --cursor run_[0-9a-z]+$/);
    const next = await runCli((more as string).split(' ').slice(1), { store });
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(/page 1/);
    expect(next.stdout).not.toMatch(/page 2/);
  });

  it('--store may come before the command', async () => {
    const result = await runCli(['--store', store, 'ls', '--json'], {
      store: join(dir.path, 'elsewhere.sqlite'),
    });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { ok: boolean; value: { items: unknown[] } };
    expect(body.value.items).toHaveLength(3);
    expect(existsSync(join(dir.path, 'elsewhere.sqlite'))).toBe(false);
  });
});

describe('store paths', () => {
  it('read commands never create a store: a missing file is "no store at PATH"', async () => {
    const missing = join(dir.path, 'typo', 'state.sqlite');
    for (const args of [['ls'], ['show', 'run_x'], ['doctor'], ['ls', '--json']]) {
      const result = await runCli(args, { store: missing });
      expect(result.code).toBe(4);
      expect(result.stdout + result.stderr).toContain(`There is no store at ${missing}`);
    }
    expect(existsSync(join(dir.path, 'typo'))).toBe(false);
  });

  it('logs on a mistyped --store says so and creates nothing', async () => {
    const missing = join(dir.path, 'typo', 'state.sqlite');
    for (const args of [
      ['logs', 'run_x'],
      ['logs', 'run_x', '--json'],
    ]) {
      const result = await runCli(args, { store: missing });
      expect(result.code).toBe(4);
      expect(result.stdout + result.stderr).toContain(`There is no store at ${missing}`);
    }
    expect(existsSync(join(dir.path, 'typo'))).toBe(false);
  });

  it('a dangling symlink gets a sentence, and nothing is created through it', async () => {
    const link = join(dir.path, 'link.sqlite');
    const target = join(dir.path, 'gone', 'state.sqlite');
    symlinkSync(target, link);
    for (const args of [['ls'], ['exec', '--', 'true']]) {
      const result = await runCli(args, { store: link });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain(`${link} is a symbolic link to ${target}, which does not exist`);
    }
    expect(existsSync(join(dir.path, 'gone'))).toBe(false);
  });

  it('a foreign SQLite file (no tables, WAL mode) is refused and left without -wal/-shm', async () => {
    const folder = join(dir.path, 'foreign');
    mkdirSync(folder);
    const file = join(folder, 'state.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('user_version = 0');
    db.close();
    for (const args of [['ls'], ['doctor'], ['exec', '--', 'true']]) {
      const result = await runCli(args, { store: file });
      // 9: the store refused (docs/CLI.md#exit-codes).
      expect(result.code).toBe(9);
      expect(result.stderr).toContain('is a SQLite database made by another program');
    }
    expect(readdirSync(folder)).toEqual(['state.sqlite']);
    writeFileSync(join(folder, 'notes.txt'), 'hello\n');
    const text = await runCli(['ls'], { store: join(folder, 'notes.txt') });
    expect(text.stderr).toContain('is not a SQLite database');
  });

  it('a store readable by others is tightened to its owner', async () => {
    const file = join(dir.path, 'loose.sqlite');
    openStore(file).close();
    chmodSync(file, 0o644);
    const result = await runCli(['doctor'], { store: file });
    expect(result.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('projects', () => {
  it('a run started inside a repository belongs to its root, --project overrides, a worktree counts', async () => {
    const store = join(dir.path, 'projects.sqlite');
    const repo = join(dir.path, 'repo');
    const deep = join(repo, 'src', 'lib');
    mkdirSync(deep, { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    const worktree = join(dir.path, 'wt');
    mkdirSync(join(worktree, 'pkg'), { recursive: true });
    writeFileSync(join(worktree, '.git'), 'gitdir: /somewhere/else\n');
    const projectOf = async (cwd: string, extra: string[] = []): Promise<string> => {
      const result = await runCli(['exec', ...extra, '--', 'true'], { store, cwd });
      const runId = /run (run_\S+)/.exec(result.stderr)?.[1] ?? '';
      const { body } = await runJson<RunDetail>(['show', runId], { store });
      return body.ok ? body.value.projectPath : '';
    };
    expect(await projectOf(deep)).toBe(repo);
    expect(await projectOf(deep, ['--project', '.'])).toBe(deep);
    expect(await projectOf(join(worktree, 'pkg'))).toBe(worktree);
    const outside = join(dir.path, 'plain');
    mkdirSync(outside);
    expect(await projectOf(outside)).toBe(outside);
  });

  it('ls tells two projects with the same folder name apart', async () => {
    const store = join(dir.path, 'same-name.sqlite');
    for (const owner of ['acme', 'globex']) {
      const project = join(dir.path, owner, 'api');
      mkdirSync(project, { recursive: true });
      expect((await runCli(['exec', '--project', project, '--', 'true'], { store })).code).toBe(0);
    }
    const plain = join(dir.path, 'solo');
    mkdirSync(plain);
    await runCli(['exec', '--project', plain, '--', 'true'], { store });
    const table = await runCli(['ls'], { store });
    const column = table.stdout
      .split('\n')
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => line.split(/\s{2,}/)[2]);
    expect(column.sort()).toEqual(['acme/api', 'globex/api', 'solo']);
  });
});

describe('hints name the right command', () => {
  it('pause on a live run suggests pause --request', async () => {
    const store = join(dir.path, 'hints.sqlite');
    const exec = spawnCli(['exec', '--', 'sleep', '30'], { store });
    try {
      const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
      await waitFor('running', async () => {
        const { body } = await runJson<RunDetail>(['show', runId], { store });
        return body.ok && body.value.display.status === 'running';
      });
      const pause = await runCli(['pause', runId], { store });
      expect(pause.code).toBe(3);
      expect(pause.stderr).toContain(`runwarden pause --request ${runId}`);
      expect(pause.stderr).not.toContain('cancel --request');
      const cancel = await runCli(['cancel', runId], { store });
      expect(cancel.stderr).toContain(`runwarden cancel --request ${runId}`);
    } finally {
      exec.child.kill('SIGTERM');
      await exec.done;
      killQuietly(exec.child.pid);
    }
  });
});
