/**
 * docs/LIVENESS.md#unknown-outcomes with real processes: an effect whose `runwarden effect` process dies
 * while its run's supervisor lives (a Python subprocess timeout, `kill -9`, `effect begin --performer-pid`
 * with no `effect end`, a release whose publish is killed) ends ambiguous, in Needs you, and `retry` is refused
 * until a person says what happened; the effect's command never runs twice. The oracle is the effect's
 * own output file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import type { RunListPage } from '../../main/store';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor } from '../helpers/cli';
import { REPO_ROOT } from '../helpers/paths';

const dir = tempDir('runwarden-effect-death-');
afterAll(() => dir.remove());

function lines(file: string): number {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '').length;
  } catch {
    return 0;
  }
}

interface EffectRowView {
  id: number;
  run_id: string;
  status: string;
  process_pid: number | null;
}

function effects(): EffectRowView[] {
  const db = new Database(dir.store, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(`SELECT id, run_id, status, process_pid FROM effects ORDER BY id`)
      .all() as EffectRowView[];
  } finally {
    db.close();
  }
}

function effectOf(runId: string): EffectRowView | undefined {
  return effects().find((e) => e.run_id === runId);
}

function runIdIn(stderr: string): string | undefined {
  return /runwarden: run (run_[0-9a-z]+)/.exec(stderr)?.[1];
}

/** Needs you shows the run as ambiguous; retry (single) is refused naming the key; nothing ran twice. */
async function expectRefused(runId: string, key: string): Promise<void> {
  const needsYou = await runJson<RunListPage>(['ls', '--needs-you'], { store: dir.store });
  const item = needsYou.body.ok ? needsYou.body.value.items.find((i) => i.run.id === runId) : undefined;
  expect(item?.display).toMatchObject({ status: 'ambiguous', needsYou: true });
  const ambiguous = await runJson<RunListPage>(['ls', '--status', 'ambiguous'], { store: dir.store });
  expect(ambiguous.body.ok && ambiguous.body.value.items.map((i) => i.run.id)).toContain(runId);
  const retry = await runCli(['retry', runId], { store: dir.store });
  expect(retry.code).toBe(5);
  expect(retry.stderr).toContain(key);
  const doctor = await runCli(['doctor'], { store: dir.store });
  expect(doctor.stdout).not.toContain('still applying');
}

it('the Python-timeout payment: the effect ends ambiguous, Needs you shows it, retry is refused, one line', async () => {
  const work = join(dir.path, 'py');
  const script = join(dir.path, 'pay.py');
  // subprocess.run(..., timeout=3) kills the child with SIGKILL when the time is up. Here the "time is up"
  // once the payment has started (its line is written), so a slow machine cannot time out before it.
  writeFileSync(
    script,
    `import os, subprocess, time
t = os.path.join(${JSON.stringify(work)}, "t.txt")
p = subprocess.Popen(["runwarden", "effect", "--key", "transfer-991", "--", "sh", "-c", "echo x >> " + t + "; sleep 10"])
while not os.path.exists(t):
    time.sleep(0.05)
try:
    p.wait(timeout=0.2)
except subprocess.TimeoutExpired:
    p.kill()  # what subprocess.run does on its timeout
    p.wait()
    raise SystemExit(1)
`,
  );
  await runCli(['exec', '--', 'mkdir', '-p', work], { store: dir.store });
  const exec = await runCli(['exec', '--', 'python3', script], { store: dir.store, timeoutMs: 120_000 });
  expect(exec.code).toBe(1);
  const runId = runIdIn(exec.stderr);
  expect(runId).toBeDefined();
  expect(effectOf(runId ?? '')?.status).toBe('ambiguous');
  await expectRefused(runId ?? '', 'transfer-991');
  expect(lines(join(work, 't.txt'))).toBe(1);
}, 180_000);

