import { describe, expect, it } from 'vitest';
import { findDeepLink, parseDeepLink } from '../../../main/electron/deep-link';

describe('parseDeepLink', () => {
  it.each([
    ['runwarden://run/run_01HZX3', 'run_01HZX3'],
    ['runwarden://run/abc-DEF_123/', 'abc-DEF_123'],
    ['runwarden://run/' + 'a'.repeat(64), 'a'.repeat(64)],
    ['runwarden://run/box:run_01HZX3', 'box:run_01HZX3'],
    ['runwarden://run/gpu-2:run_01hzx3/', 'gpu-2:run_01hzx3'],
  ])('accepts %s', (url, runId) => {
    expect(parseDeepLink(url)).toEqual({ kind: 'run', runId });
  });

  it.each([
    ['another scheme', 'https://run/abc'],
    ['file scheme', 'file:///etc/passwd'],
    ['javascript', 'javascript:alert(1)'],
    ['another host', 'runwarden://project/abc'],
    ['no id', 'runwarden://run/'],
    ['id too long', 'runwarden://run/' + 'a'.repeat(65)],
    ['path traversal', 'runwarden://run/../settings'],
    ['nested path', 'runwarden://run/abc/def'],
    ['query string', 'runwarden://run/abc?x=1'],
    ['fragment', 'runwarden://run/abc#x'],
    ['encoded characters', 'runwarden://run/a%2Fb'],
    ['a machine name in capitals', 'runwarden://run/BOX:run_1'],
    ['two machines', 'runwarden://run/a:b:run_1'],
    ['a machine and no id', 'runwarden://run/box:'],
    ['upper-case host', 'runwarden://RUN/abc'],
    ['credentials', 'runwarden://user@run/abc'],
    ['leading space', ' runwarden://run/abc'],
    ['trailing newline', 'runwarden://run/abc\n'],
    ['empty', ''],
    ['not a string', 42],
    ['null', null],
    ['huge', 'runwarden://run/' + 'a'.repeat(10_000)],
  ])('ignores %s', (_name, url) => {
    expect(parseDeepLink(url)).toBeNull();
  });
});

describe('findDeepLink', () => {
  it('finds the link a second launch passes on its command line', () => {
    expect(findDeepLink(['/opt/Runwarden/runwarden', '--no-sandbox', 'runwarden://run/r1'])).toEqual({
      kind: 'run',
      runId: 'r1',
    });
  });

  it('uses only the last link-looking argument, and ignores it when it is malformed', () => {
    expect(findDeepLink(['app', 'runwarden://run/r1', 'runwarden://run/r2'])).toEqual({
      kind: 'run',
      runId: 'r2',
    });
    expect(findDeepLink(['app', 'runwarden://run/r1', 'runwarden://evil/x'])).toBeNull();
  });

  it('returns null without a link', () => {
    expect(findDeepLink(['app', '--hidden'])).toBeNull();
    expect(findDeepLink([])).toBeNull();
  });
});
