/**
 * The README's first steps on a fresh clone: `npm ci`, then `npx runwarden serve` serves the whole window (the
 * page and its script), and `npm start` where Electron's binary cannot be had says why and opens browser mode
 * itself. A clone and an install take about half a minute, so this runs under CI (or with
 * RUNWARDEN_TEST_FRESH_CLONE=1); it needs the npm registry, as the README's own `npm ci` does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/paths';

const enabled = process.env.CI === 'true' || process.env.RUNWARDEN_TEST_FRESH_CLONE === '1';

/** Collects a child's stdout until `pattern` appears; rejects on exit or after `ms`. */
function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  ms: number,
): Promise<{ match: RegExpMatchArray; seen: string }> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms; saw:\n${seen}`)), ms);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = seen.match(pattern);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ match, seen });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (seen += chunk.toString('utf8')));
    child.on('exit', (code) => reject(new Error(`exited ${code} before ${pattern}; saw:\n${seen}`)));
  });
}

/** Signs in with the printed URL, then fetches index.html and the first script it names. */
async function fetchWindow(signInUrl: string): Promise<{ html: string; script: string }> {
  const url = new URL(signInUrl);
  const signIn = await fetch(url, { redirect: 'manual' });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const page = await fetch(new URL('/index.html', url.origin), { headers: { cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  const src = html.match(/<script[^>]+src="([^"]+\.js)"/)?.[1];
  expect(src, 'index.html names its script').toBeDefined();
  const script = await fetch(new URL(src as string, `${url.origin}/`), { headers: { cookie } });
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/javascript/);
  return { html, script: await script.text() };
}

function stopGroup(child: ChildProcess | null): void {
  if (child?.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

describe.runIf(enabled)('a fresh clone, as the README sets it up', () => {
  const root = mkdtempSync(join(tmpdir(), 'runwarden-clone-'));
  let running: ChildProcess | null = null;
  afterAll(() => {
    stopGroup(running);
    rmSync(root, { recursive: true, force: true });
  });

  it('npm ci, then serve and npm start (no Electron to be had) serve the whole window', async () => {
    const clone = join(root, 'runwarden');
    const git = spawnSync('git', ['clone', '--quiet', REPO_ROOT, clone], { encoding: 'utf8' });
    expect(git.status, git.stderr).toBe(0);
    const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);

    // Electron's download cannot get through: an empty cache and a mirror nobody answers.
    const cache = join(root, 'electron-cache');
    mkdirSync(cache);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      RUNWARDEN_STORE: join(root, 'state.sqlite'),
      electron_config_cache: cache,
      ELECTRON_MIRROR: 'http://127.0.0.1:9/',
    };
    delete env.ELECTRON_OVERRIDE_DIST_PATH;

    running = spawn('npx', ['runwarden', 'serve'], { cwd: clone, env, detached: true });
    const served = await waitForOutput(running, /Runwarden is serving (http:\S+)/, 60_000);
    const first = await fetchWindow(served.match[1] as string);
    expect(first.html).toContain('<div id="app"');
    expect(first.script.length).toBeGreaterThan(10_000);
    stopGroup(running);

    running = spawn('npm', ['start'], { cwd: clone, env, detached: true });
    const started = await waitForOutput(running, /Runwarden is serving (http:\S+)/, 120_000);
    expect(started.seen).toMatch(/Electron .* could not be downloaded/);
    expect(started.seen).toContain('opening browser mode instead');
    const second = await fetchWindow(started.match[1] as string);
    expect(second.html).toBe(first.html);
  }, 300_000);
});
