/**
 * A store damaged inside (its header intact) through the CLI (docs/ARCHITECTURE.md#the-store-file): a command
 * that checks on open (ls, exec) refuses it from quick_check; a runner's frequent call that skips the check
 * (notify) is refused by SQLite at the first damaged page it reads. Each is STORE_CORRUPT and writes nothing,
 * and `doctor` names the damage.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../main/store';
import { runCli, tempDir, type TempDir } from '../../helpers/cli';
import { RUNNER_ACTOR } from '../../helpers/temp-store';

let dir: TempDir;
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
beforeAll(() => {
  dir = tempDir();
  const project = path.join(dir.path, 'project');
  fs.mkdirSync(project);
  const store = openStore(dir.store);
  for (let i = 0; i < 40; i += 1) {
    store.reserveRun(
      { projectPath: project, workflow: 'w', title: `run ${i} ${'x'.repeat(200)}` },
      RUNNER_ACTOR,
    );
  }
  store.close();
  const bytes = fs.readFileSync(dir.store);
  // Every page after the first becomes garbage; the header and the schema page stay valid.
  for (let i = 4096; i < bytes.length; i += 1) bytes[i] = (i * 131) & 0xff;
  fs.writeFileSync(dir.store, bytes);
});
afterAll(() => dir.remove());

describe('a store damaged inside, through the CLI', () => {
  it.each([
    ['ls', ['ls', '--json']],
    ['notify outside a run', ['notify', 'hello', '--json']],
    ['exec', ['exec', '--json', '--', 'true']],
  ])('%s: STORE_CORRUPT, nothing written', async (name, args) => {
    const before = sha(dir.store);
    const result = await runCli(args, { store: dir.store });
    expect(result.code, result.stderr).not.toBe(0);
    console.log(`${name}: exit ${result.code}: ${(result.stdout + result.stderr).trim().slice(0, 160)}`);
    expect(`${result.stdout}${result.stderr}`).toMatch(/STORE_CORRUPT|damaged/);
    expect(sha(dir.store)).toBe(before);
  });

  it('doctor checks the pages and names the damage', async () => {
    const before = sha(dir.store);
    const result = await runCli(['doctor', '--json'], { store: dir.store });
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(/damaged/);
    expect(sha(dir.store)).toBe(before);
  });
});
