/**
 * docs/LIVENESS.md#nested-runs with real processes: an `exec` started inside a run is its child, and the
 * family — the root's lineage and every run nested in any of it — shares idempotency keys. outer.sh runs
 * `runwarden exec -- ./inner.sh`, inner pays under `effect --key pay-inner` into a ledger file: SIGKILL the
 * outer supervisor (the inner run completes, applied), cancel the outer, retry it, `worker --once`: the
 * ledger has one charge, and `retry --dry-run` names pay-inner with the run that applied it. Two levels of
 * nesting do the same, `show` lists each run's children, and a cancel of the top run reaches the runs
 * inside it as cancel requests.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import type { RunDetail } from '../../shared/views';
import { killQuietly, runCli, runJson, spawnCli } from '../helpers/cli';
import { inProcessSweeper, lineCount, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-nested-');

function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(dir.store, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

function childrenOf(runId: string): Array<{ id: string; status: string }> {
  return query(`SELECT id, status FROM runs WHERE enclosing_run_id = ? ORDER BY created_at, id`, runId);
}

function script(folder: string, name: string, body: string): void {
  const file = join(folder, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

/** A folder with SCRIPT.sh that nests `exec` over the next, the last paying KEY once `go` exists. */
function nestedScripts(folder: string, names: string[], key: string): void {
  mkdirSync(folder, { recursive: true });
  names.forEach((name, i) => {
    const next = names[i + 1];
    script(
      folder,
      name,
      next !== undefined
        ? `runwarden exec -- ./${next}`
        : `while [ ! -f go ]; do sleep 0.1; done\nrunwarden effect --key ${key} --summary "Pay ${key}" -- sh -c 'echo charge >> ledger'`,
    );
  });
}

async function cancelWhenItCan(runId: string, sweeper: ReturnType<typeof inProcessSweeper>): Promise<void> {
  await waitFor(
    `run ${runId} to be cancelled`,
    async () => {
      sweeper.tick();
      return (
        (await runCli(['cancel', runId, '--reason', 'its runner died'], { store: dir.store })).code === 0
      );
    },
    60_000,
    500,
  );
}

it('a nested exec is a child: after the outer supervisor dies, a retry of the outer does not pay again', async () => {
  const folder = join(project, 'one');
  nestedScripts(folder, ['outer.sh', 'inner.sh'], 'pay-inner');
  const exec = spawnCli(['exec', '--', './outer.sh'], { store: dir.store, cwd: folder, timeoutMs: 120_000 });
  const sweeper = inProcessSweeper(dir.store);
  try {
    const outer = await waitFor('the outer run', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    const inner = await waitFor('the inner run', () => childrenOf(outer)[0]?.id, 60_000);
    exec.child.kill('SIGKILL');
    await exec.done.catch(() => undefined);
    writeFileSync(join(folder, 'go'), '');
    await waitFor('the inner run to complete', () => childrenOf(outer)[0]?.status === 'completed', 60_000);
    expect(lineCount(join(folder, 'ledger'))).toBe(1);
    await cancelWhenItCan(outer, sweeper);

    const dry = await runCli(['retry', outer, '--dry-run'], { store: dir.store });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`pay-inner (Pay pay-inner): applied in run ${inner}`);
    const retry = await runJson<{ id: string }>(['retry', outer], { store: dir.store });
    expect(retry.code).toBe(0);
    const retried = retry.body.ok ? retry.body.value.id : '';
    const worker = await runCli(['worker', '--once', '--project', folder], {
      store: dir.store,
      cwd: folder,
      timeoutMs: 120_000,
    });
    expect(worker.code).toBe(0);
    expect(lineCount(join(folder, 'ledger'))).toBe(1);
    // The retry's own inner run skipped it, saying where it was applied.
    const [again] = childrenOf(retried);
    expect(again?.status).toBe('completed');
    const carried = query<{ status: string; resolution_note: string }>(
      `SELECT status, resolution_note FROM effects WHERE run_id = ? AND idempotency_key = 'pay-inner'`,
      again?.id,
    );
    expect(carried).toEqual([{ status: 'applied', resolution_note: expect.stringContaining(inner) }]);
    // show lists the children, in words and in JSON.
    const shown = await runJson<RunDetail>(['show', outer], { store: dir.store });
    expect(shown.body.ok && shown.body.value.children.map((c) => c.id)).toEqual([inner]);
    const human = await runCli(['show', inner], { store: dir.store });
    expect(human.stdout).toMatch(new RegExp(`inside\\s+${outer}`));
  } finally {
    sweeper.close();
    killQuietly(exec.child.pid);
  }
}, 300_000);

