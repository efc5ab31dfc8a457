/**
 * A retry runs the same work (docs/CLI.md#what-exec-records): `exec` records argv, folder and
 * environment; `retry` + `worker` run with them, taking secret-named variables from the worker; their
 * values never reach the store file. Real processes: exec, the bash example, the worker.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../main/store';
import { runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';

let dir: TempDir;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => dir.remove());

const SECRET = 'hunter2-do-not-store-7f3a';

async function detail(runId: string): Promise<RunDetail> {
  const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
  if (!body.ok) throw new Error(body.error.message);
  return body.value;
}

/** Answers the run's pending question with `choice`, once it is asked. */
async function answer(runId: string, choice: string): Promise<void> {
  const question = await waitFor('the question', async () =>
    (await detail(runId)).snapshot.interactions.find((i) => i.status === 'pending'),
  );
  expect((await runCli(['answer', question.id, choice], { store: dir.store })).code).toBe(0);
}

describe('retry runs with the environment exec recorded', () => {
  it('VERSION=3.1.0 exec, then retry and worker: the retry publishes 3.1.0; a secret value is never stored', async () => {
    const project = join(dir.path, 'proj');
    const out = join(project, 'out');
    mkdirSync(project);
    const argv = ['bash', join(REPO_ROOT, 'examples/bash/release.sh')];
    const exec = spawnCli(['exec', '--project', project, '--', ...argv], {
      store: dir.store,
      cwd: project,
      env: { RELEASE_DIR: out, VERSION: '3.1.0', DEPLOY_TOKEN: SECRET },
      timeoutMs: 60_000,
    });
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    // Not published the first time: the retry is what publishes.
    await answer(runId, 'skip');
    expect((await exec.done).code).toBe(0);
    const first = await detail(runId);
    expect(first.snapshot.run.command?.env?.VERSION).toBe('3.1.0');
    expect(first.snapshot.run.command?.env?.DEPLOY_TOKEN).toBeNull();

    const preview = await runCli(['retry', runId, '--dry-run'], {
      store: dir.store,
      env: { VERSION: undefined, DEPLOY_TOKEN: undefined },
    });
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain(`bash ${join(REPO_ROOT, 'examples/bash/release.sh')}`);
    expect(preview.stdout).toContain(`in ${project}`);
    expect(preview.stdout).toMatch(/VERSION=3\.1\.0 \(here: not set\)/);
    expect(preview.stdout).toMatch(/DEPLOY_TOKEN: secret-named, never stored; taken from the worker/);

    const retried = await runJson<{ id: string }>(['retry', runId], { store: dir.store });
    expect(retried.body.ok).toBe(true);
    const retryId = retried.body.ok ? retried.body.value.id : '';
    // The worker runs elsewhere, with another VERSION and its own token.
    const worker = spawnCli(['worker', '--once', '--project', project], {
      store: dir.store,
      cwd: dir.path,
      env: { VERSION: '1.0.0', RELEASE_DIR: join(dir.path, 'elsewhere'), DEPLOY_TOKEN: 'from-the-worker' },
      timeoutMs: 60_000,
    });
    await answer(retryId, 'publish');
    expect((await worker.done).code).toBe(0);
    expect(worker.stderr).toContain(
      'secret-named variables taken from this worker’s environment: DEPLOY_TOKEN',
    );
    expect(readFileSync(join(out, 'published.txt'), 'utf8')).toBe('3.1.0\n');
    expect((await detail(retryId)).snapshot.effects.map((e) => e.idempotencyKey)).toEqual(['publish-3.1.0']);

    // Neither the secret's value nor the worker's shows up anywhere in the store's files; its name does.
    const files = ['', '-wal'].flatMap((suffix) => {
      try {
        return [readFileSync(`${dir.store}${suffix}`)];
      } catch {
        return [];
      }
    });
    const bytes = Buffer.concat(files);
    expect(bytes.includes(SECRET)).toBe(false);
    expect(bytes.includes('from-the-worker')).toBe(false);
    expect(bytes.includes('DEPLOY_TOKEN')).toBe(true);
  });

  it('secrets by pattern and by URL are never stored; terminal-session variables are not recorded', async () => {
    const project = join(dir.path, 'patterns');
    mkdirSync(project);
    const url = `postgres://app:${SECRET}@db/app`;
    const exec = await runCli(['exec', '--project', project, '--', 'true'], {
      store: dir.store,
      cwd: project,
      env: {
        GITHUB_PAT: `pat-${SECRET}`,
        MYSQL_PWD: `pwd-${SECRET}`,
        PASSWD: `passwd-${SECRET}`,
        SENTRY_DSN: `dsn-${SECRET}`,
        DATABASE_URL: url,
        ACME_THING: `acme-${SECRET}`,
        RUNWARDEN_SECRET_NAMES: 'ACME_*',
        PLAIN_URL: 'https://example.com/x',
        TMUX: '/tmp/tmux-0/default,1,0',
        TMUX_PANE: '%3',
        OLDPWD: '/somewhere/else',
        SHLVL: '3',
        PS1: '$ ',
      },
    });
    expect(exec.code).toBe(0);
    const runId = /run (run_\S+)/.exec(exec.stderr)?.[1] ?? '';
    const show = await runCli(['show', runId, '--json'], { store: dir.store });
    expect(show.stdout).not.toContain(SECRET);
    const env = (await detail(runId)).snapshot.run.command?.env ?? {};
    for (const name of ['GITHUB_PAT', 'MYSQL_PWD', 'PASSWD', 'SENTRY_DSN', 'DATABASE_URL', 'ACME_THING']) {
      expect(env[name], name).toBeNull();
    }
    expect(env.PLAIN_URL).toBe('https://example.com/x');
    expect(env.RUNWARDEN_SECRET_NAMES).toBe('ACME_*');
    for (const name of ['TMUX', 'TMUX_PANE', 'OLDPWD', 'SHLVL', 'PS1'])
      expect(env, name).not.toHaveProperty(name);
    const dry = await runCli(['retry', runId, '--dry-run'], {
      store: dir.store,
      env: { TMUX: '/other', SHLVL: '1' },
    });
    expect(dry.code).toBe(0);
    expect(dry.stdout).not.toContain(SECRET);
    expect(dry.stdout).not.toMatch(/TMUX|SHLVL|OLDPWD|PS1/);
    expect(dry.stdout).toMatch(
      /ACME_THING, DATABASE_URL, GITHUB_PAT, MYSQL_PWD, PASSWD, SENTRY_DSN: secret-named, never stored; taken from the worker/,
    );
    // Nothing of any of them in the store's files either.
    for (const file of [dir.store, `${dir.store}-wal`].filter((f) => existsSync(f))) {
      expect(readFileSync(file).includes(SECRET), file).toBe(false);
    }
  });
});
