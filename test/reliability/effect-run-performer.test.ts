/**
 * docs/LIVENESS.md#unknown-outcomes, "the run performs its effects", with real processes: a Makefile whose
 * recipe lines are separate shells begins an effect in one line (that shell exits at once), performs it in
 * the next and ends it in a third. The effect stays applying while the payment goes on — a sweep and
 * `doctor` in between change nothing — and make succeeds with the effect applied. With the run's
 * supervisor SIGKILLed between begin and end, the effect turns ambiguous and `effect end` is refused.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { killQuietly, runCli, spawnCli } from '../helpers/cli';
import { inProcessSweeper, pidAlive, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-run-performer-');

interface EffectView {
  id: number;
  status: string;
  performer: string | null;
  process_pid: number | null;
}

function effectOf(runId: string): EffectView | undefined {
  const db = new Database(dir.store, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(`SELECT id, status, performer, process_pid FROM effects WHERE run_id = ? ORDER BY id`)
      .get(runId) as EffectView | undefined;
  } finally {
    db.close();
  }
}

function eventTypes(runId: string): string[] {
  const db = new Database(dir.store, { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare(`SELECT type FROM events WHERE run_id = ? ORDER BY seq`).all(runId) as Array<{
        type: string;
      }>
    ).map((e) => e.type);
  } finally {
    db.close();
  }
}

/**
 * begin in one recipe line (its shell exits at once), the payment in the next — it waits for the test's
 * `go` file, then writes one ledger line — and end in a third.
 */
function makefile(folder: string): string {
  const file = join(folder, 'Makefile');
  writeFileSync(
    file,
    [
      'pay:',
      '\trunwarden effect begin --key pay --summary "Pay invoice 7" > id',
      '\twhile [ ! -f go ]; do sleep 0.1; done; echo charge >> ledger',
      '\trunwarden effect end $$(cat id) --applied',
      '',
    ].join('\n'),
  );
  return file;
}

function ambiguousReason(runId: string): string {
  const db = new Database(dir.store, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(`SELECT payload_json FROM events WHERE run_id = ? AND type = 'effect.ambiguous' ORDER BY seq`)
      .get(runId) as { payload_json: string } | undefined;
    return row === undefined ? '' : String((JSON.parse(row.payload_json) as { reason?: string }).reason);
  } finally {
    db.close();
  }
}

function lines(file: string): number {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length
    : 0;
}

it('make with begin and end in separate recipe lines: applying throughout, then applied; make succeeds', async () => {
  makefile(project);
  const exec = spawnCli(['exec', '--', 'make', '-s', 'pay'], {
    store: dir.store,
    cwd: project,
    timeoutMs: 120_000,
  });
  const sweeper = inProcessSweeper(dir.store, { sweepIntervalMs: 300 });
  try {
    const runId = await waitFor('the run id', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    const effect = await waitFor(
      'the effect to begin',
      () => {
        // The shell opens `id` before "effect begin" writes to it: wait for the id itself.
        if (!existsSync(join(project, 'id')) || readFileSync(join(project, 'id'), 'utf8').trim() === '')
          return undefined;
        return effectOf(runId);
      },
      60_000,
    );
    expect(effect).toMatchObject({ status: 'applying', performer: 'run' });
    // The recipe line that called "effect begin" has exited; its shell is gone. The recorded performer is
    // the run's supervisor, alive.
    expect(pidAlive(effect.process_pid ?? 0)).toBe(true);
    // Longer than the supervisor's own look (every second) and a few sweeps: nothing turns it ambiguous.
    for (let i = 0; i < 4; i += 1) {
      sweeper.tick();
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    const doctor = await runCli(['doctor'], { store: dir.store });
    expect(doctor.code).toBe(0);
    expect(effectOf(runId)?.status).toBe('applying');
    writeFileSync(join(project, 'go'), '');
    const result = await exec.done;
    expect(result.stderr).not.toContain('unknown');
    expect(result.code).toBe(0);
    expect(effectOf(runId)?.status).toBe('applied');
    expect(eventTypes(runId)).not.toContain('effect.ambiguous');
    expect(lines(join(project, 'ledger'))).toBe(1);
  } finally {
    sweeper.close();
    killQuietly(exec.child.pid);
  }
}, 180_000);

it('the supervisor SIGKILLed between begin and end: the effect turns ambiguous, retry is refused', async () => {
  const folder = join(project, 'killed');
  await runCli(['exec', '--', 'mkdir', '-p', folder], { store: dir.store });
  makefile(folder);
  const exec = spawnCli(['exec', '--', 'make', '-s', 'pay'], {
    store: dir.store,
    cwd: folder,
    timeoutMs: 120_000,
  });
  const sweeper = inProcessSweeper(dir.store, { sweepIntervalMs: 300 });
  try {
    const runId = await waitFor('the run id', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    await waitFor(
      'the effect to begin',
      () => existsSync(join(folder, 'id')) && effectOf(runId)?.status === 'applying',
      60_000,
    );
    exec.child.kill('SIGKILL');
    await exec.done.catch(() => undefined);
    await waitFor(
      "a sweep to find the run's supervisor gone",
      () => {
        sweeper.tick();
        return effectOf(runId)?.status === 'ambiguous';
      },
      30_000,
      300,
    );
    expect(ambiguousReason(runId)).toContain("the run's supervisor ended");
    // Whatever of make outlived its supervisor may go on with the payment; nobody can say how it went any
    // more: a person must.
    writeFileSync(join(folder, 'go'), '');
    await waitFor(
      'the run to be cancelled once its command is gone',
      async () => {
        sweeper.tick();
        return (
          (await runCli(['cancel', runId, '--reason', 'supervisor died'], { store: dir.store })).code === 0
        );
      },
      30_000,
      500,
    );
    const retry = await runCli(['retry', runId], { store: dir.store });
    expect(retry.code).toBe(5);
    expect(retry.stderr).toContain('pay');
    expect(effectOf(runId)?.status).toBe('ambiguous');
    expect(lines(join(folder, 'ledger'))).toBeLessThanOrEqual(1);
  } finally {
    sweeper.close();
    killQuietly(exec.child.pid);
  }
}, 180_000);

it('effect end from a process holding the claim but not started by the run: refused, nothing changed', async () => {
  const folder = join(project, 'outside');
  await runCli(['exec', '--', 'mkdir', '-p', folder], { store: dir.store });
  const exec = spawnCli(
    [
      'exec',
      '--',
      'sh',
      '-c',
      'runwarden effect begin --key outside > id; env | grep ^RUNWARDEN_ > claim; ' +
        'while [ ! -f go ]; do sleep 0.1; done; runwarden effect end "$(cat id)" --applied',
    ],
    { store: dir.store, cwd: folder, timeoutMs: 120_000 },
  );
  try {
    const runId = await waitFor('the run id', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    await waitFor('the claim', () => lines(join(folder, 'claim')) >= 4, 60_000);
    const claim = Object.fromEntries(
      readFileSync(join(folder, 'claim'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const id = readFileSync(join(folder, 'id'), 'utf8').trim();
    const outside = await runCli(['effect', 'end', id, '--applied'], { store: dir.store, env: claim });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('not started by the run');
    expect(effectOf(runId)?.status).toBe('applying');
    writeFileSync(join(folder, 'go'), '');
    expect((await exec.done).code).toBe(0);
    expect(effectOf(runId)?.status).toBe('applied');
  } finally {
    killQuietly(exec.child.pid);
  }
}, 180_000);
