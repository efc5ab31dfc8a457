/**
 * What a short CLI process loads and keeps (docs/CLI.md#start-up): the compile cache beside the bundle, a
 * start without it when its folder cannot be made, and a runner's `notify` / `progress` / `step` / `effect`
 * loading only the entry, the CLI's core and the runner chunk — none of the person, host, view and search
 * code, no better-sqlite3 file of its own, and none of the built-in modules only other commands need; and
 * `agents hook`, run from its own one file with a code cache of its own. Each
 * test runs its own copy of this run's build, so a cache it breaks is nobody else's.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { runnerEnv } from '../../../main/runner/runner-env';
import { REPO_ROOT } from '../../helpers/paths';
import { createTempStore, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

let build: string;
let t: TempStore | null = null;
const cacheDir = () => join(build, 'out/cli/.compile-cache');

beforeAll(() => {
  // Under out/ like the real bundle, so node_modules is found by walking up.
  build = mkdtempSync(join(REPO_ROOT, 'out', 'test-start-up-'));
  const source = inject('runwardenBuild');
  cpSync(join(source, 'bin'), join(build, 'bin'), { recursive: true });
  cpSync(join(source, 'out/cli'), join(build, 'out/cli'), {
    recursive: true,
    filter: (path) => !path.includes('.compile-cache'),
  });
});
afterAll(() => rmSync(build, { recursive: true, force: true }));
afterEach(() => {
  t?.cleanup();
  t = null;
  rmSync(cacheDir(), { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const result = spawnSync(process.execPath, [...nodeArgs, join(build, 'bin/runwarden.js'), ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('CLI start-up', () => {
  it('keeps compiled code beside the bundle, and the next start uses it', () => {
    expect(run(['--version']).code).toBe(0);
    // Its version folder, and one entry for each file --version loads: the entry and the CLI's core.
    const entries = readdirSync(cacheDir(), { recursive: true });
    expect(entries.length).toBeGreaterThanOrEqual(3);
    const again = run(['--version'], { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/code cache for ESM .*out\/cli\/runwarden\.js was accepted/);
    expect(again.stderr).toMatch(/code cache for ESM .*out\/cli\/chunks\/cli-core-[\w-]+\.js was accepted/);
  });

  it('starts without a cache when its folder cannot be made', () => {
    t = createTempStore();
    // A file where the cache folder would go: nothing can be written there.
    writeFileSync(cacheDir(), 'not a folder');
    const result = run(['notify', '--store', t.path, 'no cache here']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(t.store.listNotifications({ limit: 10 }).map((n) => n.title)).toEqual(['no cache here']);
  });

  it('a runner command inside a run loads neither node:crypto, worker_threads, readline nor the stream modules', () => {
    // The CLI reads the real clock: the lease is taken at it.
    t = createTempStore({ start: Date.now() });
    const claim = reserveAndClaim(t, 60_000);
    const env = runnerEnv(t.path, claim);
    const list = join(build, `modules-${process.pid}.txt`);
    const probe = join(build, 'module-probe.cjs');
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
    );
    const loaded = (args: string[]) => {
      const result = run(args, env, ['--require', probe]);
      expect(result.code, result.stderr).toBe(0);
      return readFileSync(list, 'utf8').split('\n');
    };
    const notify = loaded(['notify', 'from the run']);
    const progress = loaded(['progress', 'halfway']);
    for (const modules of [notify, progress]) {
      expect(modules).toContain('NativeModule fs');
      expect(modules).not.toContain('NativeModule worker_threads');
      expect(modules).not.toContain('NativeModule readline');
      expect(modules).not.toContain('NativeModule readline/promises');
      // The ESM wrappers of node:fs and node:tty, and node:child_process, load these (docs/CLI.md#start-up).
      for (const other of [
        'internal/fs/promises',
        'internal/readline/interface',
        'child_process',
        'net',
        'tty',
      ])
        expect(modules).not.toContain(`NativeModule ${other}`);
    }
    // progress checks the run's token by its SHA-256 (`hashToken`, @noble/hashes), notify needs no id and no token:
    // neither loads node:crypto (and the stream modules it needs), and neither prints, so no stream module.
    for (const modules of [notify, progress]) {
      expect(modules).not.toContain('NativeModule crypto');
      expect(modules).not.toContain('NativeModule stream');
    }
    expect(t.store.getRun(claim.runId).statusDetail).toBe('halfway');
  });

  it('a runner command loads the entry, the core and the runner chunk, and none of the rest of the store', () => {
    t = createTempStore({ start: Date.now() });
    const claim = reserveAndClaim(t, 60_000);
    const env = runnerEnv(t.path, claim);
    const list = join(build, `files-${process.pid}.txt`);
    const probe = join(build, 'file-probe.cjs');
    // Every file Node's loader resolves, ES module or CommonJS, through its module hooks.
    writeFileSync(
      probe,
      `const seen = [];
require('node:module').registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, seen.join('\\n')));`,
    );
    const loaded = (args: string[]) => {
      const result = run(args, env, ['--require', probe]);
      expect(result.code, result.stderr).toBe(0);
      return readFileSync(list, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:'))
        .map((url) => fileURLToPath(url));
    };
    // What the rest of the CLI needs and a runner's call must not evaluate: a future import that pulls any
    // of it into these commands' chunks fails here.
    const elsewhere =
      /main\/store\/(run-store|person-commands|run-views|run-counts|search-|list-page|tray-attention|hygiene-worker|doctor|orphans|interaction-deadlines|maintenance|settings)|main\/services\/|main\/logs\//;
    const commands: Array<[string, string[]]> = [
      ['notify', ['notify', 'from the run']],
      ['progress', ['progress', 'halfway']],
      ['step', ['step', 'start', 'build']],
      ['step', ['step', 'end']],
      ['effect', ['effect', 'begin', '--key', 'deploy-1', '--summary', 'deploy']],
    ];
    for (const [name, args] of commands) {
      const files = loaded(args);
      const chunks = files.map((file) => basename(file).replace(/-[\w-]{8}\.js$/, '')).toSorted();
      expect(chunks, args.join(' ')).toEqual(
        ['cli-core', name, 'runner', 'runwarden.js', 'runwarden.js'].toSorted(),
      );
      expect(
        files.filter((file) => file.includes('better-sqlite3')),
        args.join(' '),
      ).toEqual([]);
      for (const file of files.filter((f) => f.includes('/chunks/'))) {
        // One non-ASCII byte and V8 holds the whole file as a two-byte string, decoded on every start.
        expect(
          readFileSync(file).some((byte) => byte > 0x7f),
          `${args.join(' ')}: ${basename(file)} has a non-ASCII character`,
        ).toBe(false);
        const sources = (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources;
        expect(
          sources.filter((source) => elsewhere.test(source)),
          `${args.join(' ')}: ${basename(file)}`,
        ).toEqual([]);
        console.log(`${args.join(' ')}: ${basename(file)} holds ${sources.length} modules`);
      }
    }
    expect(t.store.getRun(claim.runId).statusDetail).toBe('halfway');
  });
});

describe('agents hook start-up', () => {
  const hookCache = () =>
    readdirSync(cacheDir()).filter((name) => name.startsWith('agent-hook-') && name.endsWith('.v8'));
  const payload = (sessionId: string, event: string) =>
    JSON.stringify({
      session_id: sessionId,
      cwd: build,
      hook_event_name: event,
      tool_name: 'Bash',
      tool_input: { command: 'true' },
    });
  const hook = (input: string, agent = 'claude-code', extra: string[] = []) =>
    spawnSync(process.execPath, [join(build, 'bin/runwarden.js'), 'agents', 'hook', agent, ...extra], {
      input,
      env: { ...process.env, NO_COLOR: '1', CLAUDE_PID: String(process.pid) },
      encoding: 'utf8',
    });

  it('runs without any of the CLI chunks, and keeps V8 code for it taken after its first run', () => {
    t = createTempStore({ start: Date.now() });
    const chunks = join(build, 'out/cli/chunks');
    const aside = join(build, 'out/cli/chunks-aside');
    renameSync(chunks, aside);
    try {
      const first = hook(payload('start-up-1', 'SessionStart'), 'claude-code', ['--store', t.path]);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stderr).toBe('');
      expect(hookCache()).toHaveLength(1);
      const again = hook(payload('start-up-1', 'PostToolUse'), 'claude-code', ['--store', t.path]);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toBe('');
    } finally {
      renameSync(aside, chunks);
    }
    const runs = t.store.listRuns({ limit: 10 }).items.map((item) => item.run);
    // The session's run, created by the first call and working after the second.
    expect(runs.map((r) => [r.title.startsWith('Claude Code in '), r.statusDetail])).toEqual([
      [true, 'Working'],
    ]);
  });

  it('a damaged code cache is refused by V8 and written again; the hook runs all the same', () => {
    t = createTempStore({ start: Date.now() });
    expect(hook(payload('start-up-2', 'SessionStart'), 'claude-code', ['--store', t.path]).status).toBe(0);
    const [name] = hookCache();
    const file = join(cacheDir(), name as string);
    const good = readFileSync(file);
    writeFileSync(file, Buffer.alloc(good.length, 7));
    const result = hook(payload('start-up-2', 'Stop'), 'claude-code', ['--store', t.path]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(readFileSync(file).equals(Buffer.alloc(good.length, 7))).toBe(false);
    expect(t.store.listRuns({ limit: 10 }).items[0]?.run.statusDetail).toBe('Waiting for your next prompt');
  });

  it('hands anything but a well-formed hook call to the whole CLI', () => {
    const unknown = hook('{}', 'nobody');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^runwarden: unknown agent "nobody": claude-code, codex/);
    const help = hook('', 'claude-code', ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: runwarden agents install/);
    const badTimeout = hook('{}', 'claude-code', ['--question-timeout', '9999s']);
    expect(badTimeout.status).toBe(2);
    expect(badTimeout.stderr).toMatch(/--question-timeout must be a duration from 1s to 590s/);
  });
});
