/**
 * docs/LIVENESS.md "Unknown outcomes": a runner dies while its bank transfer is applying; cancelling the
 * run turns the transfer ambiguous. The cancelled run stays under Needs you, retry (single and bulk) is
 * refused naming the transfer; once a person says it happened, retry is allowed and the retried run does
 * not transfer again (the idempotency key carries across the retry lineage). The oracle is the fixture's
 * own log of how often its apply callback ran.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { createDispatcher } from '../../main/services/dispatcher';
import { openStore, type RunListPage } from '../../main/store';
import { runCli, runJson } from '../helpers/cli';
import { fixturePath } from '../helpers/paths';
import { printCounts, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-ambiguous-');

function logLines(file: string): Array<{ op: string; run?: string; alreadyApplied?: boolean }> {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { op: string; run?: string; alreadyApplied?: boolean });
  } catch {
    return [];
  }
}

function runner(args: string[], log: string) {
  const child = spawn(
    process.execPath,
    [fixturePath('effect-runner'), '--store', dir.store, '--log', log, ...args],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, done };
}

it('cancel of a run with an applying effect: Needs you, retry refused; resolved → retry allowed, not re-applied', async () => {
  const log = join(dir.path, 'effects.log');
  const first = runner(['--project', project, '--hang'], log);
  const runId = await waitFor(
    'the transfer to start applying',
    () => logLines(log).find((l) => l.op === 'applied')?.run,
  );
  first.child.kill('SIGKILL');
  await first.done;

  const cancelled = await runJson<{ cascade: { effectsAmbiguous: number } }>(['cancel', runId], {
    store: dir.store,
  });
  expect(cancelled.code).toBe(0);
  expect(cancelled.body.ok && cancelled.body.value.cascade.effectsAmbiguous).toBe(1);

  const needsYou = await runJson<RunListPage>(['ls', '--needs-you'], { store: dir.store });
  const item = needsYou.body.ok ? needsYou.body.value.items.find((i) => i.run.id === runId) : undefined;
  expect(item?.run.status).toBe('cancelled');
  expect(item?.display).toMatchObject({ status: 'ambiguous', needsYou: true, actions: ['resolveEffect'] });
  expect(item?.display.reason).toContain('€4,180 to partners');

  const retryRefused = await runCli(['retry', runId], { store: dir.store });
  expect(retryRefused.code).toBe(5);
  expect(retryRefused.stderr).toContain('bank.transfer');
  expect(retryRefused.stderr).toContain('payout-2026-11');

  const store = openStore(dir.store);
  try {
    const dispatch = createDispatcher({
      store,
      clock: Date.now,
      actor: { type: 'human', id: 'alice', surface: 'app' },
      onSettingsChanged: () => {},
    });
    const bulkItems = [{ runId, expectedRevision: store.getRun(runId).revision }];
    const dry = dispatch('runs:bulk', { action: 'retry', items: bulkItems, dryRun: true, reason: 'again' });
    const bulk = dispatch('runs:bulk', { action: 'retry', items: bulkItems, dryRun: false, reason: 'again' });
    expect(dry).toMatchObject({ ok: true, value: { succeeded: 0, failed: 1 } });
    expect(bulk).toMatchObject({
      ok: true,
      value: { succeeded: 0, failed: 1, items: [{ ok: false, code: 'CONFLICT' }] },
    });
    expect(bulk.ok && bulk.value.items[0]?.message).toContain('bank.transfer');
    expect(store.listRuns({ view: 'all', limit: 10 }).items).toHaveLength(1);

    const effect = store.getSnapshot(runId).effects.find((e) => e.status === 'ambiguous');
    expect(effect).toBeDefined();
    const resolved = dispatch('effects:resolve', {
      effectId: effect?.id ?? 0,
      expectedRevision: store.getRun(runId).revision,
      resolution: 'applied',
      note: 'The bank statement shows the transfer.',
    });
    expect(resolved.ok).toBe(true);
    expect(store.getRunDetail(runId, { eventsLimit: 1 }).display).toMatchObject({
      status: 'cancelled',
      needsYou: false,
      actions: ['retry'],
    });
  } finally {
    store.close();
  }

  const retried = await runJson<{ id: string }>(['retry', runId], { store: dir.store });
  expect(retried.code).toBe(0);
  const newRunId = retried.body.ok ? retried.body.value.id : '';
  const second = runner(['--run', newRunId], log);
  expect(await second.done).toBe(0);

  const lines = logLines(log);
  const applied = lines.filter((l) => l.op === 'applied').length;
  const effectLine = lines.find((l) => l.op === 'effect' && l.run === newRunId);
  const check = openStore(dir.store, { readonly: true });
  const carried = check.getSnapshot(newRunId).effects[0];
  const newStatus = check.getRun(newRunId).status;
  const events = check.getRunDetail(newRunId, { eventsLimit: 50 }).events.map((e) => e.type);
  check.close();
  printCounts('ambiguous effect and retry', {
    applyCallbacks: applied,
    retryRefusedSingle: retryRefused.code,
    retryRefusedBulk: 1,
    retriedRunAlreadyApplied: effectLine?.alreadyApplied,
    retriedRunStatus: newStatus,
  });
  expect(applied).toBe(1);
  expect(effectLine?.alreadyApplied).toBe(true);
  expect(carried).toMatchObject({ status: 'applied', idempotencyKey: 'payout-2026-11' });
  expect(events).toContain('effect.carried');
  expect(newStatus).toBe('completed');
});
