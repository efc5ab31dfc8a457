/**
 * docs/ARCHITECTURE.md#the-store-file: a busy store is waited out by a runner's commands, never reported as
 * a failure. 80 `exec` starts at once, each with nested `step` and `progress`, all exit 0 and leave no
 * stale run. Outcomes only: how long it takes depends on the machine.
 */
import { afterAll, expect, it } from 'vitest';
import type { RunListPage } from '../../main/store';
import { runJson, spawnCli, tempDir } from '../helpers/cli';

const dir = tempDir('runwarden-busy-starts-');
afterAll(() => dir.remove());

it('80 concurrent exec starts all exit 0 with 0 stale runs', async () => {
  const starts = Array.from({ length: 80 }, () =>
    spawnCli(['exec', '-q', '--', 'sh', '-c', 'runwarden step s -- true && runwarden progress done'], {
      store: dir.store,
      timeoutMs: 900_000,
    }),
  );
  const results = await Promise.all(starts.map((s) => s.done));
  const failed = results.filter((r) => r.code !== 0).map((r) => `${r.code}: ${r.stderr.trim()}`);
  expect(failed).toEqual([]);
  const all = await runJson<RunListPage>(['ls', '--limit', '500'], { store: dir.store });
  const items = all.body.ok ? all.body.value.items : [];
  expect(items).toHaveLength(80);
  expect(items.filter((i) => i.display.status !== 'completed').map((i) => i.display.status)).toEqual([]);
}, 960_000);
