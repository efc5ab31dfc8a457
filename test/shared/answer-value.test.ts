/**
 * One reading of a typed answer for every surface (shared/answer-value.ts): the same table goes through the
 * parser, the window's answer form (checkFields) and the real `runwarden answer ID VALUE`, which refuses
 * what the form refuses (exit 2, the question still open) and records what the form would send.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDecimal, typedValue } from '../../shared/answer-value';
import { checkFields, type FormField } from '../../renderer/src/lib/answer-form';
import type { Interaction } from '../../shared/domain';
import type { RunDetail } from '../../main/store';
import { runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../helpers/cli';

/** Typed text → the number every surface reads, or null where every surface refuses it. */
const NUMBERS: Array<[string, number | null]> = [
  ['12', 12],
  [' -3.5 ', -3.5],
  ['1e3', 1000],
  ['.5', 0.5],
  ['+2', 2],
  ['0x10', null],
  ['0b11', null],
  ['0o7', null],
  ['Infinity', null],
  ['-Infinity', null],
  ['NaN', null],
  ['1,5', null],
  ['12abc', null],
  ['', null],
  ['  ', null],
];

const FIELD: FormField = { name: 'replicas', type: 'number', label: 'Replicas', required: true, initial: '' };

describe('a typed number', () => {
  it.each(NUMBERS)('parseDecimal(%j) is %j', (text, expected) => {
    expect(parseDecimal(text)).toBe(expected);
    const typed = typedValue('number', text, 'Replicas');
    expect(typed).toEqual(
      expected === null
        ? { ok: false, message: 'Replicas must be a number.' }
        : { ok: true, value: expected },
    );
  });

  it.each(NUMBERS)('the window form reads %j as %j', (text, expected) => {
    const checked = checkFields([FIELD], { replicas: text });
    if (expected !== null) expect(checked).toEqual({ ok: true, payload: { replicas: expected } });
    else expect(checked.ok).toBe(false);
  });

  it('booleans are true or false, strings as typed', () => {
    expect(typedValue('boolean', 'true', 'Force')).toEqual({ ok: true, value: true });
    expect(typedValue('boolean', 'yes', 'Force')).toEqual({
      ok: false,
      message: 'Force must be true or false.',
    });
    expect(typedValue('string', ' a b ', 'Name')).toEqual({ ok: true, value: ' a b ' });
  });
});

describe('runwarden answer ID VALUE reads the same', () => {
  let dir: TempDir;
  let project: string;
  beforeAll(() => {
    dir = tempDir();
    project = join(dir.path, 'proj');
    mkdirSync(project);
  });
  afterAll(() => dir.remove());

  it('refuses every text the form refuses, changing nothing, and records what the form sends', async () => {
    const exec = spawnCli(
      ['exec', '--project', project, '--', 'sh', '-c', 'runwarden ask --title Scale --field replicas:number'],
      { store: dir.store, timeoutMs: 60_000 },
    );
    const runId = await waitFor('the run id', () => /run (run_[A-Za-z0-9_]+)/.exec(exec.stderr)?.[1]);
    const open = (): Promise<Interaction | undefined> =>
      runJson<RunDetail>(['show', runId], { store: dir.store }).then(({ body }) =>
        body.ok ? body.value.snapshot.interactions[0] : undefined,
      );
    const question = await waitFor('the question', open);
    for (const [text] of NUMBERS.filter(([, value]) => value === null)) {
      const refused = await runCli(['answer', question.id, '--', text], { store: dir.store });
      expect(refused.code, `${JSON.stringify(text)}: ${refused.stderr}`).toBe(2);
      // An empty argument is no VALUE at all; the rest are read as the form reads them.
      expect(refused.stderr).toMatch(text === '' ? /missing VALUE/ : /replicas must be a number\./);
    }
    expect(await open()).toMatchObject({ status: 'pending', revision: question.revision });
    const accepted = await runCli(['answer', question.id, ' -3.5 '], { store: dir.store });
    expect(accepted.code, accepted.stderr).toBe(0);
    const result = await exec.done;
    expect(JSON.parse(result.stdout)).toEqual(
      checkFields([FIELD], { replicas: ' -3.5 ' }).ok && { replicas: -3.5 },
    );
    expect(await open()).toMatchObject({ status: 'settled', response: { replicas: -3.5 } });
  });
});
