/**
 * The arguments `agents hook` reads by hand on its own entry (docs/CLI.md#start-up): exactly what the
 * installers write; anything else is the whole CLI's to parse and word (null here).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUESTION_TIMEOUT_MS, fastHookOptions } from '../../../main/cli/agents/hook-options';

describe('fastHookOptions', () => {
  it('reads the hook lines the installers write', () => {
    expect(fastHookOptions(['agents', 'hook', 'claude-code'])).toEqual({
      agent: 'claude-code',
      storeFlag: undefined,
      questionTimeoutMs: DEFAULT_QUESTION_TIMEOUT_MS,
      gatePreToolUse: false,
      pollMs: 200,
    });
    expect(
      fastHookOptions([
        'agents',
        'hook',
        'codex',
        '--store',
        '/tmp/s.sqlite',
        '--question-timeout',
        '30s',
        '--gate',
        '--poll-ms=50',
      ]),
    ).toEqual({
      agent: 'codex',
      storeFlag: '/tmp/s.sqlite',
      questionTimeoutMs: 30_000,
      gatePreToolUse: true,
      pollMs: 50,
    });
    // pi and Gemini CLI are always gated; --store=PATH is the same as --store PATH.
    expect(fastHookOptions(['agents', 'hook', 'gemini', '--store=/s'])).toMatchObject({
      gatePreToolUse: true,
      storeFlag: '/s',
    });
    expect(fastHookOptions(['agents', 'hook', 'pi'])).toMatchObject({ gatePreToolUse: true });
  });

  it.each([
    [['agents', 'install', 'claude-code']],
    [['agents', 'hook']],
    [['agents', 'hook', 'nobody']],
    [['agents', 'hook', 'claude-code', 'extra']],
    [['agents', 'hook', 'claude-code', '--help']],
    [['agents', 'hook', 'claude-code', '-h']],
    [['agents', 'hook', 'claude-code', '--json']],
    [['agents', 'hook', 'claude-code', '--store']],
    [['agents', 'hook', 'claude-code', '--store', '--gate']],
    [['agents', 'hook', 'claude-code', '--store', '']],
    [['agents', 'hook', 'claude-code', '--store', 'a', '--store', 'b']],
    [['agents', 'hook', 'claude-code', '--gate=yes']],
    [['agents', 'hook', 'claude-code', '--question-timeout', '9999s']],
    [['agents', 'hook', 'claude-code', '--poll-ms', '1']],
    [['agents', 'hook', 'claude-code', '--', '--gate']],
    [['agents', 'hook', 'claude-code', '--constructor', 'x']],
  ])('leaves %j to the whole CLI', (argv) => {
    expect(fastHookOptions(argv)).toBeNull();
  });
});
