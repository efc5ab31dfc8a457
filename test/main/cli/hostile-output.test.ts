/**
 * Hostile text through every command's human output. Each string of the table is something a terminal
 * would act on (set the title, write the clipboard with OSC 52, clear the screen, a C1 CSI, colour, a
 * carriage return or backspace that overwrites what was printed, a bidi override that reorders what is
 * read, a newline that forges a line) or a shell would run. They go, all together, into every field a
 * person or a program can write — the store's folder, the project folder, the command line, title,
 * workflow, step, progress, effect key/type/summary, question title/prompt/choices, reasons, notes —
 * and every command's output (stdout and stderr, human and JSON) must come out inert: no control
 * character but newline and tab, no raw bidi control, and the bidi controls shown as <U+...>.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeLine, sanitizeTerminal, sanitizeText, safeJson } from '../../../main/cli/sanitize';
import { jsonArg, shellQuote } from '../../../main/platform/shell-quote';
import { openStore } from '../../../main/store';
import type { RunDetail, RunListPage } from '../../../main/store';
import { runCli, runJson, spawnCli, tempDir, waitFor, type CliResult, type TempDir } from '../../helpers/cli';
import { testCliBin } from '../../helpers/paths';

export const HOSTILE: ReadonlyArray<[string, string]> = [
  ['OSC 0 window title', '\u001b]0;pwned\u0007'],
  ['OSC 52 clipboard write', '\u001b]52;c;cm0gLXJmIH4=\u0007'],
  ['OSC 8 hyperlink', '\u001b]8;;http://evil.example\u001b\\link\u001b]8;;\u001b\\'],
  ['clear screen and home', '\u001b[2J\u001b[H'],
  ['C1 CSI clear', '\u009b2J'],
  ['C1 OSC', '\u009d0;pwned\u009c'],
  ['SGR colour', '\u001b[31mred\u001b[0m'],
  ['carriage return overwrite', 'safe\rEVIL'],
  ['backspaces', 'ok\u0008\u0008no'],
  ['DEL and BEL', 'a\u007fb\u0007'],
  ['forged line', 'x\nrunwarden: all good'],
  ['bidi override', 'invoice\u202egnp.exe\u202c'],
  ['bidi isolate', '\u2067abc\u2069'],
  ['command substitution', '$(touch marker)'],
  ['backticks and quote', '`touch marker2`\'"; touch marker3'],
];
const ALL = HOSTILE.map(([, text]) => text).join(' ');
// What must never reach a terminal: every control but \n and \t, and the bidi controls.
// oxlint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function expectInert(label: string, result: Pick<CliResult, 'stdout' | 'stderr'>): void {
  for (const [stream, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    const found = UNSAFE.exec(text);
    expect(
      found === null
        ? null
        : {
            at: found.index,
            char: found[0].codePointAt(0),
            around: text.slice(Math.max(0, found.index - 20), found.index + 20),
          },
      `${label}: ${stream}`,
    ).toBeNull();
  }
}

describe('the sanitizer, string by string', () => {
  it.each(HOSTILE)(
    '%s comes out inert as a line, as text, on the guarded stream and in JSON',
    (_name, text) => {
      for (const out of [sanitizeLine(text), sanitizeText(text), safeJson({ text })]) {
        expect(UNSAFE.test(out)).toBe(false);
      }
      // The stream guard keeps colour sequences (the CLI paints its own); fields are sanitized before that.
      // oxlint-disable-next-line no-control-regex
      const ownColours = /\u001b\[(?:1|2|22|3[1-6]|39)m/g;
      expect(UNSAFE.test(sanitizeTerminal(text).replace(ownColours, ''))).toBe(false);
      expect(UNSAFE.test(sanitizeTerminal(text, false))).toBe(false);
      expect(sanitizeLine(text)).not.toContain('\n');
      expect(JSON.parse(safeJson({ text }))).toEqual({ text });
      // A real shell gets back exactly the text from a quoted argument, and from the --json form.
      const quoted = spawnSync('sh', ['-c', `printf %s ${shellQuote(text)}`], { encoding: 'utf8' });
      expect(quoted.stdout).toBe(text);
      const json = spawnSync('sh', ['-c', `printf %s ${jsonArg(text)}`], { encoding: 'utf8' });
      expect(UNSAFE.test(jsonArg(text))).toBe(false);
      expect(JSON.parse(json.stdout)).toBe(text);
    },
  );

  it('shows bidi controls instead of obeying them, and keeps the CLI’s own colours', () => {
    expect(sanitizeLine('a\u202eb')).toBe('a<U+202E>b');
    expect(sanitizeTerminal('\u001b[1mTitle\u001b[22m \u001b]0;x\u0007')).toBe(
      '\u001b[1mTitle\u001b[22m  ]0;x ',
    );
  });
});

let dir: TempDir;
let store: string;
let project: string;
beforeAll(() => {
  dir = tempDir();
  // The store's own folder and the project folder have hostile names too.
  const storeDir = join(dir.path, `store ${ALL.replaceAll('/', '_')}`);
  mkdirSync(storeDir);
  store = join(storeDir, 'state.sqlite');
  openStore(store).close();
  project = join(dir.path, `proj ${ALL.replaceAll('/', '_')}`);
  mkdirSync(project);
});
afterAll(() => dir.remove());

describe('every command, with the hostile strings in every field', () => {
  it('prints them inert, in human and JSON output, on stdout and stderr', async () => {
    const env = { HOSTILE: ALL };
    const opts = { store, cwd: project, env };
    const outputs: Array<[string, CliResult]> = [];
    const record = async (label: string, args: string[]): Promise<CliResult> => {
      const result = await runCli(args, opts);
      outputs.push([label, result]);
      return result;
    };
    // A run that does everything a runner can, with hostile values, and fails.
    const script = [
      'runwarden step "$HOSTILE" -- true',
      'runwarden progress "$HOSTILE"',
      'runwarden effect --key "$HOSTILE" --type "$HOSTILE" --summary "$HOSTILE" -- sh -c "exit 75"',
      'exit 3',
    ].join('; ');
    const failed = await record('exec', [
      'exec',
      '--title',
      ALL,
      '--workflow',
      ALL,
      '--',
      'sh',
      '-c',
      script,
      ALL,
    ]);
    expect(failed.code).toBe(75);
    const runId = /run (run_\S+)/.exec(failed.stderr)?.[1] ?? '';
    await record('exec --json', ['exec', '--json', '--title', ALL, '--', 'sh', '-c', 'exit 4', ALL]);

    // A run waiting on a hostile question (choices and prompt), answered later by the test.
    const asking = spawnCli(
      [
        'exec',
        '--title',
        ALL,
        '--',
        'sh',
        '-c',
        'runwarden ask --title "$HOSTILE" --prompt "$HOSTILE" --choice "$HOSTILE" --choice ok; runwarden ask --title "$HOSTILE" --choice "$HOSTILE" --timeout 1s',
      ],
      opts,
    );
    const askingId = await waitFor('the asking run', () => /run (run_\S+)/.exec(asking.stderr)?.[1]);
    const question = await waitFor('the question', async () => {
      const { body } = await runJson<RunDetail>(['show', askingId], opts);
      return body.ok ? body.value.snapshot.interactions[0] : undefined;
    });

    await record('ls', ['ls']);
    await record('ls --json', ['ls', '--json']);
    await record('ls --search', ['ls', '--search', ALL.slice(0, 150)]);
    await record('show failed', ['show', runId]);
    await record('show asking', ['show', askingId]);
    await record('show --json', ['show', runId, '--json']);
    await record('show unknown id', ['show', ALL]);
    await record('unknown command', [ALL]);
    await record('bad flag', ['ls', `--${ALL}`]);
    await record('doctor', ['doctor']);
    await record('doctor --json', ['doctor', '--json']);
    const effectId = String(
      ((await runJson<RunDetail>(['show', runId], opts)).body as { value: RunDetail }).value.snapshot
        .effects[0]?.id,
    );
    await record('resolve', ['resolve', effectId, '--happened', '--note', ALL]);
    await record('resolve again (refused)', ['resolve', effectId, '--happened', '--note', ALL]);
    await record('show resolved', ['show', runId]);
    await record('cancel', ['cancel', runId, '--reason', ALL]);
    await record('bulk dry run', ['cancel', runId, askingId, '--dry-run', '--reason', ALL]);
    // Refused while the run's runner is live and waiting on the first question, which has no
    // deadline; after the answer, the second question expires in 1 s and the run ends.
    await record('pause (refused)', ['pause', askingId, '--reason', ALL]);
    await record('answer (refused value)', ['answer', question.id, ALL.replaceAll('$(touch marker)', '')]);
    await record('answer', ['answer', question.id, ALL]);
    await record('notify', ['notify', ALL, ALL]);
    const asked = await asking.done;
    // `ask` prints the answer into a pipe exactly: it is data for $(runwarden ask ...), not a message.
    expect(asked.stdout).toBe(`${ALL}\n`);
    outputs.push(['exec (ask inside)', { ...asked, stdout: '' }]);
    await record('retry', ['retry', runId]);
    await record('worker', ['worker', '--once', '--project', project]);

    // Each command really ran its path (not an early usage error).
    expect(Object.fromEntries(outputs.map(([label, result]) => [label, result.code]))).toEqual({
      exec: 75,
      'exec --json': 4,
      ls: 0,
      'ls --json': 0,
      'ls --search': 0,
      'show failed': 0,
      'show asking': 0,
      'show --json': 0,
      'show unknown id': 4,
      'unknown command': 2,
      'bad flag': 2,
      doctor: 0,
      'doctor --json': 0,
      resolve: 0,
      'resolve again (refused)': 5,
      'show resolved': 0,
      cancel: 0,
      'bulk dry run': 5,
      'answer (refused value)': 2,
      answer: 0,
      notify: 0,
      'pause (refused)': 3,
      'exec (ask inside)': 124,
      retry: 0,
      // The retry skips the effect (resolved: it happened) and fails like its parent, with exit 3.
      worker: 3,
    });
    for (const [label, result] of outputs) expectInert(label, result);
    // Bidi controls are shown, not obeyed or dropped.
    const shown = outputs.find(([label]) => label === 'show failed')?.[1].stdout ?? '';
    expect(shown).toContain('<U+202E>');
    expect(existsSync(join(project, 'marker'))).toBe(false);
  });
});

describe('the next commands show prints', () => {
  it('are safe to paste: a hostile choice is passed as text and runs nothing', async () => {
    const cwd = join(dir.path, 'paste');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'README'), 'the paste test runs here\n');
    const opts = { store, cwd: project };
    for (const choice of [
      '$(touch marker)',
      '`touch marker`',
      "it's; touch marker",
      '\u001b]0;x\u0007$(touch marker)',
      '-rf',
    ]) {
      const asking = spawnCli(
        ['exec', '--title', 'Paste', '--', 'runwarden', 'ask', '--title', 'Which?', `--choice=${choice}`],
        opts,
      );
      const runId = await waitFor('the run', () => /run (run_\S+)/.exec(asking.stderr)?.[1]);
      await waitFor('the question', async () => {
        const { body } = await runJson<RunListPage>(['ls', '--needs-you', '--limit', '500'], opts);
        return (
          body.ok && body.value.items.some((i) => i.run.id === runId && i.display.status === 'needs-answer')
        );
      }).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${asking.stderr}`);
      });
      const show = await runCli(['show', runId], opts);
      const hint = show.stdout.split('\n').find((line) => line.trim().startsWith('runwarden answer '));
      expect(hint, show.stdout).toBeDefined();
      // Paste it into a shell, exactly as printed (the trailing "# ..." is a shell comment).
      const binDir = join(testCliBin(), '..');
      const pasted = spawnSync('sh', ['-c', hint ?? ''], {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}`, RUNWARDEN_STORE: store },
      });
      expect(pasted.status, pasted.stderr).toBe(0);
      const done = await asking.done;
      expect(done.code).toBe(0);
      // The runner got the very choice back, and nothing was run.
      expect(done.stdout).toBe(`${choice}\n`);
      expect(existsSync(join(cwd, 'marker'))).toBe(false);
      expect(existsSync(join(project, 'marker'))).toBe(false);
    }
  });
});