it('two levels of nesting: a retry of the top run skips the leaf payment; cancel reaches the runs inside', async () => {
  const folder = join(project, 'two');
  nestedScripts(folder, ['top.sh', 'mid.sh', 'leaf.sh'], 'pay-leaf');
  writeFileSync(join(folder, 'go'), '');
  const first = await runCli(['exec', '--', './top.sh'], {
    store: dir.store,
    cwd: folder,
    timeoutMs: 120_000,
  });
  expect(first.code).toBe(0);
  const top = /run (run_[a-z0-9]+)/.exec(first.stderr)?.[1] ?? '';
  const [mid] = childrenOf(top);
  const [leaf] = childrenOf(mid?.id ?? '');
  expect([mid?.status, leaf?.status]).toEqual(['completed', 'completed']);
  expect(lineCount(join(folder, 'ledger'))).toBe(1);

  const dry = await runCli(['retry', top, '--dry-run'], { store: dir.store });
  expect(dry.stdout).toContain(`pay-leaf (Pay pay-leaf): applied in run ${leaf?.id}`);
  const retry = await runJson<{ id: string }>(['retry', top], { store: dir.store });
  const retried = retry.body.ok ? retry.body.value.id : '';
  const worker = await runCli(['worker', '--once', '--project', folder], {
    store: dir.store,
    cwd: folder,
    timeoutMs: 120_000,
  });
  expect(worker.code).toBe(0);
  // The retry ran its whole tree again; the leaf's payment was skipped.
  const [mid2] = childrenOf(retried);
  const [leaf2] = childrenOf(mid2?.id ?? '');
  expect([mid2?.status, leaf2?.status]).toEqual(['completed', 'completed']);
  expect(lineCount(join(folder, 'ledger'))).toBe(1);

  // A run of the same scripts held before it pays: cancelling the top run asks the runs inside to stop.
  const held = join(project, 'held');
  nestedScripts(held, ['top.sh', 'mid.sh', 'leaf.sh'], 'pay-held');
  const exec = spawnCli(['exec', '--', './top.sh'], { store: dir.store, cwd: held, timeoutMs: 120_000 });
  try {
    const heldTop = await waitFor('the top run', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    const heldMid = await waitFor('the middle run', () => childrenOf(heldTop)[0]?.id, 60_000);
    const heldLeaf = await waitFor('the leaf run', () => childrenOf(heldMid)[0]?.id, 60_000);
    const cancel = await runCli(['cancel', heldTop, '--request', '--reason', 'not now'], {
      store: dir.store,
    });
    expect(cancel.code).toBe(0);
    const requests = query<{ run_id: string; payload_json: string }>(
      `SELECT run_id, payload_json FROM events WHERE type = 'run.cancel_requested' AND run_id IN (?, ?)`,
      heldMid,
      heldLeaf,
    );
    expect(requests.map((r) => [r.run_id, JSON.parse(r.payload_json).fromRunId])).toEqual([
      [heldMid, heldTop],
      [heldLeaf, heldTop],
    ]);
    expect((await exec.done).code).toBe(130);
    await waitFor(
      'every run of the family to end cancelled',
      () =>
        query<{ status: string }>(
          `SELECT status FROM runs WHERE id IN (?, ?, ?)`,
          heldTop,
          heldMid,
          heldLeaf,
        ).every((r) => r.status === 'cancelled'),
      60_000,
    );
    expect(lineCount(join(held, 'ledger'))).toBe(0);
  } finally {
    killQuietly(exec.child.pid);
  }
}, 300_000);

it('a worker inside a run: the runs it claims are children; a retry of the outer does not pay again', async () => {
  const pay = join(project, 'queue');
  const outerFolder = join(project, 'outer');
  mkdirSync(pay, { recursive: true });
  mkdirSync(outerFolder, { recursive: true });
  // Fails before paying until `armed` exists; then waits for `go` and pays pay-q.
  script(
    pay,
    'pay.sh',
    `[ -f armed ] || exit 3\nwhile [ ! -f go ]; do sleep 0.1; done\nrunwarden effect --key pay-q --summary "Pay pay-q" -- sh -c 'echo charge >> ledger'`,
  );
  script(outerFolder, 'outer.sh', `runwarden worker --once --project '${pay}'`);
  // Two runs of the same work that failed before paying, each retried later: two queued runs.
  const failed: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const run = await runCli(['exec', '--', './pay.sh'], { store: dir.store, cwd: pay, timeoutMs: 60_000 });
    expect(run.code).toBe(3);
    failed.push(/run (run_[a-z0-9]+)/.exec(run.stderr)?.[1] ?? '');
  }
  writeFileSync(join(pay, 'armed'), '');
  const first = await runJson<{ id: string }>(['retry', failed[0] ?? ''], { store: dir.store });
  const queued = first.body.ok ? first.body.value.id : '';
  expect(queued).toMatch(/^run_/);

  const exec = spawnCli(['exec', '--', './outer.sh'], {
    store: dir.store,
    cwd: outerFolder,
    timeoutMs: 120_000,
  });
  const sweeper = inProcessSweeper(dir.store);
  try {
    const outer = await waitFor('the outer run', () => /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1]);
    // The worker inside the outer run claimed the queued run: it is the outer run's child.
    await waitFor('the claimed run to be a child', () => childrenOf(outer)[0]?.id === queued, 60_000);
    const claimed = query<{ payload_json: string }>(
      `SELECT payload_json FROM events WHERE run_id = ? AND type = 'run.claimed'`,
      queued,
    );
    expect(claimed.map((e) => JSON.parse(e.payload_json).enclosingRunId)).toEqual([outer]);
    exec.child.kill('SIGKILL');
    await exec.done.catch(() => undefined);
    writeFileSync(join(pay, 'go'), '');
    await waitFor('the claimed run to complete', () => childrenOf(outer)[0]?.status === 'completed', 60_000);
    expect(lineCount(join(pay, 'ledger'))).toBe(1);
    await cancelWhenItCan(outer, sweeper);

    const dry = await runCli(['retry', outer, '--dry-run'], { store: dir.store });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`pay-q (Pay pay-q): applied in run ${queued}`);
    // The same work queued again from the other failed run; the outer's retry runs a worker that claims it.
    const second = await runJson<{ id: string }>(['retry', failed[1] ?? ''], { store: dir.store });
    const queuedAgain = second.body.ok ? second.body.value.id : '';
    const retry = await runJson<{ id: string }>(['retry', outer], { store: dir.store });
    const retried = retry.body.ok ? retry.body.value.id : '';
    const worker = await runCli(['worker', '--once', '--project', outerFolder], {
      store: dir.store,
      cwd: outerFolder,
      timeoutMs: 120_000,
    });
    expect(worker.code).toBe(0);
    expect(childrenOf(retried)).toEqual([{ id: queuedAgain, status: 'completed' }]);
    // Skipped in the family, saying where it was applied: one charge.
    expect(lineCount(join(pay, 'ledger'))).toBe(1);
    const carried = query<{ status: string; resolution_note: string }>(
      `SELECT status, resolution_note FROM effects WHERE run_id = ? AND idempotency_key = 'pay-q'`,
      queuedAgain,
    );
    expect(carried).toEqual([{ status: 'applied', resolution_note: expect.stringContaining(queued) }]);
  } finally {
    sweeper.close();
    killQuietly(exec.child.pid);
  }
}, 300_000);
