/**
 * `npm run dist:release` refuses placeholder metadata and a release without a feed (scripts/release-check.js),
 * on this repository as it stands (no homepage, no email, no repository: refused, saying what to set) and on a
 * project that gives them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { releaseProblems } from '../../../scripts/release-check.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const builder = readFileSync(join(root, 'electron-builder.yml'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const released = {
  ...pkg,
  homepage: 'https://runwarden.test',
  author: { name: 'Someone', email: 'someone@runwarden.test' },
  repository: 'github:someone/runwarden',
};

describe('dist:release metadata check', () => {
  it('runs before the build in dist:release', () => {
    expect((pkg.scripts as Record<string, string>)['dist:release']).toMatch(
      /^node scripts\/release-check\.js && /,
    );
  });

  it('refuses example.com anywhere, in package.json or electron-builder.yml', () => {
    const placeholder = { ...released, author: { name: 'x', email: 'runwarden@example.com' } };
    expect(releaseProblems(JSON.stringify(placeholder), builder)).toEqual([
      'package.json holds the placeholder runwarden@example.com: put the real value or remove it',
    ]);
    expect(
      releaseProblems(JSON.stringify({ ...released, homepage: 'https://example.com/runwarden' }), builder)[0],
    ).toMatch(/placeholder example\.com\/runwarden/);
    expect(
      releaseProblems(JSON.stringify(released), `${builder}\n# https://www.example.org/feed\n`),
    ).toHaveLength(1);
  });

  it('passes a project that names its homepage, maintainer and feed; a generic feed needs no repository', () => {
    expect(releaseProblems(JSON.stringify(released), builder)).toEqual([]);
    const { repository: _, ...noRepo } = released;
    expect(releaseProblems(JSON.stringify(noRepo), builder)).toEqual([
      'no release feed: set package.json repository (GitHub Releases) or a generic publish url',
    ]);
    const generic = builder.replace(
      'provider: github',
      'provider: generic\n  url: https://downloads.runwarden.test/',
    );
    expect(releaseProblems(JSON.stringify(noRepo), generic)).toEqual([]);
  });

  it('this repository as it stands is refused, each missing thing named, exit 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runwarden-release-check-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
      writeFileSync(join(dir, 'electron-builder.yml'), builder);
      const run = spawnSync(process.execPath, [join(root, 'scripts', 'release-check.js'), dir], {
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/no https homepage/);
      expect(run.stderr).toMatch(/author has no email/);
      expect(run.stderr).toMatch(/no release feed/);
      expect(run.stderr).not.toMatch(/placeholder/);
      writeFileSync(join(dir, 'package.json'), JSON.stringify(released));
      expect(spawnSync(process.execPath, [join(root, 'scripts', 'release-check.js'), dir]).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
