/**
 * Each store owns its logs (docs/RUN-OUTPUT.md#files), with real CLI processes and real files: two stores in
 * one folder never touch each other's logs (A's budget at its minimum, B's live run's log survives A's exec
 * and `logs` reads it), and a store whose logs lie in the folder stores once shared moves its ended runs' logs
 * into its own folder — a live run's log stays where its runner writes, a half-done move completes, another
 * store's file there is left alone and reported by doctor.
 */
import fs from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type DoctorReport } from '../../../main/store';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

const ACTOR = { type: 'human', id: 'test', surface: 'cli' } as const;
const runIdIn = (stderr: string): string | undefined => /run (run_[A-Za-z0-9_]+)/.exec(stderr)?.[1];

let dir: TempDir;
let project: string;
beforeEach(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  fs.mkdirSync(project);
});
afterEach(() => dir.remove());

async function execToEnd(store: string, script: string): Promise<string> {
  const result = await runCli(['exec', '--project', project, '--', 'sh', '-c', script], { store });
  const runId = runIdIn(result.stderr);
  if (runId === undefined || result.code !== 0) throw new Error(`exec failed: ${result.stderr}`);
  return runId;
}

function startLive(store: string, line: string) {
  return spawnCli(['exec', '--project', project, '--', 'sh', '-c', `echo ${line}; sleep 60`], {
    store,
    timeoutMs: 120_000,
  });
}

async function logText(store: string, runId: string): Promise<string> {
  const r = await runCli(['logs', runId, '--raw'], { store });
  return r.stdout;
}

describe('each store owns its logs', () => {
  it("A's budget pass at its minimum leaves B's logs alone, live or ended", async () => {
    const a = join(dir.path, 'a.sqlite');
    const b = join(dir.path, 'b.sqlite');
    const bEnded = await execToEnd(b, 'echo b ended');
    const live = startLive(b, 'b-live');
    try {
      const bLive = await waitFor('B run id', () => runIdIn(live.stderr));
      await waitFor('B live line', async () => (await logText(b, bLive)) === 'b-live\n');
      await execToEnd(a, 'echo a first');
      const setA = openStore(a);
      setA.setSetting('logBudgetMb', 16, ACTOR);
      setA.setSetting('logCapMb', 16, ACTOR);
      setA.close();
      // A budget of 16 MiB less a 16 MiB cap: each exec on A deletes every log of A whose run has ended.
      const aLast = await execToEnd(a, 'echo a second');
      await execToEnd(a, 'echo a third');

      expect(await logText(b, bLive)).toBe('b-live\n');
      expect(await logText(b, bEnded)).toBe('b ended\n');
      // The live log keeps the page set aside for a full disk's gap marker until it closes.
      expect(fs.readdirSync(`${b}.logs`).sort()).toEqual(
        [`${bEnded}.log`, `${bLive}.log`, `${bLive}.log.room`].sort(),
      );
      expect(fs.readdirSync(`${a}.logs`)).not.toContain(`${aLast}.log`);
      expect(fs.existsSync(join(dir.path, 'logs'))).toBe(false);

      const doctorA = await runJson<DoctorReport>(['doctor'], { store: a });
      expect(doctorA.body.ok && doctorA.body.value.logs).toMatchObject({
        dir: `${a}.logs`,
        files: 1,
        foreign: [],
        legacy: { files: 0 },
      });
    } finally {
      killQuietly(live.child.pid, 'SIGTERM');
      await live.done.catch(() => undefined);
    }
  });

  it('moves ended logs out of the shared folder; a live one stays and is read where it is', async () => {
    const store = join(dir.path, 'state.sqlite');
    const legacy = join(dir.path, 'logs');
    const ended = await execToEnd(store, 'echo ended one');
    const halfMoved = await execToEnd(store, 'echo half moved');
    const live = startLive(store, 'still running');
    try {
      const liveId = await waitFor('live run id', () => runIdIn(live.stderr));
      await waitFor('live line', async () => (await logText(store, liveId)) === 'still running\n');
      // The layout of a store made before each store had its own folder: its logs in `<folder>/logs/`, next
      // to another store's log. The live runner keeps its file open: it writes on into the moved file.
      fs.mkdirSync(legacy, { mode: 0o700 });
      const raw = new Database(store);
      const repoint = raw.prepare(`UPDATE run_logs SET path = ? WHERE run_id = ?`);
      for (const id of [ended, liveId]) {
        fs.renameSync(join(`${store}.logs`, `${id}.log`), join(legacy, `${id}.log`));
        repoint.run(join(legacy, `${id}.log`), id);
      }
      // A move a crash cut short: the file already in the store's folder, its row still naming the old place.
      repoint.run(join(legacy, `${halfMoved}.log`), halfMoved);
      raw.close();
      fs.writeFileSync(join(legacy, 'run_otherstore.log'), 'not ours\n');

      await execToEnd(store, 'echo after upgrade');

      expect(fs.readdirSync(legacy).sort()).toEqual([`${liveId}.log`, 'run_otherstore.log'].sort());
      expect(fs.readFileSync(join(legacy, 'run_otherstore.log'), 'utf8')).toBe('not ours\n');
      expect(await logText(store, ended)).toBe('ended one\n');
      expect(await logText(store, halfMoved)).toBe('half moved\n');
      expect(await logText(store, liveId)).toBe('still running\n');
      const check = openStore(store, { readonly: true });
      expect(check.listRunLogs(ended)[0]?.path).toBe(join(`${store}.logs`, `${ended}.log`));
      expect(check.listRunLogs(halfMoved)[0]?.path).toBe(join(`${store}.logs`, `${halfMoved}.log`));
      expect(check.listRunLogs(liveId)[0]?.path).toBe(join(legacy, `${liveId}.log`));
      check.close();

      const doctor = await runJson<DoctorReport>(['doctor'], { store });
      expect(doctor.body.ok && doctor.body.value.logs).toMatchObject({
        legacy: { dir: legacy, files: 1 },
        foreign: [{ dir: legacy, files: 1 }],
      });
      const human = await runCli(['doctor'], { store });
      expect(human.stdout).toMatch(/1 file\(s\) in \S+ are not this store's logs/);
      expect(basename(legacy)).toBe('logs');
    } finally {
      killQuietly(live.child.pid, 'SIGTERM');
      await live.done.catch(() => undefined);
    }
  });
});
