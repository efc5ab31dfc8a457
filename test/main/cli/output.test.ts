import { copyFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  colourEnabled,
  formatTable,
  painter,
  parseDuration,
  relativeTime,
  truncate,
} from '../../../main/cli/output';
import { exitCodeForError } from '../../../main/cli/exit-codes';
import { sanitizeLine } from '../../../main/cli/sanitize';
import { REPO_ROOT } from '../../helpers/paths';
import { tempDir } from '../../helpers/cli';

describe('CLI output helpers', () => {
  it('aligns columns on visible width, cuts long cells, and never leaves trailing spaces', () => {
    const rows = [
      { a: 'x', b: 'short' },
      { a: 'longer', b: 'a much longer value than allowed' },
    ];
    const text = formatTable(
      [
        { header: 'A', value: (r) => r.a },
        { header: 'B', value: (r) => r.b, max: 10 },
      ],
      rows,
      painter(false),
    );
    expect(text).toBe('A       B\nx       short\nlonger  a much lo…\n');
    const coloured = formatTable(
      [
        { header: 'S', value: (r: { s: string }) => r.s, style: () => 'red' as const },
        { header: 'T', value: () => 't' },
      ],
      [{ s: 'a\u001b[2Jb' }],
      painter(true),
    );
    expect(coloured.split('\n')[1]).toBe('\u001b[31ma [2Jb\u001b[39m  t');
  });

  it('neutralises control characters in untrusted text', () => {
    expect(sanitizeLine('a\u001b[2Jb\nc\td')).toBe('a [2Jb c d');
    expect(truncate('héllo wörld', 5)).toBe('héll…');
  });

  it('follows NO_COLOR, FORCE_COLOR and the TTY', () => {
    expect(colourEnabled({ write: () => true, isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ write: () => true, isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ write: () => true, isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ write: () => true, isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourEnabled({ write: () => true, isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });

  it('formats relative times with Intl and parses durations', () => {
    const now = 1_800_000_000_000;
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5 min. ago');
    expect(relativeTime(now + 30_000, now)).toBe('in 30 sec.');
    expect(relativeTime(now - 3 * 86_400_000, now)).toBe('3 days ago');
    expect(relativeTime(null, now)).toBe('-');
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('2')).toBe(2000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('soon')).toBeNull();
    expect(parseDuration('0s')).toBeNull();
  });

  it('maps every store refusal to a documented exit code', () => {
    expect(exitCodeForError('LIVE_OWNER')).toBe(3);
    expect(exitCodeForError('NOT_FOUND')).toBe(4);
    expect(exitCodeForError('STALE_VIEW')).toBe(5);
    expect(exitCodeForError('CONFLICT')).toBe(5);
    expect(exitCodeForError('VALIDATION')).toBe(2);
    expect(exitCodeForError('FENCED')).toBe(6);
    expect(exitCodeForError('BUSY')).toBe(7);
    expect(exitCodeForError('STORE_LOCKED')).toBe(7);
    expect(exitCodeForError('DISK_FULL')).toBe(8);
    expect(exitCodeForError('READ_ONLY')).toBe(9);
    expect(exitCodeForError('STORE_NEWER')).toBe(9);
    expect(exitCodeForError('STORE_FOREIGN')).toBe(9);
    expect(exitCodeForError('STORE_CORRUPT')).toBe(9);
    expect(exitCodeForError('INTERNAL')).toBe(1);
  });
});

describe('bin/runwarden.js', () => {
  it('says how to build the CLI when the bundle is missing', () => {
    const dir = tempDir();
    try {
      mkdirSync(join(dir.path, 'bin'));
      copyFileSync(join(REPO_ROOT, 'bin/runwarden.js'), join(dir.path, 'bin/runwarden.js'));
      const result = spawnSync(process.execPath, [join(dir.path, 'bin/runwarden.js'), 'ls'], {
        encoding: 'utf8',
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toBe("Runwarden's CLI is not built: run npm run build:cli\n");
    } finally {
      dir.remove();
    }
  });
});
