/**
 * A blocked `runwarden ask` whose store file is removed or replaced exits by itself: the database it has
 * open still reads (an unlinked file lives on while open), so no person could ever answer it, and polling
 * alone would keep it, and the run's command, waiting forever.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../main/store';
import { runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
beforeEach(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  mkdirSync(project);
});
afterEach(() => dir.remove());

/** `exec` around a blocked ask; resolves once the question is open in the store. */
async function blockedAsk() {
  const exec = spawnCli(
    ['exec', '--project', project, '--', 'sh', '-c', 'runwarden ask --title "Still there?" --choice yes'],
    { store: dir.store, timeoutMs: 30_000 },
  );
  const runId = await waitFor('the run id', () => /run (run_[A-Za-z0-9_]+)/.exec(exec.stderr)?.[1]);
  await waitFor('the open question', async () => {
    const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
    return body.ok && body.value.snapshot.interactions.some((i) => i.status === 'pending');
  });
  return exec;
}

describe('runwarden ask when its store goes away', () => {
  it('exits 1 saying so when the store file is deleted, and the run command ends with it', async () => {
    const exec = await blockedAsk();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${dir.store}${suffix}`, { force: true });
    const result = await exec.done;
    expect(result.stderr).toMatch(/the store .*state\.sqlite was removed or replaced while "Still there\?"/);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
  });

  it('exits 1 when another file is renamed over the store (a restored copy answers nothing it waits for)', async () => {
    const exec = await blockedAsk();
    const copy = join(dir.path, 'copy.sqlite');
    copyFileSync(dir.store, copy);
    renameSync(copy, dir.store);
    const result = await exec.done;
    expect(result.stderr).toMatch(/was removed or replaced/);
    expect(result.code).toBe(1);
  });

  it('exec says once that its store went away, and its command goes on to the end', async () => {
    const marker = join(project, 'finished');
    const exec = spawnCli(['exec', '--project', project, '--', 'sh', '-c', `sleep 2.5; touch ${marker}`], {
      store: dir.store,
      timeoutMs: 30_000,
    });
    await waitFor('the run id', () => /run (run_[A-Za-z0-9_]+)/.exec(exec.stderr)?.[1]);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${dir.store}${suffix}`, { force: true });
    const result = await exec.done;
    const warnings = result.stderr.match(/was removed or replaced while run run_\S+ ran; CMD goes on/g) ?? [];
    expect(warnings).toHaveLength(1);
    expect(result.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