it('kill -9 of the effect process: ambiguous at once while the run goes on; then cancel, retry refused', async () => {
  const file = join(dir.path, 'k9.txt');
  const exec = spawnCli(
    [
      'exec',
      '--',
      'sh',
      '-c',
      `runwarden effect --key k9 -- sh -c 'echo x >> "$1"; exec sleep 60' sh "$1"; sleep 60`,
      'sh',
      file,
    ],
    { store: dir.store, timeoutMs: 180_000 },
  );
  try {
    const runId = await waitFor('the run id', () => runIdIn(exec.stderr), 60_000);
    const effect = await waitFor(
      'the effect to apply',
      () => (lines(file) === 1 ? effectOf(runId) : undefined),
      60_000,
    );
    expect(effect.status).toBe('applying');
    expect(effect.process_pid).toBeGreaterThan(0);
    killQuietly(effect.process_pid ?? undefined, 'SIGKILL');
    // The supervisor notices while the run is still running.
    await waitFor('the effect to turn ambiguous', () => effectOf(runId)?.status === 'ambiguous', 30_000);
    const shown = await runJson<{ snapshot: { run: { status: string } } }>(['show', runId], {
      store: dir.store,
    });
    expect(shown.body.ok && shown.body.value.snapshot.run.status).toBe('running');
    exec.child.kill('SIGTERM');
    await exec.done;
    await expectRefused(runId, 'k9');
    expect(lines(file)).toBe(1);
  } finally {
    killQuietly(exec.child.pid);
  }
}, 240_000);

it('effect begin --performer-pid with no effect end by that process, which then exits: ambiguous when it is gone', async () => {
  const file = join(dir.path, 'begin.txt');
  const exec = spawnCli(
    [
      'exec',
      '--',
      'sh',
      '-c',
      // The inner shell begins the effect as its performer, performs it and exits without "effect end".
      `sh -c 'runwarden effect begin --key begin-1 --performer-pid $$ > /dev/null; echo x >> "$1"' sh "$1"; sleep 60`,
      'sh',
      file,
    ],
    { store: dir.store, timeoutMs: 180_000 },
  );
  try {
    const runId = await waitFor('the run id', () => runIdIn(exec.stderr), 60_000);
    await waitFor('the effect to turn ambiguous', () => effectOf(runId)?.status === 'ambiguous', 60_000);
    exec.child.kill('SIGTERM');
    await exec.done;
    await expectRefused(runId, 'begin-1');
    expect(lines(file)).toBe(1);
  } finally {
    killQuietly(exec.child.pid);
  }
}, 240_000);

it('examples/bash/release.sh with its publish killed: ambiguous, retry refused, never published twice', async () => {
  const out = join(dir.path, 'release-out');
  const exec = spawnCli(['exec', '--', join(REPO_ROOT, 'examples/bash/release.sh')], {
    store: dir.store,
    env: { RELEASE_DIR: out, PUBLISH_SECONDS: '60', VERSION: '3.1.0' },
    timeoutMs: 180_000,
  });
  try {
    const runId = await waitFor('the run id', () => runIdIn(exec.stderr), 60_000);
    const question = await waitFor(
      'the publish question',
      async () => {
        const shown = await runJson<{
          snapshot: { interactions: Array<{ id: string; status: string }> };
        }>(['show', runId], { store: dir.store });
        return shown.body.ok
          ? shown.body.value.snapshot.interactions.find((i) => i.status === 'pending')
          : undefined;
      },
      90_000,
    );
    expect((await runCli(['answer', question.id, 'publish'], { store: dir.store })).code).toBe(0);
    const effect = await waitFor(
      'the publish to start',
      () => {
        const e = effectOf(runId);
        return e?.status === 'applying' ? e : undefined;
      },
      90_000,
    );
    killQuietly(effect.process_pid ?? undefined, 'SIGKILL');
    const result = await exec.done;
    expect(result.code).not.toBe(0);
    expect(effectOf(runId)?.status).toBe('ambiguous');
    await expectRefused(runId, 'publish-3.1.0');
    expect(lines(join(out, 'published.txt'))).toBeLessThanOrEqual(1);
  } finally {
    killQuietly(exec.child.pid);
  }
}, 300_000);
