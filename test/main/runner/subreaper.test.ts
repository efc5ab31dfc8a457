/**
 * docs/LIVENESS.md#only-a-person-outside-the-run-answers: `exec` makes itself a child subreaper through
 * perl, else python3, and records which way it went with its command (`run.command_started`,
 * `containment`). Real processes, Linux only (elsewhere there is no child subreaper to ask for).
 */
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { runCli, tempDir } from '../../helpers/cli';

function containmentOf(store: string, runId: string): unknown {
  const db = new Database(store, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(`SELECT payload_json FROM events WHERE run_id = ? AND type = 'run.command_started'`)
      .get(runId) as { payload_json: string };
    return JSON.parse(row.payload_json).containment;
  } finally {
    db.close();
  }
}

describe.runIf(process.platform === 'linux')('the child subreaper', () => {
  it.each([
    ['perl, python3 left out', { RUNWARDEN_PYTHON: '' }, { subreaper: true }],
    ['python3 without perl', { RUNWARDEN_PERL: '' }, { subreaper: true }],
    [
      'neither: runs without, and says why',
      { RUNWARDEN_PERL: '', RUNWARDEN_PYTHON: '' },
      { subreaper: false, why: 'no perl or python3 was found to set the child subreaper' },
    ],
  ])('%s', async (_name, env, expected) => {
    const dir = tempDir();
    try {
      const exec = await runCli(['exec', '--', 'sh', '-c', 'env'], { store: dir.store, env });
      expect(exec.code, exec.stderr).toBe(0);
      // Nothing of the helper step reaches the command's environment.
      expect(exec.stdout).not.toMatch(/^(RUNWARDEN_SUBREAPER|PERL_BADLANG)=/m);
      const runId = /run (run_[a-z0-9]+)/.exec(exec.stderr)?.[1] ?? '';
      expect(containmentOf(dir.store, runId)).toEqual(expected);
    } finally {
      dir.remove();
    }
  });
});
