import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../main/store';
import { runCli, runJson, tempDir, type TempDir } from '../../helpers/cli';

let dir: TempDir;
beforeAll(() => {
  dir = tempDir();
  // Read commands never create a store: make the one they read.
  openStore(dir.store).close();
});
afterAll(() => dir.remove());

describe('runwarden CLI basics', () => {
  it('prints help with every command and the exit codes', async () => {
    const result = await runCli(['--help'], { store: dir.store });
    expect(result.code).toBe(0);
    for (const name of [
      'exec',
      'ask',
      'notify',
      'worker',
      'ls',
      'show',
      'cancel',
      'pause',
      'resume',
      'answer',
      'retry',
      'doctor',
      'demo',
      'serve',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
    expect(result.stdout).toContain('124');
  });

  it('prints each command’s own help', async () => {
    const result = await runCli(['cancel', '--help'], { store: dir.store });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: runwarden cancel RUN');
    expect(result.stdout).toContain('--request');
  });

  it('exits 2 with one line and a hint on a usage error', async () => {
    const unknown = await runCli(['frobnicate'], { store: dir.store });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'runwarden: unknown command "frobnicate"\nhint: run "runwarden --help" for the list of commands\n',
    );
    const badFlag = await runCli(['ls', '--bogus'], { store: dir.store });
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.split('\n')[0]).toMatch(/^runwarden: Unknown option '--bogus'/);
    expect(badFlag.stderr).toContain('hint: run "runwarden ls --help" for usage');
  });

  it('lists an empty store as JSON', async () => {
    const { code, body } = await runJson(['ls'], { store: dir.store });
    expect(code).toBe(0);
    expect(body).toEqual({ ok: true, value: { items: [], nextCursor: null } });
  });

  it('reports an unknown run with exit 4, as text and as JSON', async () => {
    const text = await runCli(['show', 'run_nope'], { store: dir.store });
    expect(text.code).toBe(4);
    expect(text.stderr).toMatch(/^runwarden: .*run_nope/);
    const { code, body } = await runJson(['cancel', 'run_nope'], { store: dir.store });
    expect(code).toBe(4);
    expect(body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('refuses ask outside a run with exit 2', async () => {
    const result = await runCli(['ask', '--title', 'Deploy?', '--choice', 'yes'], { store: dir.store });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('runwarden exec');
  });

  it('adds a notification and prints it with --json', async () => {
    const { code, body } = await runJson(['notify', '--level', 'attention', 'Disk almost full', '92% used'], {
      store: dir.store,
    });
    expect(code).toBe(0);
    expect(body).toMatchObject({
      ok: true,
      value: { level: 'attention', title: 'Disk almost full', body: '92% used', runId: null },
    });
    const bad = await runCli(['notify', '--level', 'loud', 'x'], { store: dir.store });
    expect(bad.code).toBe(2);
  });

  it('doctor reports path, schema, mode and health', async () => {
    const { code, body } = await runJson(['doctor'], { store: dir.store });
    expect(code).toBe(0);
    expect(body).toMatchObject({
      ok: true,
      value: {
        info: { path: dir.store, mode: 'read-write' },
        contradictions: [],
        counterDrift: [],
        staleLeases: 0,
        integrity: 'ok',
      },
    });
    const text = await runCli(['doctor'], { store: dir.store });
    expect(text.stdout).toContain(dir.store);
    expect(text.stdout).toMatch(/integrity\s+ok/);
    expect(text.stdout).toMatch(/counts\s+runs per project and status agree with the runs/);
  });

  it('doctor fails when a count of runs disagrees with the runs, and names it', async () => {
    const other = tempDir();
    try {
      const store = openStore(other.store);
      store.db
        .prepare(`INSERT INTO projects (canonical_path, name, created_at) VALUES ('/srv/app', 'app', 0)`)
        .run();
      store.db
        .prepare(`INSERT INTO run_counts (project_id, display_base, n) SELECT id, 'queued', 3 FROM projects`)
        .run();
      store.close();
      const text = await runCli(['doctor'], { store: other.store });
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/counts\s+1 count\(s\) disagree with the runs/);
      expect(text.stdout).toContain('/srv/app queued: counted ahead by 3: kept 3, the runs say 0');
    } finally {
      other.remove();
    }
  });

  it('--store wins over RUNWARDEN_STORE', async () => {
    const other = tempDir();
    try {
      openStore(other.store).close();
      const { body } = await runJson(['doctor', '--store', other.store], { store: dir.store });
      expect(body).toMatchObject({ ok: true, value: { info: { path: other.store } } });
    } finally {
      other.remove();
    }
  });
});
